import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

/// A namespace holding both spellings of one key (`"caf\u{E9}"`, `"cafe\u{301}"`), as `psql` or
/// another program writes them. Before, which one reads showed depended on the order rows came
/// in (a write was lost about one run in six), and no ``StoreEvent/equivalentKeys(path:shown:hidden:)``
/// was reported. Now it behaves as an SQLite file does.
@Suite(
    "PostgreSQL keys equal only up to Unicode normalisation",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresEquivalentKeysTests {
    static let composed = EquivalentKeysTests.composed
    static let decomposed = EquivalentKeysTests.decomposed

    @Test func readsShowTheFirstSpellingAWriteIsWhatEveryStoreReadsAndARemovalRemovesBoth() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("spellings")
        let open = { try PreferenceStore(.postgres(url: url, namespace: namespace), durability: .immediate) }
        _ = try open()
        // convert_from: the bytes of each spelling exactly, whatever psql does with its text.
        try ExternalCommand.psql(
            url,
            "INSERT INTO storedkit.preferences (namespace, key, type, string_value) VALUES "
                + "('\(namespace)', convert_from('\\x636166C3A9', 'UTF8'), 'string', 'composed'), "
                + "('\(namespace)', convert_from('\\x63616665CC81', 'UTF8'), 'string', 'decomposed')")
        for _ in 0..<6 {
            let store = try open()
            #expect(store.value(forKey: Self.composed, as: String.self) == "decomposed")
            let events = store.recentEvents.filter { if case .equivalentKeys = $0 { true } else { false } }
            #expect(events.count == 1)
        }
        for (value, spelling) in [(5, Self.composed), (6, Self.decomposed), (7, Self.composed)] {
            let store = try open()
            store.set(value, forKey: spelling)
            try store.flush()
            for _ in 0..<3 {
                #expect(try open().value(forKey: Self.composed, as: Int.self) == value, "wrote \(value)")
            }
        }
        let store = try open()
        store.removeValue(forKey: Self.composed)
        try store.flush()
        let reopened = try open()
        #expect(reopened.keys.isEmpty, "a hidden spelling showed up: \(reopened.keys)")
    }
}
