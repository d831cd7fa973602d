import Dispatch
import Foundation
import Synchronization

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
    /// Tests only: what to run, by layer file path, once a store opening with a layer reading that
    /// file has read its layer files for the first time. Another process's write there is the race
    /// between the first read and the watches; empty (one lookup per open with layers) otherwise.
    static let afterFirstLayerRead = Mutex<[String: @Sendable () -> Void]>([:])

    /// Runs the ``afterFirstLayerRead`` actions registered for this store's layer files.
    func runAfterFirstLayerRead(_ layers: [PreferenceLayer]) {
        let actions = Self.afterFirstLayerRead.withLock { actions in
            actions.isEmpty ? [] : layers.compactMap { $0.source?.filePath.flatMap { actions[$0] } }
        }
        for action in actions { action() }
    }

    /// The first read of the layer files, at open: after their watches are in place, so a file
    /// written between the two is either read now or heard of by its watch (and read again). Under
    /// the reload lock, as when a directory change sets the watches again: an event of a new watch
    /// waits until the store holds what the files said.
    func watchAndReadLayers(_ layers: [PreferenceLayer]) {
        layerReloadLock.withLock { _ in
            watchLayers()
            let (table, events) = LayerTable.load(layers)
            state.withLock { $0.layers = table }
            for event in events { report(event) }
        }
        runAfterFirstLayerRead(layers)
    }

    /// Watches every layer file's directory for the names that change it (see ``FileSystem/namesToWatch(for:)``),
    /// and every directory above it for the name on the way. A directory that does not exist yet (a
    /// system directory not installed) is awaited from its nearest existing ancestor. Every event sets
    /// the watches up again (see ``layerDirectoryChanged(_:)``), so they follow the path as it changes.
    func watchLayers() {
        guard hasLayers else { return }
        let paths = state.withLock { state in Set(state.layers?.layers.compactMap { $0.layer.source?.filePath } ?? []) }
        var watchers: [DirectoryWatcher] = []
        for path in paths.sorted() {
            let onChange: @Sendable () -> Void = { [weak self] in
                DispatchQueue.global().async { [weak self] in self?.layerDirectoryChanged(path) }
            }
            for (directory, names) in FileSystem.namesToWatch(for: path) {
                if let found = Self.watch(directory, names: names, onChange: onChange) {
                    watchers += found
                } else {
                    report(
                        .layerFileUnreadable(
                            path: path, reason: "its directory '\(directory)' cannot be watched; changes are not seen",
                            keptLastGood: true))
                }
            }
        }
        // The watches replaced go only now: a directory watched before and after keeps its watch throughout.
        state.withLock { state in state.layerWatchers = watchers }
    }

    /// Watches of `directory` for `names`, or, while `directory` does not exist, of its nearest
    /// existing ancestor for the next name on the way (a missing directory is a missing, empty
    /// layer until it is created); then of every directory above that one for the name on the way
    /// (see ``watchesOfAncestors(of:onChange:)``); `nil` when neither can be watched. A directory on
    /// the way created, moved or removed while the watches are being set up makes no event they
    /// would see: the way is looked at again once they are in place.
    private static func watch(
        _ directory: String, names: Set<String>, onChange: @escaping @Sendable () -> Void
    ) -> [DirectoryWatcher]? {
        for _ in 0..<8 {  // each turn finds one more directory on the way, or gives up
            let before = try? FileIdentity.of(path: directory)
            let watcher: DirectoryWatcher
            let awaited: (directory: String, child: String)?
            if let direct = try? DirectoryWatcher(directory: directory, fileNames: names, onChange: onChange) {
                (watcher, awaited) = (direct, nil)
            } else if FileManager.default.fileExists(atPath: directory) {
                continue  // there but not watchable (not a directory, no permission), or created just now: try again
            } else {
                guard let way = FileSystem.nearestExistingAncestor(of: directory),
                    let ancestor = try? DirectoryWatcher(directory: way.directory, fileNames: [way.child], onChange: onChange)
                else { return nil }
                (watcher, awaited) = (ancestor, way)
            }
            let above = watchesOfAncestors(of: awaited?.directory ?? directory, onChange: onChange)
            // Still the directory watched, or still the way to it: nothing happened unheard.
            let isCurrent: Bool
            if let awaited {
                isCurrent = FileSystem.nearestExistingAncestor(of: directory).map { $0 == awaited } ?? false
            } else {
                isCurrent = before != nil && FileIdentity.sameFile(before, try? FileIdentity.of(path: directory))
            }
            if isCurrent { return [watcher] + above }
        }
        return nil
    }

    /// Watches of every directory above `directory` for the name of the next one down: moving an
    /// ancestor aside (`mv /etc/xdg /etc/xdg.old` for `/etc/xdg/app/forced.plist`) or replacing it
    /// changes what the path names, and the watch of `directory` itself, which follows its
    /// directory wherever it goes, hears nothing of it. One that cannot be watched
    /// (no permission) is left out.
    private static func watchesOfAncestors(
        of directory: String, onChange: @escaping @Sendable () -> Void
    ) -> [DirectoryWatcher] {
        var watchers: [DirectoryWatcher] = []
        var child = directory
        while child != "/", child != "." {
            let parent = SystemCall.directory(of: child)
            let name = SystemCall.fileName(of: child)
            if let watcher = try? DirectoryWatcher(directory: parent, fileNames: [name], onChange: onChange) {
                watchers.append(watcher)
            }
            child = parent
        }
        return watchers
    }

    /// A watched directory changed: sets the watches up again (a directory on the way to a layer
    /// file may have been created, removed, moved or replaced, a symbolic link pointed elsewhere),
    /// then reads the file (after, so a file written in between is not missed).
    func layerDirectoryChanged(_ path: String) {
        layerReloadLock.withLock { _ in watchLayers() }
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
