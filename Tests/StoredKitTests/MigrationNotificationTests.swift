import Foundation
import Testing

@testable import StoredKit

@Suite("Notifications from migrations")
struct MigrationNotificationTests {
    @Test(arguments: BackendKind.allCases)
    func anotherOpenMigratingTheDataIsReportedAsMigration(kind: BackendKind) async throws {
        let fixture = try MigrationFixture(kind)
        try fixture.seed(["tabs": .string("home")])
        let observed = try fixture.open()
        let seen = Recorder<Change>()
        let token = observed.observe("sidebar") { seen.append($0) }

        // Another process (here: another store on the same data) opens with a migration.
        let migrating = try fixture.open([
            Migration(version: 1, "rename tabs") { m in try m.renameKey("tabs", to: "sidebar") }
        ])
        #expect(migrating.schemaVersion == 1)
        #expect(await seen.wait(forCount: 1))
        #expect(seen.values.first == Change(key: "sidebar", oldValue: nil, newValue: .string("home"), origin: .migration))
        #expect(await waitUntil { observed.schemaVersion == 1 })

        // An ordinary write afterwards is external again.
        migrating.set("search", forKey: "sidebar")
        #expect(await seen.wait(forCount: 2))
        #expect(seen.values.last?.origin == .external)
        withExtendedLifetime(token) {}
    }
}
