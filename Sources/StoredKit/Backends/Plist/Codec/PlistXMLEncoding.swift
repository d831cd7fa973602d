/// The character encoding an XML property list declares, among those StoredKit reads.
///
/// Foundation and Python's `plistlib` honour the `encoding` of the XML declaration, so a file
/// another program wrote in Latin-1 must read as Latin-1 here too, and a label nobody knows must be
/// refused rather than guessed.
enum PlistXMLEncoding {
    /// UTF-8, also what a file without a declaration (or with a byte-order mark) is.
    case utf8
    /// ISO-8859-1: each byte is the Unicode scalar of the same number.
    case latin1

    /// The encoding `bytes` declare. US-ASCII is read as UTF-8 after checking every byte is ASCII.
    static func declared(in bytes: UnsafeBufferPointer<UInt8>, path: String) throws(StoreError) -> PlistXMLEncoding {
        guard let label = label(in: bytes) else { return .utf8 }
        switch label.lowercased() {
        case "utf-8", "utf8":
            return .utf8
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin-1", "latin1", "l1":
            return .latin1
        case "us-ascii", "ascii":
            if let offset = bytes.firstIndex(where: { $0 >= 0x80 }) {
                throw StoreError.corruptFile(
                    path: path, reason: "byte \(offset) is not ASCII, but the file declares encoding '\(label)'",
                    quarantinedAt: nil)
            }
            return .utf8
        case let known where otherKnownLabels.contains(known) || known.hasPrefix("iso-8859-") || known.hasPrefix("windows-"):
            throw StoreError.unsupportedFile(
                path: path,
                reason: "the character encoding '\(label)' (StoredKit reads UTF-8, ISO-8859-1 and US-ASCII property lists)",
                advice: "Convert it to UTF-8 (for example with iconv) and correct its XML declaration.")
        default:
            // No reader knows it (Foundation and plistlib refuse it too): most likely damage.
            throw StoreError.corruptFile(
                path: path, reason: "the XML declaration names an unknown character encoding '\(label)'",
                quarantinedAt: nil)
        }
    }

    /// Real encodings that other readers decode and StoredKit does not: a file declaring one is
    /// valid, so it is refused as intact rather than treated as damaged.
    private static let otherKnownLabels: Set<String> = [
        "utf-16", "utf-16le", "utf-16be", "utf-32", "utf-32le", "utf-32be", "ucs-2", "shift_jis", "euc-jp",
        "iso-2022-jp", "euc-kr", "gb2312", "gbk", "gb18030", "big5", "koi8-r", "koi8-u", "macintosh", "x-mac-roman",
        "cp1252", "cp1251", "cp850", "cp437",
    ]

    /// The `encoding="…"` label of a leading `<?xml …?>` declaration, if there is one.
    private static func label(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard bytes[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        // A declaration that does not end with "?>" is damage the reader reports; no label is taken from it.
        let declaration = bytes[start...].prefix(while: { $0 != UInt8(ascii: ">") })
        guard declaration.last == UInt8(ascii: "?"), declaration.endIndex < bytes.endIndex else { return nil }
        let text = String(decoding: declaration, as: UTF8.self)
        guard let name = text.range(of: "encoding") else { return nil }
        var rest = text[name.upperBound...].drop(while: \.isWhitespace)
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop(while: \.isWhitespace)
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let label = rest.dropFirst().prefix(while: { $0 != quote })
        guard label.endIndex < rest.endIndex else { return nil }
        return String(label)
    }
}
