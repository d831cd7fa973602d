import Foundation
import Testing

@testable import StoredKit

/// One rule for keys on every backend, checked at `set`: at most ``PreferenceStore/maximumKeyLength``
/// bytes, no U+0000, not `StoredKit.metadata`. Before, SQLite and memory stores took all three,
/// a plist store took the long key, and a PostgreSQL store took the long key and then failed every
/// later flush with SQLSTATE 54000 naming no key, so no other write reached the server.
@Suite("Key rules on every backend")
struct KeyRulesTests {
    /// Letters from a fixed pseudo-random sequence: PostgreSQL compresses a repetitive key to fit its index.
    static let longKey: String = {
        var state: UInt64 = 42
        return String(
            (0..<10_000).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Character(UnicodeScalar(UInt8(97 + (state >> 33) % 26)))
            })
    }()
    static let refusedKeys = [longKey, "StoredKit.metadata", "with\u{0}nul"]
    static var backends: [String] { ["memory", "sqlite", "plist"] + (PostgresTestServer.isEnabled ? ["postgres"] : []) }

    /// A fresh store of `kind` and a way to open it again (nil for memory).
    static func open(_ kind: String, in directory: TemporaryDirectory) throws -> (PreferenceStore, () throws -> PreferenceStore) {
        switch kind {
        case "sqlite":
            let open = { try PreferenceStore(.sqlite(at: directory.database)) }
            return (try open(), open)
        case "plist":
            let open = { try PreferenceStore(.plist(at: directory.file("prefs.plist"))) }
            return (try open(), open)
        case "postgres":
            let url = try PostgresTestServer.requireURL()
            let namespace = PostgresTestServer.freshNamespace("keys")
            let open = { try PreferenceStore(.postgres(url: url, namespace: namespace)) }
            return (try open(), open)
        default:
            let backend = MemoryBackend()
            let open = { try PreferenceStore(MemoryBackend(sharing: backend)) }
            return (try PreferenceStore(backend), open)
        }
    }

    @Test(arguments: backends)
    func aKeyNoBackendCanHoldIsRefusedAtSetAndBlocksNothing(_ kind: String) throws {
        let directory = try TemporaryDirectory()
        let (store, reopen) = try Self.open(kind, in: directory)
        for key in Self.refusedKeys { store.set(1, forKey: key) }
        store.set(2, forKey: "other")
        try store.flush()
        for key in Self.refusedKeys {
            #expect(store.value(forKey: key, as: Int.self) == nil, "\(kind) kept \(key.prefix(20))")
            let event = store.recentEvents.first { if case .encodingFailed(key, _) = $0 { true } else { false } }
            #expect(event != nil, "\(kind): no refusal reported for \(key.prefix(20))")
        }
        #expect("\(store.recentEvents)".contains("at most 1024 bytes"))
        #expect("\(store.recentEvents)".contains("reserved"))
        let reopened = try reopen()
        #expect(reopened.value(forKey: "other", as: Int.self) == 2)
        #expect(reopened.keys == ["other"])
    }

    @Test(arguments: backends)
    func aTransactionWithSuchAKeyThrowsNamingItAndTheLimit(_ kind: String) throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try Self.open(kind, in: directory)
        do {
            try store.transaction { tx in
                tx.set(1, forKey: "fine")
                tx.set(1, forKey: Self.longKey)
            }
            Issue.record("\(kind) committed a 10,000-byte key")
        } catch StoreError.refused(let key, let reason) {
            #expect(key == Self.longKey)
            #expect(reason.contains("10000 bytes") && reason.contains("1024"))
        }
        #expect(store.keys.isEmpty)
        #expect(throws: StoreError.self) { try PreferenceStore.checkKey("StoredKit.metadata") }
        try PreferenceStore.checkKey(String(repeating: "é", count: 512))  // 1,024 bytes: the limit itself
    }

    /// A namespace beside a key of the longest length must fit PostgreSQL's index row too: 4,000
    /// bytes were accepted before, and every commit in that namespace then failed with SQLSTATE 54000.
    @Test(.enabled(if: PostgresTestServer.isEnabled, PostgresTestServer.skipMessage))
    func aNamespaceTooLongForTheIndexIsRefusedAtOpen() throws {
        let url = try PostgresTestServer.requireURL()
        let namespace = String(Self.longKey.prefix(2_000))
        #expect {
            let store = try PreferenceStore(.postgres(url: url, namespace: namespace))
            store.set(1, forKey: "a")
            try store.flush()
        } throws: { error in
            guard case .unrepresentable("namespace", let reason)? = error as? StoreError else { return false }
            return reason.contains("2000 bytes") && reason.contains("1024")
        }
    }
}
