/// The stored form, format version 1 (JSON shown with sorted keys):
///
/// ```json
/// {
///   "formatVersion": 1,
///   "sectionOrder": ["library", "categories"],
///   "sections": {"categories": {"tabOrder": ["lights", "climate"]}},
///   "tabs": {"reports": {"visibility": "hidden"}}
/// }
/// ```
///
/// `tabs` and `sections` are always written (possibly `{}`), `sectionOrder` only when the user
/// reordered sections. Reading tolerates any missing field and ignores unknown ones, so a value
/// written by a newer version still loads; entries that carry nothing are dropped.
extension TabViewCustomization: Codable {
    /// The `formatVersion` this version writes.
    ///
    /// ```swift
    /// TabViewCustomization.formatVersion  //=> 1
    /// ```
    public static let formatVersion = 1

    enum CodingKeys: String, CodingKey {
        case tabs
        case sections
        case sectionOrder
        case formatVersion
    }

    /// Reads the stored form; every field is optional.
    ///
    /// ```swift
    /// try JSONDecoder().decode(TabViewCustomization.self, from: Data("{}".utf8)) == TabViewCustomization()  //=> true
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let decodedTabs = try container.decodeIfPresent([String: TabCustomization].self, forKey: .tabs) ?? [:]
        let decodedSections = try container.decodeIfPresent([String: SectionCustomization].self, forKey: .sections) ?? [:]
        tabs = decodedTabs.filter { !$0.value.isDefault }
        sections = decodedSections.filter { !$0.value.isDefault }
        sectionOrder = try container.decodeIfPresent([String].self, forKey: .sectionOrder)
    }

    /// Writes the stored form described on this extension.
    ///
    /// ```swift
    /// let encoder = JSONEncoder()
    /// encoder.outputFormatting = .sortedKeys
    /// String(decoding: try encoder.encode(TabViewCustomization()), as: UTF8.self)
    /// //=> {"formatVersion":1,"sections":{},"tabs":{}}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tabs, forKey: .tabs)
        try container.encode(sections, forKey: .sections)
        try container.encodeIfPresent(sectionOrder, forKey: .sectionOrder)
        try container.encode(Self.formatVersion, forKey: .formatVersion)
    }
}
