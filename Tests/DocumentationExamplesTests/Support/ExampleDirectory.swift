import Foundation

/// A fresh temporary directory for one example, removed when released.
///
/// The articles write `url` where an app would use its data directory; the examples put it here.
final class ExampleDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "StoredKitDocs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appending(path: name) }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
