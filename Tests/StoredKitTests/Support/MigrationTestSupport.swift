import Foundation
import Synchronization
import Testing

@testable import StoredKit

/// The three backends every migration test runs on.
enum BackendKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, plist, sqlite

    var testDescription: String { rawValue }
}

/// One store's data in a temporary directory, reopened as often as a test needs: each
/// ``backend()`` is a new backend on the same data, like a new launch of the app.
final class MigrationFixture: Sendable {
    let kind: BackendKind
    /// The conformance suite's subject of the same backend: its directory, file and backends.
    private let subject: BuiltInSubject

    init(_ kind: BackendKind) throws {
        self.kind = kind
        let subjectKind: BuiltInSubject.Kind =
            switch kind {
            case .memory: .memory
            case .plist: .plistXML
            case .sqlite: .sqlite
            }
        subject = try BuiltInSubject(subjectKind)
    }

    var directory: TemporaryDirectory { subject.directory }

    var file: URL { subject.file }

    func backend() -> any Backend { subject.backend() }

    /// Opens a store on the data with `migrations`.
    func open(_ migrations: [Migration] = [], whenNewer: NewerSchemaPolicy = .fail) throws -> PreferenceStore {
        try PreferenceStore(backend(), migrations: migrations, durability: .immediate, whenNewer: whenNewer)
    }

    /// Writes data and a schema version directly, as an earlier (or newer) app would have.
    func seed(_ values: [String: StoredValue], schemaVersion: Int = 0) throws {
        let version = schemaVersion == 0 ? nil : schemaVersion  // 0 is "no migration ran": no metadata
        _ = try backend().commit(BackendChanges(values: values, schemaVersion: version, durability: .immediate))
    }

    /// The data as a fresh backend reads it.
    func stored() throws -> BackendSnapshot { try backend().load() }

    /// The file's bytes (nil for memory or no file), to prove a failed open changed nothing.
    func fileBytes() -> Data? { kind == .memory ? nil : FileManager.default.contents(atPath: file.path) }
}

/// Counts and orders migration runs from `@Sendable` migration bodies.
final class RunLog: Sendable {
    private let entries = Mutex<[String]>([])

    var names: [String] { entries.withLock { $0 } }

    func record(_ name: String) { entries.withLock { $0.append(name) } }

    func count(_ name: String) -> Int { names.filter { $0 == name }.count }
}

/// A backend that records what the engine asks of another one.
final class RecordingBackend: Backend {
    let base: any Backend
    private let recorded = Mutex<(commits: [BackendChanges], exclusiveCommits: [BackendChanges])>(([], []))

    init(_ base: any Backend) { self.base = base }

    var commits: [BackendChanges] { recorded.withLock { $0.commits } }
    var exclusiveCommits: [BackendChanges] { recorded.withLock { $0.exclusiveCommits } }

    var location: String { base.location }

    func load() throws -> BackendSnapshot { try base.load() }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        recorded.withLock { $0.commits.append(changes) }
        return try base.commit(changes)
    }

    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        try base.withExclusiveAccess { snapshot in
            let (changes, result) = try body(snapshot)
            recorded.withLock { $0.exclusiveCommits.append(changes) }
            return (changes, result)
        }
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws { try base.startWatching(onChange) }

    func stopWatching() { base.stopWatching() }
}

struct MigrationRefused: Error {}

/// The version and name of a `migrationFailed` error, and what it wraps.
func migrationFailure(_ error: any Error) -> (version: Int, name: String, underlying: any Error)? {
    guard case StoreError.migrationFailed(let version, let name, let underlying) = error else { return nil }
    return (version, name, underlying)
}
