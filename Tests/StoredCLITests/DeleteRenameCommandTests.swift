import Foundation
import Testing

@Suite("delete and rename")
struct DeleteRenameCommandTests {
    @Test("delete removes the named keys, --all clears the store", arguments: storeNames)
    func delete(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        for key in ["a", "b", "c"] { try cli.run("write", store, key, "1", "--int") }
        #expect(try cli.run("delete", store, "a", "b").status == 0)
        #expect(try cli.run("keys", store).lines == ["c"])
        #expect(try cli.run("delete", store, "--all").status == 0)
        #expect(try cli.run("keys", store).stdout.isEmpty)
    }

    @Test("delete with one missing key removes nothing", arguments: storeNames)
    func deleteIsAllOrNothing(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "a", "1", "--int")
        let before = cli.bytes(store)
        let outcome = try cli.run("delete", store, "a", "missing")
        #expect(outcome.status == 1)
        #expect(outcome.errorOutput.contains("'missing'"))
        #expect(cli.bytes(store) == before)
        #expect(try cli.run("keys", store).lines == ["a"])
    }

    @Test("rename moves the value; an existing target needs --overwrite", arguments: storeNames)
    func rename(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "tabs", #"["home"]"#, "--json")
        try cli.run("write", store, "sidebar", "old")
        #expect(try cli.run("rename", store, "tabs", "order").status == 0)
        #expect(try cli.run("keys", store).lines == ["order", "sidebar"])
        #expect(try cli.run("read", store, "order").stdout == "- \"home\"\n")

        let before = cli.bytes(store)
        let refused = try cli.run("rename", store, "order", "sidebar")
        #expect(refused.status == 3)
        #expect(refused.errorOutput.contains("'sidebar' already exists"))
        #expect(cli.bytes(store) == before)

        #expect(try cli.run("rename", store, "order", "sidebar", "--overwrite").status == 0)
        #expect(try cli.run("read", store).lines == ["sidebar:", "  - \"home\""])
    }

    @Test("delete and rename of a missing key fail with status 1 and do not create a store", arguments: storeNames)
    func missingStore(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("delete", store, "a").status == 1)
        #expect(try cli.run("rename", store, "a", "b").status == 1)
        #expect(try cli.run("delete", store, "--all").status == 0)
        #expect(cli.bytes(store) == nil)
    }
}
