import Foundation

extension PlistBackend {
    /// Reads and parses the file, applying the corruption policy to a file that does not parse.
    func readFile(holdingLock: Bool) throws -> (LoadedFile, [StoreEvent]) {
        let reason: String
        switch try parseFile() {
        case .success(let file): return (file, file.document.equivalentKeys.events(path: path))
        case .failure(let failure): reason = failure.reason
        }
        guard corruptionPolicy == .quarantine else {
            throw StoreError.corruptFile(path: path, reason: reason, quarantinedAt: nil)
        }
        do {
            if holdingLock { return try quarantine(reason: reason) }
            return try lock.withLock {
                // Someone may have repaired or replaced the file while this process waited for the lock.
                switch try parseFile() {
                case .success(let file): return (file, file.document.equivalentKeys.events(path: path))
                case .failure(let failure): return try quarantine(reason: failure.reason)
                }
            }
        } catch StoreError.io(let failedPath, let operation, let code) {
            let cause = StoreError.io(path: failedPath, operation: operation, errno: code)
            throw StoreError.corruptFile(
                path: path, reason: "\(reason); moving it aside failed: \(cause)", quarantinedAt: nil)
        }
    }

    /// Why a file did not parse.
    struct ParseFailure: Error {
        var reason: String
    }

    private func parseFile() throws -> Result<LoadedFile, ParseFailure> {
        guard let (data, identity) = try FileSystem.read(path) else {
            return .success(LoadedFile(document: PlistDocument(), identity: nil))
        }
        do {
            return .success(LoadedFile(document: try PlistDocument(decoding: data, path: path), identity: identity))
        } catch StoreError.corruptFile(_, let reason, _) {
            return .failure(ParseFailure(reason: reason))
        }
    }

    /// Moves the corrupt file to `<file>.corrupt-<UTC timestamp>` and continues with an empty store.
    private func quarantine(reason: String) throws -> (LoadedFile, [StoreEvent]) {
        let timestamp = Date.now.formatted(
            Date.ISO8601FormatStyle(dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted))
        let movedTo = try FileSystem.moveAside(path, toNameBasedOn: "\(path).corrupt-\(timestamp)")
        let event = StoreEvent.quarantined(path: path, movedTo: movedTo, reason: reason)
        return (LoadedFile(document: PlistDocument(), identity: nil), [event])
    }
}
