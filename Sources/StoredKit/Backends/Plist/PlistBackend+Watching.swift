import Dispatch
import Foundation

extension PlistBackend {
    /// How often the safety-net check looks at the file's identity, in case inotify missed
    /// something (queue overflow, a directory that did not exist yet, a network file system).
    static let safetyNetInterval = DispatchTimeInterval.seconds(1)

    /// What ``startWatching(_:)`` set up, torn down by ``stopWatching()``.
    struct WatchState {
        var onChange: @Sendable () -> Void
        var timer: any DispatchSourceTimer
        /// `nil` while the directory does not exist; the timer attaches it once it does, and
        /// replaces it once the directory was removed or moved and exists again.
        var watcher: DirectoryWatcher?
        /// The identity last reported, so a change the engine has not reloaded yet is reported once.
        var reportedIdentity: FileIdentity??
    }

    /// Calls `onChange` when another process replaced, deleted or moved the file: inotify on the
    /// directory, plus a cheap `stat` every second as a safety net (which also re-attaches inotify
    /// to a directory removed and made again). This instance's own writes are not reported.
    ///
    /// ```swift
    /// try backend.startWatching { print("someone else wrote the file") }
    /// ```
    public func startWatching(_ onChange: @escaping @Sendable () -> Void) throws {
        stopWatching()
        let watcher = try makeWatcherIfDirectoryExists()
        state.withLock { state in
            // Created inside the lock so the non-Sendable timer never leaves the protected state.
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "StoredKit.PlistBackend.watch"))
            timer.schedule(
                deadline: .now() + Self.safetyNetInterval, repeating: Self.safetyNetInterval, leeway: .milliseconds(200))
            timer.setEventHandler { [weak self] in
                self?.attachWatcherIfNeeded()
                self?.checkForExternalChange()
            }
            timer.resume()
            state.watch = WatchState(onChange: onChange, timer: timer, watcher: watcher)
        }
        // A write since the last load (before inotify was listening) is reported now, not in a second.
        checkForExternalChange()
    }

    /// Stops the calls started by ``startWatching(_:)``.
    ///
    /// ```swift
    /// backend.stopWatching()
    /// ```
    public func stopWatching() {
        guard let watch = state.withLock({ state in state.watch.take() }) else { return }
        watch.timer.cancel()
        watch.watcher?.cancel()
    }

    private func makeWatcherIfDirectoryExists() throws -> DirectoryWatcher? {
        try DirectoryWatcher.ifDirectoryExists(directory, fileNames: [fileName]) { [weak self] in
            self?.checkForExternalChange()
        }
    }

    /// Attaches inotify once the directory exists, and again after it was removed (or moved)
    /// and made anew: a lost watch would otherwise leave only the one-second check.
    private func attachWatcherIfNeeded() {
        // `nil`: not watching; `.some(nil)`: watching without inotify (no directory yet).
        guard let current = state.withLock({ $0.watch.map { $0.watcher } }), current?.isLost ?? true else { return }
        guard let watcher = try? makeWatcherIfDirectoryExists() else { return }
        let attached = state.withLock { state -> Bool in
            guard state.watch != nil, state.watch?.watcher === current else { return false }
            state.watch?.watcher = watcher
            return true
        }
        (attached ? current : watcher)?.cancel()
    }

    /// Reports a change when the file's identity differs from what this instance last read or
    /// wrote, including when the file was deleted or moved away (identity `nil`).
    private func checkForExternalChange() {
        let identity: FileIdentity?
        do {
            identity = try FileIdentity.of(path: path)
        } catch {
            return  // the file cannot be inspected now (permissions); the next check tries again
        }
        let onChange = state.withLock { state -> (@Sendable () -> Void)? in
            // During our own write the new file is on disk before `loaded` knows it; skip, the
            // write's caller already has that data and the timer re-checks afterwards.
            guard let watch = state.watch, state.writesInProgress == 0 else { return nil }
            let known = state.loaded.map { $0.identity } ?? nil
            guard identity != known, watch.reportedIdentity != .some(identity) else { return nil }
            state.watch?.reportedIdentity = .some(identity)
            return watch.onChange
        }
        onChange?()
    }
}
