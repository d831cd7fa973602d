/// The coding key of an array element. It is a type of its own so that error paths can print
/// it as `[2]`, unlike the integer keys of an `[Int: V]` dictionary, which print as `.2`.
struct StoredIndexKey: CodingKey {
    let index: Int

    init(index: Int) {
        self.index = index
    }

    init?(stringValue: String) {
        nil
    }

    init?(intValue: Int) {
        self.index = intValue
    }

    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

/// The key `superEncoder()` and `superDecoder()` use, as Foundation's coders do.
struct StoredSuperKey: CodingKey {
    init() {}

    init?(stringValue: String) {
        guard stringValue == "super" else { return nil }
    }

    init?(intValue: Int) {
        nil
    }

    var stringValue: String { "super" }
    var intValue: Int? { nil }
}

/// Renders coding paths the way error messages show them.
enum StoredCodingPath {
    /// `a.b[2].c`; the root is the empty string so a caller can prefix its own key name.
    static func string(_ path: [any CodingKey]) -> String {
        var result = ""
        for key in path {
            if let index = key as? StoredIndexKey {
                result += "[\(index.index)]"
            } else {
                if !result.isEmpty { result += "." }
                result += key.stringValue
            }
        }
        return result
    }

    /// ``string(_:)`` shortened in the middle when it is long (a value nested too deep has a path
    /// of hundreds of keys): `next.next.next…(129 keys)…next`.
    static func abbreviated(_ path: [any CodingKey]) -> String {
        guard path.count > 6 else { return string(path) }
        return string(Array(path.prefix(3))) + "…(\(path.count) keys)…" + string(Array(path.suffix(1)))
    }

    /// `parentPath` followed by `key`, built only when an error needs it.
    static func string(_ parentPath: [any CodingKey], appending key: (any CodingKey)?) -> String {
        guard let key else { return string(parentPath) }
        return string(parentPath + [key])
    }
}

/// The key of a `[String: V]` entry decoded on the fast path; small enough (one `String`) to sit
/// in an existential without a heap box, unlike the standard library's dictionary key.
struct StoredStringKey: CodingKey {
    let stringValue: String

    init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }

    var intValue: Int? { nil }
}
