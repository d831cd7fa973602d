import Foundation
import StoredKitTestSupport

@testable import StoredKit

/// Writes a layer plist file as an administrator's tool would, from this process (set-up only).
func writeLayerFile(_ url: URL, _ values: [String: StoredValue]) throws {
    try PlistCodec.encode(.dictionary(values), format: .xml).write(to: url)
}

/// The XML plist text of `values`, for another process to write.
func layerFileData(_ values: [String: StoredValue]) throws -> Data {
    try PlistCodec.encode(.dictionary(values), format: .xml)
}

/// Runs `script` in a real shell process with `input` on its standard input.
func shell(_ script: String, input: Data? = nil) throws {
    _ = try ExternalCommand.run("/bin/sh", ["-c", script], input: input)
}

/// Quotes `path` for the shell.
func quoted(_ path: URL) -> String {
    "'" + path.path(percentEncoded: false).replacingOccurrences(of: "'", with: "'\\''") + "'"
}

extension PreferenceStore {
    /// The events recorded so far that `match` picks.
    func events(_ match: (StoreEvent) -> Bool) -> [StoreEvent] { recentEvents.filter(match) }
}
