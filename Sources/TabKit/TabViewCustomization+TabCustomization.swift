extension TabViewCustomization {
    /// What the user changed about one tab; reached through `customization[tab: id]`.
    ///
    /// Encoded as `{"visibility": "hidden"}`; a tab at `.automatic` is not stored at all.
    ///
    /// ```swift
    /// var customization = TabViewCustomization()
    /// customization[tab: "reports"].sidebarVisibility = .hidden
    /// customization[tab: "reports"]  //=> TabCustomization(sidebarVisibility: .hidden)
    /// ```
    public struct TabCustomization: Hashable, Sendable, Codable {
        // Kept as the raw string so a visibility written by a newer version survives a round trip
        // through this one instead of turning into `.automatic`.
        var storedVisibility: String?

        /// Creates a customization with the given sidebar visibility.
        ///
        /// ```swift
        /// TabViewCustomization.TabCustomization(sidebarVisibility: .hidden).sidebarVisibility  //=> .hidden
        /// ```
        public init(sidebarVisibility: Visibility = .automatic) {
            self.sidebarVisibility = sidebarVisibility
        }

        /// The tab's visibility in the sidebar; `.automatic` means the tab's default.
        ///
        /// ```swift
        /// var customization = TabViewCustomization()
        /// customization[tab: "alerts"].sidebarVisibility = .visible
        /// customization[tab: "alerts"].sidebarVisibility  //=> .visible
        /// ```
        public var sidebarVisibility: Visibility {
            get { storedVisibility.flatMap(Visibility.init(rawValue:)) ?? .automatic }
            set { storedVisibility = newValue == .automatic ? nil : newValue.rawValue }
        }

        var isDefault: Bool { storedVisibility == nil }

        enum CodingKeys: String, CodingKey {
            case visibility
        }

        /// Reads `{"visibility": "hidden"}`; a missing or unknown visibility reads as `.automatic`.
        ///
        /// ```swift
        /// try JSONDecoder().decode(TabViewCustomization.TabCustomization.self, from: Data("{}".utf8))
        /// //=> TabCustomization(sidebarVisibility: .automatic)
        /// ```
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            storedVisibility = try container.decodeIfPresent(String.self, forKey: .visibility)
        }

        /// Writes `{"visibility": "hidden"}`, or `{}` at `.automatic`.
        ///
        /// ```swift
        /// String(decoding: try JSONEncoder().encode(TabViewCustomization.TabCustomization(sidebarVisibility: .hidden)), as: UTF8.self)
        /// //=> {"visibility":"hidden"}
        /// ```
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(storedVisibility, forKey: .visibility)
        }
    }
}
