/// The result builder behind `TabViewModel { ... }`, `TabSection { ... }` and `AnyTabContent { ... }`.
///
/// Supports lists of tabs, `if`, `if`/`else`, `switch`, `for` loops, `if #available`, and any
/// ``TabContent`` expression (such as a property returning ``AnyTabContent``).
///
/// ```swift
/// @TabContentBuilder<Int> var tabs: AnyTabContent<Int> {
///     Tab("Home", systemImage: "house", value: 1)
///     if showSearch { Tab("Search", systemImage: "magnifyingglass", value: 2) }
///     for (offset, room) in rooms.enumerated() { Tab(room, systemImage: "square", value: 10 + offset) }
/// }
/// ```
@resultBuilder
public enum TabContentBuilder<SelectionValue: Hashable> {
    /// The builder's intermediate result: items in builder order.
    ///
    /// ```swift
    /// let items: TabContentBuilder<Int>.Component = []
    /// ```
    public typealias Component = [TabContentItem<SelectionValue>]

    /// Accepts any tab content with this selection type.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildExpression(Tab("Home", systemImage: "house", value: 1)).count  //=> 1
    /// ```
    public static func buildExpression<Content: TabContent>(_ content: Content) -> Component
    where Content.SelectionValue == SelectionValue {
        content.tabContentItems
    }

    /// Joins the statements of a block in order.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildBlock([], []).count  //=> 0
    /// ```
    public static func buildBlock(_ components: Component...) -> Component {
        components.flatMap { $0 }
    }

    /// An `if` without `else`: nothing when the condition is false.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildOptional(nil).count  //=> 0
    /// ```
    public static func buildOptional(_ component: Component?) -> Component {
        component ?? []
    }

    /// The `if` branch of an `if`/`else` or the first `switch` cases.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildEither(first: []).count  //=> 0
    /// ```
    public static func buildEither(first component: Component) -> Component {
        component
    }

    /// The `else` branch of an `if`/`else` or the later `switch` cases.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildEither(second: []).count  //=> 0
    /// ```
    public static func buildEither(second component: Component) -> Component {
        component
    }

    /// A `for` loop: every iteration's items, in order.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildArray([[], []]).count  //=> 0
    /// ```
    public static func buildArray(_ components: [Component]) -> Component {
        components.flatMap { $0 }
    }

    /// An `if #available` block.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildLimitedAvailability([]).count  //=> 0
    /// ```
    public static func buildLimitedAvailability(_ component: Component) -> Component {
        component
    }

    /// Wraps the items so a builder can return them as one value.
    ///
    /// ```swift
    /// TabContentBuilder<Int>.buildFinalResult([]).tabContentItems.count  //=> 0
    /// ```
    public static func buildFinalResult(_ component: Component) -> AnyTabContent<SelectionValue> {
        AnyTabContent(items: component)
    }
}
