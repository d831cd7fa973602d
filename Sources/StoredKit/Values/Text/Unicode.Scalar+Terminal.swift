extension Unicode.Scalar {
    /// Whether a terminal must not get this scalar as it is, in text the tools did not write
    /// themselves (a garbled file quoted in a diagnostic, a key): a control character (Cc), which
    /// can move the cursor or start an escape sequence, or a bidirectional formatting character
    /// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorders the text shown
    /// around it, so a key or a file name can pose as another. `stored` spells such a scalar out
    /// (`\u202e`), `stored-demo` shows `?`; both ask this one question.
    ///
    /// ```swift
    /// Unicode.Scalar(0x202E)!.isUnsafeOnTerminal  //=> true
    /// Unicode.Scalar(0x200D)!.isUnsafeOnTerminal  //=> false (the joiner of emoji sequences)
    /// ```
    package var isUnsafeOnTerminal: Bool {
        switch value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: properties.generalCategory == .control
        }
    }
}
