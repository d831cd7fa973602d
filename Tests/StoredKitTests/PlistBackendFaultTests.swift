import Foundation
import Testing

@testable import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

@Suite("PlistBackend I/O faults")
struct PlistBackendFaultTests {
    @Test func aDirectoryAtThePathIsATypedErrorNamingIt() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let backend = PlistBackend.plist(at: url)

        let loadError = try #require(throws: StoreError.self) { try backend.load() }
        let commitError = try #require(throws: StoreError.self) { try backend.commit(BackendChanges(values: ["a": .int(1)])) }

        for error in [loadError, commitError] {
            guard case .io(let path, _, let code) = error else { Issue.record("unexpected \(error)"); continue }
            #expect(path == url.path)
            #expect(code == EISDIR)
        }
    }

    /// Runs as root too (CI): see ``TemporaryDirectory/withPermissionsEnforced(_:)``.
    @Test func unwritableDirectoryKeepsTheFileAndALaterCommitRetries() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let backend = PlistBackend.plist(at: url)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        let before = try Data(contentsOf: url)
        try scratch.withPermissionsEnforced {
            chmod(scratch.path, 0o500)

            let error = try #require(throws: StoreError.self) { try backend.commit(BackendChanges(values: ["b": .int(2)])) }

            guard case .io(_, _, let code) = error else { Issue.record("unexpected \(error)"); return }
            #expect(code == EACCES)
            #expect(try Data(contentsOf: url) == before)
            chmod(scratch.path, 0o700)
            _ = try backend.commit(BackendChanges(values: ["b": .int(2)]))
            #expect(try PlistBackend.plist(at: url).load().values == ["a": .int(1), "b": .int(2)])
        }
    }

    /// Works as root too: a directory where the lock file belongs makes the commit fail before writing.
    @Test func failedCommitKeepsTheFileAndALaterCommitRetries() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let url = scratch.file("prefs.plist")
        let backend = PlistBackend.plist(at: url)
        _ = try backend.commit(BackendChanges(values: ["a": .int(1)]))
        let before = try Data(contentsOf: url)
        let lockPath = scratch.file("prefs.plist.lock").path
        try FileManager.default.removeItem(atPath: lockPath)
        try FileManager.default.createDirectory(atPath: lockPath, withIntermediateDirectories: false)

        let error = try #require(throws: StoreError.self) { try backend.commit(BackendChanges(values: ["b": .int(2)])) }

        guard case .io(let path, _, let code) = error else { Issue.record("unexpected \(error)"); return }
        #expect(path == lockPath)
        #expect(code == EISDIR)
        #expect(try Data(contentsOf: url) == before)
        #expect(error.description.contains(lockPath))
        try FileManager.default.removeItem(atPath: lockPath)
        _ = try backend.commit(BackendChanges(values: ["b": .int(2)]))
        #expect(try PlistBackend.plist(at: url).load().values == ["a": .int(1), "b": .int(2)])
    }

    @Test func aFileInPlaceOfTheDirectoryIsATypedError() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        #expect(FileManager.default.createFile(atPath: scratch.file("config").path, contents: Data()))
        let backend = PlistBackend.plist(at: scratch.file("config/prefs.plist"))

        let loadError = try #require(throws: StoreError.self) { try backend.load() }
        let commitError = try #require(throws: StoreError.self) { try backend.commit(BackendChanges(values: ["a": .int(1)])) }

        for error in [loadError, commitError] {
            guard case .io(_, _, let code) = error else { Issue.record("unexpected \(error)"); continue }
            #expect(code == ENOTDIR)
        }
    }
}
