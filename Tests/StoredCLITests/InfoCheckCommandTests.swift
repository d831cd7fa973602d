import Foundation
import Testing

@Suite("info and check")
struct InfoCheckCommandTests {
    @Test("info names backend, path, format, size, key count, schema version and last change", arguments: storeNames)
    func info(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "a", "1", "--int")
        try cli.run("write", store, "b", "2", "--int")
        let text = try cli.run("info", store)
        #expect(text.status == 0)
        let backend = store.hasSuffix(".plist") ? "plist" : "sqlite"
        #expect(text.lines.first == "backend:        \(backend)")
        #expect(text.lines.contains("path:           \(cli.path(store))"))
        #expect(text.lines.contains("keys:           2"))
        #expect(text.lines.contains("schema version: 0"))
        #expect(text.lines.contains { $0.hasPrefix("last modified:  20") })

        let json = try cli.run("info", store, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: json.output) as? [String: Any])
        #expect(object["backend"] as? String == backend)
        #expect(object["path"] as? String == cli.path(store))
        #expect(object["format"] as? String == (backend == "plist" ? "xml" : "sqlite3"))
        #expect(object["keyCount"] as? Int == 2)
        #expect(object["schemaVersion"] as? Int == 0)
        #expect((object["size"] as? Int ?? 0) > 0)
    }

    @Test("check passes a sound store", arguments: storeNames)
    func checkSound(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "a", "1", "--int")
        let outcome = try cli.run("check", store)
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("is sound"))
    }

    @Test("check names the problem of a damaged store and exits 4", arguments: storeNames)
    func checkDamaged(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "a", "1", "--int")
        var bytes = try #require(cli.bytes(store))
        // Damage the plist's text in the middle, or the header of SQLite's second page (the preferences table).
        let start = store.hasSuffix(".sqlite") ? 4096 : bytes.count / 2
        let range = start..<min(start + 64, bytes.count)
        bytes.replaceSubrange(range, with: Data(repeating: 0xFF, count: range.count))
        try bytes.write(to: URL(fileURLWithPath: cli.path(store)))
        let outcome = try cli.run("check", store)
        #expect(outcome.status == 4, "\(outcome)")
        #expect(outcome.errorOutput.contains(cli.path(store)))
        #expect(cli.bytes(store) == bytes)
    }
}
