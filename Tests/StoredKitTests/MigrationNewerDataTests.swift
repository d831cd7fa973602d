import Foundation
import Testing

@testable import StoredKit

@Suite("Data written by a newer app")
struct MigrationNewerDataTests {
    static let known = [
        Migration(version: 1, "one") { m in m.set(1, forKey: "one") },
        Migration(version: 2, "two") { m in m.set(2, forKey: "two") },
    ]

    @Test(arguments: BackendKind.allCases)
    func newerDataFailsTheOpenAndIsLeftAlone(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["future": .string("shape")], schemaVersion: 5)
        let bytesBefore = fixture.fileBytes()
        #expect {
            try fixture.open(Self.known)
        } throws: { error in
            guard case StoreError.newerSchemaVersion(let found, let supported) = error else { return false }
            return found == 5 && supported == 2
        }
        #expect(fixture.fileBytes() == bytesBefore)
        let stored = try fixture.stored()
        #expect(stored.schemaVersion == 5)
        #expect(stored.values == ["future": .string("shape")])
    }

    @Test(arguments: BackendKind.allCases)
    func readOnlyStoreServesReadsAndRefusesEveryWrite(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["future": .string("shape"), "count": .int(7)], schemaVersion: 5)
        let bytesBefore = fixture.fileBytes()
        let store = try fixture.open(Self.known, whenNewer: .openReadOnly)
        #expect(store.isReadOnly)
        #expect(store.schemaVersion == 5)
        #expect(store.value(forKey: "count", as: Int.self) == 7)

        let seen = Recorder<Change>()
        let token = store.observe("count") { seen.append($0) }
        store.set(8, forKey: "count")
        store.removeValue(forKey: "future")
        #expect(store.value(forKey: "count", as: Int.self) == 7)  // memory unchanged
        #expect(store.storedValue(forKey: "future") == .string("shape"))
        #expect(seen.values.isEmpty)
        let refusals = store.recentEvents.filter { event in
            if case .commitFailed(.readOnly(let path)) = event { return path == store.backend.location }
            return false
        }
        #expect(refusals.count == 2)
        try store.flush()  // nothing pending
        #expect(throws: StoreError.self) { try store.update(StoredKey<Int>("count", default: 0)) { $0 += 1 } }
        // A transaction that only reads is fine.
        #expect(try store.transaction { tx in tx.value(forKey: "count", as: Int.self) } == 7)

        #expect(fixture.fileBytes() == bytesBefore)
        let stored = try fixture.stored()
        #expect(stored.schemaVersion == 5)
        #expect(stored.values == ["future": .string("shape"), "count": .int(7)])
        withExtendedLifetime(token) {}
    }

    @Test(arguments: BackendKind.allCases)
    func readOnlyIsOnlyForNewerData(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        let store = try fixture.open(Self.known, whenNewer: .openReadOnly)
        #expect(!store.isReadOnly)
        #expect(store.schemaVersion == 2)
        store.set(3, forKey: "three")
        #expect(try fixture.stored().values["three"] == .int(3))
    }

    @Test func storeWithoutMigrationsOpensAnyVersion() throws {
        // Inspection tools open with no migrations: they manage no schema and must see every file.
        let fixture = try MigrationFixture(.plist)
        try fixture.seed(["a": .int(1)], schemaVersion: 9)
        let store = try fixture.open()
        #expect(!store.isReadOnly)
        #expect(store.schemaVersion == 9)
    }
}
