import Foundation
import Testing

@testable import StoredKit

@Suite("Versioned migrations")
struct MigrationTests {
    @Test(arguments: BackendKind.allCases)
    func migrationRunsOnceAndRecordsTheVersion(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["tabs": .string("home")])
        let log = RunLog()
        let migrations = [
            Migration(version: 1, "rename tabs") { m in
                log.record("rename tabs")
                try m.renameKey("tabs", to: "sidebar")
            }
        ]
        let first = try fixture.open(migrations)
        #expect(first.schemaVersion == 1)
        #expect(first.value(forKey: "sidebar", as: String.self) == "home")
        let second = try fixture.open(migrations)
        #expect(second.schemaVersion == 1)
        #expect(log.count("rename tabs") == 1)
        let stored = try fixture.stored()
        #expect(stored.schemaVersion == 1)
        #expect(stored.values == ["sidebar": .string("home")])
    }

    @Test(arguments: BackendKind.allCases)
    func severalMigrationsFoldInOrderAndCommitTogether(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["count": .int(1), "legacy.a": .bool(true)])
        let log = RunLog()
        let migrations = [
            Migration(version: 1, "times ten") { m in
                log.record("1")
                m.set((m.value(forKey: "count", as: Int.self) ?? 0) * 10, forKey: "count")
            },
            Migration(version: 2, "plus two") { m in
                log.record("2")
                m.set((m.value(forKey: "count", as: Int.self) ?? 0) + 2, forKey: "count")
            },
            Migration(version: 5, "drop legacy") { m in
                log.record("5")
                m.removeAll { key, _ in key.hasPrefix("legacy.") }
            },
        ]
        let backend = RecordingBackend(fixture.backend())
        let store = try PreferenceStore(backend, migrations: migrations)
        #expect(log.names == ["1", "2", "5"])
        #expect(store.value(forKey: "count", as: Int.self) == 12)  // (1 * 10) + 2: each saw the one before
        // One exclusive commit with every result and the new version; no other commit.
        #expect(backend.commits.isEmpty)
        let commit = try #require(backend.exclusiveCommits.first)
        #expect(backend.exclusiveCommits.count == 1)
        #expect(commit.schemaVersion == 5)
        let expected: [String: StoredValue?] = ["count": .int(12), "legacy.a": .none]
        #expect(commit.values == expected)
        #expect(try fixture.stored().values == ["count": .int(12)])
    }

    @Test(arguments: BackendKind.allCases)
    func onlyMigrationsAboveTheStoredVersionRun(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["a": .int(1)], schemaVersion: 1)
        let log = RunLog()
        let migrations = [1, 2, 3].map { version in
            Migration(version: version, "step \(version)") { m in
                log.record("\(version)")
                m.set(version, forKey: "last")
            }
        }
        let store = try fixture.open(migrations)
        #expect(log.names == ["2", "3"])
        #expect(store.schemaVersion == 3)
        #expect(store.value(forKey: "last", as: Int.self) == 3)
    }

    @Test(arguments: BackendKind.allCases)
    func throwingMigrationChangesNothingAndRunsAgainNextTime(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["a": .int(1), "old": .string("x")], schemaVersion: 1)
        let bytesBefore = fixture.fileBytes()
        let log = RunLog()
        let first = Migration(version: 1, "first") { _ in log.record("1") }
        let second = Migration(version: 2, "add b") { m in
            log.record("2")
            m.set(2, forKey: "b")
            m.removeValue(forKey: "old")
        }
        let failing = Migration(version: 3, "needs network") { m in
            log.record("3 failed")
            m.set(3, forKey: "c")
            throw MigrationRefused()
        }
        var thrown: (any Error)?
        do { _ = try fixture.open([first, second, failing]) } catch { thrown = error }
        let failure = try #require(thrown.flatMap(migrationFailure))
        #expect(failure.version == 3)
        #expect(failure.name == "needs network")
        #expect(failure.underlying is MigrationRefused)
        #expect(fixture.fileBytes() == bytesBefore)  // byte for byte on plist
        let stored = try fixture.stored()
        #expect(stored.schemaVersion == 1)
        #expect(stored.values == ["a": .int(1), "old": .string("x")])

        let fixed = Migration(version: 3, "needs network") { m in
            log.record("3")
            m.set(3, forKey: "c")
        }
        let store = try fixture.open([first, second, fixed])
        #expect(log.names == ["2", "3 failed", "2", "3"])  // 2 ran again: its first result was never committed
        #expect(store.schemaVersion == 3)
        #expect(try fixture.stored().values == ["a": .int(1), "b": .int(2), "c": .int(3)])
    }

    @Test(arguments: BackendKind.allCases)
    func cleanupRunsOnlyAfterTheCommit(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        let versionsSeenByCleanup = RunLog()
        let cleaning = Migration(version: 1, "import and clean") { m in
            m.set(1, forKey: "imported")
            m.afterCommit { versionsSeenByCleanup.record("\(try fixture.stored().schemaVersion)") }
        }
        let failing = Migration(version: 2, "fails") { _ in throw MigrationRefused() }
        #expect(throws: StoreError.self) { try fixture.open([cleaning, failing]) }
        #expect(versionsSeenByCleanup.names.isEmpty)  // nothing committed, so nothing cleaned

        _ = try fixture.open([cleaning])
        #expect(versionsSeenByCleanup.names == ["1"])  // it saw the committed version
    }

    @Test func failedCleanupIsReportedAndTheStoreStillOpens() throws {
        let fixture = try MigrationFixture(.memory)
        let store = try fixture.open([
            Migration(version: 1, "clean") { m in
                m.set(1, forKey: "a")
                m.afterCommit { throw StoreError.io(path: "/old/file.plist", operation: "remove", errno: EACCES) }
            }
        ])
        #expect(store.schemaVersion == 1)
        let events = store.recentEvents.map(\.description)
        #expect(events.contains { $0.hasPrefix("Migration 1 'clean' was committed, but removing its source failed") })
    }

    @Test(arguments: BackendKind.allCases)
    func renameMovesAndRefusesToOverwriteUnlessAsked(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["tabs": .string("new"), "sidebar": .string("existing")])
        let refused = Migration(version: 1, "rename") { m in try m.renameKey("tabs", to: "sidebar") }
        var thrown: (any Error)?
        do { _ = try fixture.open([refused]) } catch { thrown = error }
        let failure = try #require(thrown.flatMap(migrationFailure))
        guard case StoreError.keyExists(let key) = failure.underlying else {
            Issue.record("expected keyExists, got \(failure.underlying)")
            return
        }
        #expect(key == "sidebar")
        #expect(try fixture.stored().values["tabs"] == .string("new"))

        let overwriting = Migration(version: 1, "rename") { m in
            try m.renameKey("tabs", to: "sidebar", overwrite: true)
            try m.renameKey("tabs", to: "sidebar")  // a second run finds nothing to move
        }
        let store = try fixture.open([overwriting])
        #expect(store.dictionaryRepresentation() == ["sidebar": .string("new")])
    }

    @Test(arguments: BackendKind.allCases)
    func transformRewritesCodableValues(kind: BackendKind) throws {
        struct VolumeV1: Codable { var level: Double }
        struct VolumeV2: Codable, Equatable { var percent: Int }
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["volume": .dictionary(["level": .double(0.75)]), "name": .string("x")])
        let percent = Migration(version: 1, "volume as percent") { m in
            try m.transform("volume", from: VolumeV1.self, to: VolumeV2.self) { VolumeV2(percent: Int($0.level * 100)) }
            try m.transform("missing", from: VolumeV1.self, to: VolumeV2.self) { _ in VolumeV2(percent: 0) }
        }
        let store = try fixture.open([percent])
        #expect(store.value(forKey: "volume", as: VolumeV2.self) == VolumeV2(percent: 75))
        #expect(store.storedValue(forKey: "missing") == nil)

        // A value of another shape fails the migration with the key named.
        let mismatch = Migration(version: 2, "bad") { m in
            try m.transform("name", from: VolumeV1.self, to: VolumeV2.self) { _ in VolumeV2(percent: 0) }
        }
        var thrown: (any Error)?
        do { _ = try fixture.open([percent, mismatch]) } catch { thrown = error }
        let failure = try #require(thrown.flatMap(migrationFailure))
        guard case StoreError.typeMismatch(let key, _, _) = failure.underlying else {
            Issue.record("expected typeMismatch, got \(failure.underlying)")
            return
        }
        #expect(key == "name")
    }

    @Test(arguments: BackendKind.allCases)
    func invalidMigrationListsAreRejectedBeforeAnythingRuns(kind: BackendKind) throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["a": .int(1)])
        let log = RunLog()
        let step = { (version: Int) in Migration(version: version, "step \(version)") { _ in log.record("\(version)") } }
        for list in [[step(1), step(1)], [step(2), step(1)], [step(0)]] {
            #expect {
                try fixture.open(list)
            } throws: { error in
                guard case StoreError.invalidMigrations(let reason) = error else { return false }
                return reason.contains("step")
            }
        }
        #expect(log.names.isEmpty)
        #expect(try fixture.stored().schemaVersion == 0)
    }
}
