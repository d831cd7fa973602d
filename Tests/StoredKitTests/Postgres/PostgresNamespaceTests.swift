import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// Namespaces are the unit of isolation, whatever their text: they and the keys are bound
/// parameters, never SQL text.
@Suite(
    "PostgreSQL namespaces are isolated",
    .enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
struct PostgresNamespaceTests {
    static let hostileTexts = [
        "'; DROP TABLE storedkit.preferences; --",
        "user:42",
        "\" OR 1=1 --",
        "$1 %s \\x00 \\",
        "ümlaut 🎉 名前",
        "with  spaces and\nnewline",
        "",
    ]

    @Test func eachNamespaceSeesOnlyItsOwnKeys() throws {
        let url = try PostgresTestServer.requireURL()
        let suffix = UUID().uuidString
        let namespaces = Self.hostileTexts.map { $0 + suffix }
        for namespace in namespaces {
            let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
            for key in Self.hostileTexts {
                store.set(namespace, forKey: key)
            }
            store.set(true, forKey: "only in " + namespace)
            try store.flush()
        }
        for namespace in namespaces {
            let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
            #expect(store.keys == (Self.hostileTexts + ["only in " + namespace]).sorted())
            for key in Self.hostileTexts {
                #expect(store.value(forKey: key, as: String.self) == namespace)
            }
        }
    }

    @Test func aStringHoldingNulRoundTripsExactly() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = PostgresTestServer.freshNamespace("nul")
        let text = "before\u{0}after"
        let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
        store.set(text, forKey: "nul")
        try store.flush()
        let reopened = try PreferenceStore(.postgres(url: url, namespace: namespace))
        #expect(reopened.value(forKey: "nul", as: String.self) == text)
    }

    @Test func aKeyHoldingNulIsRefusedByName() throws {
        let backend = PostgresBackend(
            url: try PostgresTestServer.requireURL(), namespace: PostgresTestServer.freshNamespace("nul-key"))
        _ = try backend.load()
        #expect {
            _ = try backend.commit(BackendChanges(values: ["bad\u{0}key": .int(1), "good": .int(2)]))
        } throws: { error in
            // refused: the engine drops this write alone and commits the rest
            guard case StoreError.refused(let key, let reason)? = error as? StoreError else { return false }
            return key == "bad\u{0}key" && reason.contains("U+0000")
        }
        #expect(try backend.load().values.isEmpty, "nothing of the refused batch was written")
    }

    @Test func aNamespaceHoldingNulIsRefused() throws {
        let backend = PostgresBackend(url: try PostgresTestServer.requireURL(), namespace: "bad\u{0}namespace")
        #expect {
            _ = try backend.load()
        } throws: { error in
            guard case StoreError.unrepresentable(let key, _)? = error as? StoreError else { return false }
            return key == "namespace"
        }
    }

    @Test func tenThousandNamespacesShareOneListenerAndAtMostFourCommandConnections() throws {
        // Its own application_name gives this test its own pool, and its connections a name to count.
        let name = "count_\(UUID().uuidString.prefix(8))"
        let url = try PostgresTestServer.requireURL() + "?application_name=\(name)"
        var stores: [PreferenceStore] = []
        var tokens: [ObservationToken] = []
        for index in 0..<10_000 {
            let store = try PreferenceStore(.postgres(url: url, namespace: "\(name)-\(index)"))
            tokens.append(store.observe("k") { _ in })
            stores.append(store)
        }
        let counter = try PreferenceStore(.postgres(url: try PostgresTestServer.requireURL(), namespace: name))
        _ = counter
        let counted = try PostgresConnection(address: PostgresAddress(try PostgresTestServer.requireURL()))
            .query("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", [name])
        let connections = counted.first?.first.flatMap { $0.flatMap { Int($0) } } ?? -1
        #expect(connections >= 2 && connections <= PostgresServer.maximumConnections + 1)
        print("PostgreSQL: \(stores.count) namespaces open in one process use \(connections) connections (pg_stat_activity)")
        withExtendedLifetime((stores, tokens)) {}
    }
}
