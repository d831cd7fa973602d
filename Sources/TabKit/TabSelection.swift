/// A get/set pair standing in for SwiftUI's `Binding`, so a ``TabViewModel`` can read and write a
/// selection that lives elsewhere (a store, another model).
///
/// ```swift
/// var current = 1
/// let model = TabViewModel(selection: TabSelection(get: { current }, set: { current = $0 })) {
///     Tab("Home", systemImage: "house", value: 1)
///     Tab("Search", systemImage: "magnifyingglass", value: 2)
/// }
/// model.selection = 2
/// current  //=> 2
/// ```
public struct TabSelection<Value> {
    private let read: () -> Value
    private let write: (Value) -> Void

    /// Creates a selection from a getter and a setter.
    ///
    /// ```swift
    /// TabSelection(get: { 1 }, set: { _ in }).wrappedValue  //=> 1
    /// ```
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {
        read = get
        write = set
    }

    /// The current value; setting calls the setter.
    ///
    /// ```swift
    /// selection.wrappedValue = 3
    /// ```
    public var wrappedValue: Value {
        get { read() }
        nonmutating set { write(newValue) }
    }
}
