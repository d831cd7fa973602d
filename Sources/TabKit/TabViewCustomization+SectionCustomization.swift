extension TabViewCustomization {
    /// What the user changed about one section; reached through `customization[section: id]`.
    ///
    /// Encoded as `{"tabOrder": ["lights", "climate"]}`; a section in builder order is not stored.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[section: "categories"].tabOrder = ["lights", "climate"]
    /// customization[section: "categories"].tabOrder  //=> ["lights", "climate"]
    /// ```
    public struct SectionCustomization: Hashable, Sendable, Codable {
        /// The user's order of the section's tabs by customization ID; `nil` means the builder's order.
        ///
        /// Tabs of the app that are not listed (added in a later version, without an ID, or with
        /// customization disabled) each go right after the tab that precedes them in the builder.
        ///
        /// ```swift
        /// var section = TabViewCustomization.SectionCustomization()
        /// section.tabOrder = ["lights", "climate"]
        /// section.tabOrder  //=> ["lights", "climate"]
        /// ```
        public var tabOrder: [String]?

        /// Creates a section customization with the given order.
        ///
        /// ```swift
        /// TabViewCustomization.SectionCustomization(tabOrder: ["b", "a"]).tabOrder  //=> ["b", "a"]
        /// ```
        public init(tabOrder: [String]? = nil) {
            self.tabOrder = tabOrder
        }

        /// Puts the section's tabs back in builder order.
        ///
        /// ```swift
        /// var customization = TabViewCustomization()
        /// customization[section: "categories"].tabOrder = ["lights", "climate"]
        /// customization[section: "categories"].resetTabOrder()
        /// customization[section: "categories"].tabOrder  //=> nil
        /// ```
        public mutating func resetTabOrder() {
            tabOrder = nil
        }

        var isDefault: Bool { tabOrder == nil }

        enum CodingKeys: String, CodingKey {
            case tabOrder
        }

        /// Reads `{"tabOrder": [...]}`; a missing order reads as `nil`, extra fields are ignored.
        ///
        /// ```swift
        /// try JSONDecoder().decode(TabViewCustomization.SectionCustomization.self, from: Data("{}".utf8)).tabOrder
        /// //=> nil
        /// ```
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            tabOrder = try container.decodeIfPresent([String].self, forKey: .tabOrder)
        }

        /// Writes `{"tabOrder": [...]}`, or `{}` when in builder order.
        ///
        /// ```swift
        /// String(decoding: try JSONEncoder().encode(TabViewCustomization.SectionCustomization(tabOrder: ["a"])), as: UTF8.self)
        /// //=> {"tabOrder":["a"]}
        /// ```
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(tabOrder, forKey: .tabOrder)
        }
    }
}
