import Foundation
import StoredKit
import Synchronization

/// The file-backed stores the benchmark measures. Each scenario that needs one declares it, and
/// shows as "pending" until ``makeBackend`` returns a way to open it.
///
/// ```swift
/// let store = try FileStoreKind.sqlite.openStore(at: directory)  // throws until the backend is wired
/// ```
enum FileStoreKind: String, CaseIterable, Sendable {
    /// The plist backend writing XML (the default format).
    case plist
    /// The plist backend writing binary (`bplist00`).
    case plistBinary = "plist-binary"
    case sqlite

    /// How to open this kind of backend on a file, or `nil` while the backend is not available.
    ///
    /// A new backend plugs in here: add a case and its closure, and every scenario that loops over
    /// the file stores measures it. A `nil` shows the scenarios as pending instead.
    var makeBackend: (@Sendable (URL) throws -> any Backend)? {
        switch self {
        case .plist: { url in anyBackend(.plist(at: url)) }
        case .plistBinary: { url in anyBackend(.plist(at: url, format: .binary)) }
        case .sqlite: { url in anyBackend(.sqlite(at: url)) }
        }
    }

    /// The store's file inside `directory`.
    func fileURL(in directory: URL) -> URL {
        switch self {
        case .plist, .plistBinary: directory.appendingPathComponent("preferences.plist")
        case .sqlite: directory.appendingPathComponent("preferences.sqlite")
        }
    }

    /// Opens (or creates) this kind of store on its file in `directory`.
    func openStore(in directory: URL, durability: Durability = .deferred) throws -> PreferenceStore {
        try PreferenceStore(backend(in: directory), durability: durability)
    }

    /// This kind's backend on its file in `directory`.
    func backend(in directory: URL) throws -> any Backend {
        guard let makeBackend else { throw BenchmarkError.notWired(self) }
        return try makeBackend(fileURL(in: directory))
    }
}

/// Lets the hooks above use leading-dot factories (`.plist(at:)`), which need a `some Backend` context.
func anyBackend(_ backend: some Backend) -> any Backend { backend }

/// Errors of the benchmark itself (a StoredKit error passes through unchanged).
enum BenchmarkError: Error, CustomStringConvertible {
    case notWired(FileStoreKind)
    case childFailed(arguments: [String], status: Int32, output: String)
    case unexpected(String)

    var description: String {
        switch self {
        case .notWired(let kind): "the \(kind.rawValue) backend is not wired yet (see FileStoreKind.makeBackend)"
        case .childFailed(let arguments, let status, let output):
            "child process `\(arguments.joined(separator: " "))` exited with \(status): \(output)"
        case .unexpected(let message): message
        }
    }
}

/// Wraps a backend to count how many commits reach it, so a scenario can show that a burst of
/// deferred writes became a handful of transactions.
///
/// ```swift
/// let counting = CountingBackend(MemoryBackend())
/// let store = try PreferenceStore(counting)
/// for i in 0..<10_000 { store.set(i, forKey: "key-\(i)") }
/// try store.flush()
/// counting.commits  //=> 1
/// ```
final class CountingBackend: Backend {
    private let wrapped: any Backend
    private let commitCount = Atomic<Int>(0)

    init(_ wrapped: any Backend) {
        self.wrapped = wrapped
    }

    var commits: Int { commitCount.load(ordering: .relaxed) }
    var location: String { wrapped.location }

    func load() throws -> BackendSnapshot { try wrapped.load() }

    func commit(_ changes: BackendChanges) throws -> BackendSnapshot? {
        commitCount.add(1, ordering: .relaxed)
        return try wrapped.commit(changes)
    }

    func withExclusiveAccess<R>(_ body: (BackendSnapshot) throws -> (BackendChanges, R)) throws -> R {
        commitCount.add(1, ordering: .relaxed)
        return try wrapped.withExclusiveAccess(body)
    }

    func startWatching(_ onChange: @escaping @Sendable () -> Void) throws { try wrapped.startWatching(onChange) }
    func stopWatching() { wrapped.stopWatching() }
}

/// A store a scenario can run against: the in-memory store (always available) or a file store.
///
/// ```swift
/// for target in StoreUnderTest.all { let store = try target.open(in: directory) }
/// ```
enum StoreUnderTest: Sendable {
    case memory
    case file(FileStoreKind)

    /// The stores most scenarios compare: in memory, plist (XML) and SQLite.
    static let all: [StoreUnderTest] = [.memory, .file(.plist), .file(.sqlite)]
    static let files: [StoreUnderTest] = [.file(.plist), .file(.sqlite)]

    var name: String {
        switch self {
        case .memory: "memory"
        case .file(let kind): kind.rawValue
        }
    }

    var requires: FileStoreKind? {
        if case .file(let kind) = self { return kind }
        return nil
    }

    /// Opens a fresh store (a file store on its file in `directory`).
    func open(in directory: URL, durability: Durability = .deferred) throws -> PreferenceStore {
        try PreferenceStore(backend(in: directory), durability: durability)
    }

    /// Opens a store whose commits are counted.
    func openCounting(in directory: URL) throws -> (PreferenceStore, CountingBackend) {
        let counting = CountingBackend(try backend(in: directory))
        return (try PreferenceStore(counting), counting)
    }

    private func backend(in directory: URL) throws -> any Backend {
        switch self {
        case .memory: MemoryBackend()
        case .file(let kind): try kind.backend(in: directory)
        }
    }
}

extension StoreUnderTest {
    /// The target called `name` (as in ``name``), for child processes that get it as an argument.
    init?(name: String) {
        if name == "memory" {
            self = .memory
        } else if let kind = FileStoreKind(rawValue: name) {
            self = .file(kind)
        } else {
            return nil
        }
    }
}
