extension ResolvedSidebar: CustomStringConvertible {
    /// The sidebar as plain text, one row per line: `[x]` shown, `[ ]` hidden, the customization ID
    /// in parentheses (absent for tabs that cannot be customized), section tabs indented by two spaces.
    ///
    /// ```swift
    /// print(sidebar)
    /// //=> [x] Home (home)
    /// //=> [ ] Reports (reports)
    /// //=> Categories (categories)
    /// //=>   [x] Lights (lights)
    /// //=>   [x] Climate (climate)
    /// ```
    public var description: String {
        var lines: [String] = []
        for entry in entries {
            switch entry {
            case .tab(let tab):
                lines.append(Self.line(for: tab))
            case .section(let section):
                lines.append(section.title + Self.idSuffix(section.customizationID))
                lines.append(contentsOf: section.tabs.map { "  " + Self.line(for: $0) })
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func line(for tab: ResolvedTab<SelectionValue>) -> String {
        (tab.isVisible ? "[x] " : "[ ] ") + tab.title + idSuffix(tab.customizationID)
    }

    private static func idSuffix(_ id: String?) -> String {
        id.map { " (\($0))" } ?? ""
    }
}
