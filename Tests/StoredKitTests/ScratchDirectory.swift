import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory under the system temporary directory, removed by ``remove()``.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("StoredKitTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    func remove() {
        chmod(path, 0o700)
        try? FileManager.default.removeItem(at: url)
    }

    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    static func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int) ?? -1
    }

    /// Whether the file system refuses writes to a read-only directory for this process (root bypasses it).
    static let permissionsAreEnforced: Bool = {
        guard let scratch = try? ScratchDirectory() else { return false }
        defer { scratch.remove() }
        chmod(scratch.path, 0o500)
        let probe = open(scratch.path + "/probe", O_WRONLY | O_CREAT, 0o600)
        if probe >= 0 { close(probe) }
        return probe < 0
    }()
}

/// Waits until `condition` holds, giving up after `timeout` seconds; returns whether it held.
func waitUntil(timeout: Double = 15, _ condition: () -> Bool) async -> Bool {
    let deadline = Date.now.addingTimeInterval(timeout)
    while Date.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
