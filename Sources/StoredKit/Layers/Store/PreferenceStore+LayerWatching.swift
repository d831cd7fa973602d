import Dispatch
import Foundation

// Layer files change under a running store (an administrator's edit, a configuration tool's atomic
// save, a mounted ConfigMap's symlink swap): each file's directory is watched through the inotify
// hub, and a change reaches readers and observers with origin `.external`.
extension LayerTable {
    /// Reads every layer's source: a file that cannot be read or parsed is reported and empty.
    /// Returns `nil` for no layers.
    static func load(_ layers: [PreferenceLayer]) -> (LayerTable?, [StoreEvent]) {
        guard !layers.isEmpty else { return (nil, []) }
        var events: [StoreEvent] = []
        let contents = layers.map { layer -> [String: StoredValue] in
            guard let source = layer.source else { return [:] }
            if case .forced = layer.kind, let path = source.filePath, FileSystem.isWritableByOthersOrOwned(path) {
                events.append(.forcedFileWritable(path: path))
            }
            do {
                return try source.load()
            } catch {
                events.append(.layerFileUnreadable(path: source.location, reason: "\(error)", keptLastGood: false))
                return [:]
            }
        }
        return (LayerTable(layers, contents: contents), events)
    }
}

extension PreferenceStore {
    /// Watches every layer file's directory for the names that change it (see ``FileSystem/namesToWatch(for:)``).
    /// A directory that does not exist yet (a system directory not installed) is awaited from its
    /// nearest existing ancestor; once it appears, or when a watched directory is removed, the
    /// watches are set up again.
    func watchLayers() {
        guard hasLayers else { return }
        let paths = state.withLock { state in Set(state.layers?.layers.compactMap { $0.layer.source?.filePath } ?? []) }
        var watchers: [DirectoryWatcher] = []
        var awaitsDirectory = false
        for path in paths.sorted() {
            let onChange: @Sendable () -> Void = { [weak self] in
                DispatchQueue.global().async { [weak self] in self?.layerDirectoryChanged(path) }
            }
            for (directory, names) in FileSystem.namesToWatch(for: path) {
                if let (watcher, awaits) = Self.watch(directory, names: names, onChange: onChange) {
                    watchers.append(watcher)
                    awaitsDirectory = awaitsDirectory || awaits
                } else {
                    report(
                        .layerFileUnreadable(
                            path: path, reason: "its directory '\(directory)' cannot be watched; changes are not seen",
                            keptLastGood: true))
                }
            }
        }
        state.withLock { state in
            state.layerWatchers = watchers
            state.layerWatchesAwaitDirectory = awaitsDirectory
        }
    }

    /// A watch of `directory` for `names`, or, while `directory` does not exist, of its nearest
    /// existing ancestor for the next name on the way (a missing directory is a missing, empty
    /// layer until it is created); `nil` when neither can be watched. A directory on the way created
    /// between the two attempts, or while the ancestor's watch was being set up, makes no event that
    /// watch would see: the way is looked at again once the watch is in place.
    private static func watch(
        _ directory: String, names: Set<String>, onChange: @escaping @Sendable () -> Void
    ) -> (watcher: DirectoryWatcher, awaitsDirectory: Bool)? {
        for _ in 0..<8 {  // each turn finds one more directory on the way, or gives up
            if let watcher = try? DirectoryWatcher(directory: directory, fileNames: names, onChange: onChange) {
                return (watcher, false)
            }
            // There but not watchable (not a directory, no permission), or created just now: try again.
            if FileManager.default.fileExists(atPath: directory) { continue }
            guard let (ancestor, child) = FileSystem.nearestExistingAncestor(of: directory),
                let watcher = try? DirectoryWatcher(directory: ancestor, fileNames: [child], onChange: onChange)
            else { return nil }
            if let now = FileSystem.nearestExistingAncestor(of: directory), now == (ancestor, child) {
                return (watcher, true)
            }
        }
        return nil
    }

    /// A watched directory changed: watches again when a directory was created or removed on the
    /// way to a layer file, then reads the file (after, so a file written in between is not missed).
    func layerDirectoryChanged(_ path: String) {
        layerReloadLock.withLock { _ in
            let mustWatchAgain = state.withLock { state in
                state.layerWatchesAwaitDirectory || state.layerWatchers.contains(where: \.isLost)
            }
            if mustWatchAgain { watchLayers() }
        }
        reloadLayer(at: path)
    }

    /// Reads the layer file at `path` again and applies what changed: readers see it at once,
    /// observers of keys whose highest value changed hear it (origin `.external`), keys that became
    /// forced or unforced are reported. A file that cannot be read keeps its last good contents.
    func reloadLayer(at path: String) {
        layerReloadLock.withLock { _ in
            let indices = state.withLock { $0.layers?.indices(readingFile: path) ?? [] }
            guard let first = indices.first, let source = state.withLock({ $0.layers?.layers[first].layer.source })
            else { return }
            let values: [String: StoredValue]
            do {
                values = try source.load()
            } catch {
                report(.layerFileUnreadable(path: path, reason: "\(error)", keptLastGood: true))
                return
            }
            let (changedSlots, events) = state.withLock { state -> ([KeySlot], [StoreEvent]) in
                var slots: [KeySlot] = []
                var events: [StoreEvent] = []
                for index in indices {
                    guard let changes = state.layers?.replaceContents(ofLayerAt: index, with: values) else { continue }
                    for (key, oldEntry, newEntry) in changes {
                        let before = LayeredValue(
                            entry: oldEntry, user: state.values[key], registered: state.registeredDefaults[key])
                        var after = before
                        after.entry = newEntry
                        if let slot = state.slots[key] {
                            slot.advance()
                            slots.append(slot)
                        }
                        state.enqueueIfTopChanged(key, before, after, origin: .external)
                        let wasForced = oldEntry.upper.first(where: \.isForced)
                        let isForced = newEntry.upper.first(where: \.isForced)
                        if wasForced == nil, let isForced {
                            events.append(.becameForced(key: key, source: isForced.source))
                        } else if wasForced != nil, isForced == nil {
                            events.append(.becameUnforced(key: key))
                        }
                    }
                }
                return (slots, events)
            }
            for slot in changedSlots { slot.markChanged() }
            for event in events { report(event) }
        }
        deliverChanges()
    }
}
