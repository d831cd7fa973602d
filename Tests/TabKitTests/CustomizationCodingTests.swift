import Foundation
import Testing

@testable import TabKit

private func sampleCustomization() -> TabViewCustomization {
    var customization = TabViewCustomization()
    customization[tab: "reports"].sidebarVisibility = .hidden
    customization[section: "categories"].tabOrder = ["lights", "climate"]
    customization.sectionOrder = ["library", "categories"]
    return customization
}

private func sortedJSON(_ customization: TabViewCustomization) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(customization), as: UTF8.self)
}

private func decode(_ json: String) throws -> TabViewCustomization {
    try JSONDecoder().decode(TabViewCustomization.self, from: Data(json.utf8))
}

@Test func jsonMatchesTheDocumentedShapeExactly() throws {
    let expected =
        #"{"formatVersion":1,"sectionOrder":["library","categories"],"#
        + #""sections":{"categories":{"tabOrder":["lights","climate"]}},"tabs":{"reports":{"visibility":"hidden"}}}"#
    #expect(try sortedJSON(sampleCustomization()) == expected)
}

@Test func emptyCustomizationEncodesWithoutSectionOrder() throws {
    #expect(try sortedJSON(TabViewCustomization()) == #"{"formatVersion":1,"sections":{},"tabs":{}}"#)
}

@Test func visibilityEncodesAsItsName() throws {
    let names = try Visibility.allCases.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    #expect(names == [#""automatic""#, #""visible""#, #""hidden""#])
}

@Test func jsonRoundTripIsEqual() throws {
    let original = sampleCustomization()
    let decoded = try JSONDecoder().decode(TabViewCustomization.self, from: try JSONEncoder().encode(original))
    #expect(decoded == original)
}

@Test func decodingToleratesMissingFields() throws {
    #expect(try decode("{}") == TabViewCustomization())
    let onlyTabs = try decode(#"{"tabs":{"reports":{"visibility":"hidden"},"home":{}}}"#)
    #expect(onlyTabs[tab: "reports"].sidebarVisibility == .hidden)
    #expect(onlyTabs.customizedTabIDs == ["reports"])
    #expect(onlyTabs.sectionOrder == nil)
    let emptySection = try decode(#"{"sections":{"categories":{}}}"#)
    #expect(emptySection == TabViewCustomization())
}

@Test func decodingIgnoresUnknownFields() throws {
    let json = #"""
        {"formatVersion":2,"pinned":["home"],
         "tabs":{"reports":{"visibility":"hidden","badge":3}},
         "sections":{"categories":{"tabOrder":["lights","climate"],"collapsed":true}},
         "sectionOrder":["library","categories"]}
        """#
    #expect(try decode(json) == sampleCustomization())
}

@Test func unknownVisibilityFromANewerVersionSurvivesARoundTrip() throws {
    let decoded = try decode(#"{"tabs":{"home":{"visibility":"pinned"}}}"#)
    #expect(decoded[tab: "home"].sidebarVisibility == .automatic)
    #expect(try sortedJSON(decoded).contains(#""home":{"visibility":"pinned"}"#))
}

@Test func idsTheAppNoLongerHasAreKeptThroughEncoding() throws {
    var customization = sampleCustomization()
    customization[tab: "retired"].sidebarVisibility = .hidden
    customization[section: "old-section"].tabOrder = ["a", "b"]
    let decoded = try JSONDecoder().decode(TabViewCustomization.self, from: try JSONEncoder().encode(customization))
    #expect(decoded[tab: "retired"].sidebarVisibility == .hidden)
    #expect(decoded[section: "old-section"].tabOrder == ["a", "b"])
}

@Test func plistFileHoldsReadableNestedDictionaries() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("sidebar.plist")

    let encoder = PropertyListEncoder()
    encoder.outputFormat = .xml
    try encoder.encode(sampleCustomization()).write(to: file)
    let xml = try String(contentsOf: file, encoding: .utf8)
    #expect(xml.contains("<key>visibility</key>"))
    #expect(xml.contains("<string>hidden</string>"))
    #expect(xml.contains("<key>tabOrder</key>"))

    let decoded = try PropertyListDecoder().decode(TabViewCustomization.self, from: try Data(contentsOf: file))
    #expect(decoded == sampleCustomization())
}
