extension Dictionary where Key == String {
    /// The key as this dictionary holds it: Swift compares strings canonically, so `"caf\u{E9}"`
    /// finds an entry stored under `"cafe\u{301}"`, whose bytes are what a file holds. `key` itself
    /// when there is no such entry.
    ///
    /// ```swift
    /// ["cafe\u{301}": 1].shownKey(for: "caf\u{E9}").unicodeScalars.count  //=> 5
    /// ```
    package func shownKey(for key: String) -> String {
        guard let index = index(forKey: key) else { return key }
        return self[index].key
    }
}

extension String {
    /// The string with every non-ASCII scalar spelled out, so two keys that differ only in their
    /// Unicode form can be told apart in a message: `"cafe\u{301}"`.
    var scalarSpelling: String {
        var spelled = "\""
        for scalar in unicodeScalars {
            if scalar.isASCII, scalar.value >= 0x20, scalar != "\"", scalar != "\\" {
                spelled.unicodeScalars.append(scalar)
            } else {
                spelled += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return spelled + "\""
    }
}
