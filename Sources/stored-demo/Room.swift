/// A room of the user's home: a tab in the Rooms section, built at run time.
///
/// Its customization ID and selection value come from its slug, so they stay the same across
/// restarts, reorders and a remove-and-add-back (unlike its index in the list).
///
/// ```swift
/// let room = Room(name: "Living Room")
/// room.slug             //=> "living-room"
/// room.customizationID  //=> "room.living-room"
/// room.selectionValue   //=> 1000 + a stable hash of "living-room"
/// ```
struct Room: Equatable, Sendable {
    /// The longest name the content pane shows whole.
    static let maximumNameLength = 30

    let name: String

    /// Lowercase ASCII letters and digits, other runs of characters as one `-`; non-ASCII letters
    /// are kept as their code point (`u65e5`) so every name has a slug.
    var slug: String {
        var slug = ""
        for scalar in name.unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                slug += String(scalar).lowercased()
            } else if !scalar.isASCII, scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                slug += "u" + String(scalar.value, radix: 16)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        return slug.hasSuffix("-") ? String(slug.dropLast()) : slug
    }

    /// The key of this room's tab in the sidebar customization.
    var customizationID: String { "room." + slug }

    /// The tab's selection value: 1000 plus a 64-bit FNV-1a hash of the slug, reduced. Swift's
    /// `hashValue` is seeded per process, so it would change at every start.
    var selectionValue: Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in slug.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return 1000 + Int(hash % 1_000_000_000)
    }

    /// What the room's tab shows.
    var content: String {
        "\(name): lights off, 20.5 C, no motion in the last hour."
    }

    /// Why `name` cannot name a new room among `rooms`, or `nil` when it can.
    static func problem(naming name: String, among rooms: [Room]) -> String? {
        let room = Room(name: name)
        if name.isEmpty { return "A room needs a name." }
        if name.count > maximumNameLength { return "'\(name)' is too long: at most \(maximumNameLength) characters." }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "A room name cannot contain control characters."
        }
        if room.slug.isEmpty { return "'\(name)' needs at least one letter or digit." }
        if let existing = rooms.first(where: { $0.slug == room.slug }) { return "'\(existing.name)' is already a room." }
        if let existing = rooms.first(where: { $0.selectionValue == room.selectionValue }) {
            return "'\(name)' would share its tab value with '\(existing.name)'; choose another name."
        }
        return nil
    }
}
