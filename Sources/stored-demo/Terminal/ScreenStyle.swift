import Glibc

/// How the screen looks in this terminal: colours unless `NO_COLOR` is set, Unicode symbols only
/// in a UTF-8 locale (elsewhere ASCII, so every byte is readable).
///
/// ```swift
/// ScreenStyle(color: false, unicode: false).symbols.selection  //=> ">"
/// ```
struct ScreenStyle: Equatable {
    var color: Bool
    var unicode: Bool

    /// The style the environment asks for: `NO_COLOR` (any non-empty value) turns colours off;
    /// `LC_ALL`, then `LC_CTYPE`, then `LANG` tell whether the locale is UTF-8.
    static func fromEnvironment() -> ScreenStyle {
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) } }
        let noColor = environment("NO_COLOR").map { !$0.isEmpty } ?? false
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap(environment).first { !$0.isEmpty } ?? ""
        let normalized = locale.lowercased().filter { $0 != "-" }
        return ScreenStyle(color: !noColor, unicode: normalized.contains("utf8"))
    }

    /// The glyphs the renderer uses.
    var symbols: Symbols { unicode ? .unicode : .ascii }

    /// The select-graphic-rendition sequence for an attribute. Without colour, only bold and
    /// reverse video remain (they are not colours), so the selected row still stands out.
    func escape(for attribute: Span.Attribute) -> String {
        let codes: String =
            switch (attribute, color) {
            case (.plain, _): "0"
            case (.title, true): "0;1;36"
            case (.title, false), (.heading, false), (.key, false): "0;1"
            case (.heading, true): "0;1;33"
            case (.selected, true): "0;7;1"
            case (.selected, false): "0;7"
            case (.dimmed, true): "0;2"
            case (.dimmed, false), (.notice, false), (.warning, false): "0"
            case (.notice, true): "0;32"
            case (.warning, true): "0;1;31"
            case (.key, true): "0;1;36"
            }
        return "\u{1B}[\(codes)m"
    }

    /// Glyphs in a UTF-8 locale and their ASCII stand-ins.
    struct Symbols: Equatable {
        var selection: String
        var opened: String
        var locked: String
        /// Marks what an administrator's forced file locks (``locked`` marks what the app disables).
        var forced: String
        var separator: String
        var rule: String
        var up: String
        var down: String
        var enter: String
        var times: String

        static let unicode = Symbols(
            selection: "▸", opened: "●", locked: "⊘", forced: "🔒", separator: "│", rule: "─", up: "↑", down: "↓", enter: "⏎",
            times: "×")
        static let ascii = Symbols(
            selection: ">", opened: "*", locked: "(fixed)", forced: "(locked)", separator: "|", rule: "-", up: "Up", down: "Dn",
            enter: "Enter", times: "x")
    }
}
