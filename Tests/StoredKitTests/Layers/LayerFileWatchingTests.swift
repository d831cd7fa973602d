import Foundation
import Testing

@testable import StoredKit

/// An administrator's edit of a layer file, made by another process (in place, by atomic rename,
/// by a symlink swap as a mounted ConfigMap does), reaches a running store with origin `.external`;
/// observers hear only keys whose effective value changed; forcing and unforcing are events.
@Suite("Layer files are watched", .awaitsChanges)
struct LayerFileWatchingTests {
    static let volume = StoredKey<Double>("volume", default: 0.5)

    /// Opens a store whose forced and defaults layers are files in `directory`.
    func openStore(_ directory: TemporaryDirectory, forced: URL, defaults: URL) throws -> PreferenceStore {
        try PreferenceStore(
            .plist(at: directory.file("user.plist")), layers: [.forced(.plist(at: forced)), .defaults(.plist(at: defaults))])
    }

    @Test func anInPlaceEditReachesObserversOfChangedKeysOnly() async throws {
        let directory = try TemporaryDirectory()
        let forced = directory.file("forced.plist")
        let defaults = directory.file("defaults.plist")
        try writeLayerFile(defaults, ["volume": .double(0.6), "speed": .int(2)])
        let store = try openStore(directory, forced: forced, defaults: defaults)
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.6)
        store.set(7, forKey: "speed")  // the user's 7 hides the defaults' speed
        let volumeChanges = Recorder<ValueChange<Double>>()
        let speedChanges = Recorder<Change>()
        let tokens = [
            store.observe(Self.volume) { volumeChanges.append($0) }, store.observe("speed") { speedChanges.append($0) },
        ]
        // In place: the same inode truncated and rewritten by another process.
        try shell("cat > \(quoted(defaults))", input: try layerFileData(["volume": .double(0.65), "speed": .int(3)]))
        #expect(await volumeChanges.wait(forCount: 1))
        #expect(volumeChanges.values.first?.newValue == 0.65)
        #expect(volumeChanges.values.first?.origin == .external)
        #expect(wrapper.wrappedValue == 0.65)
        #expect(store.source(forKey: "volume") == .defaults(location: defaults.path(percentEncoded: false)))
        #expect(speedChanges.values.isEmpty)
        #expect(store.value(forKey: "speed", as: Int.self) == 7)
        _ = tokens
    }

    @Test func aTypedObserverHearsALowerLayerWhenTheHighestValueDoesNotDecode() async throws {
        let directory = try TemporaryDirectory()
        let forced = directory.file("forced.plist")
        let defaults = directory.file("defaults.plist")
        try writeLayerFile(forced, ["volume": .string("loud")])  // not a Double: typed reads fall through
        try writeLayerFile(defaults, ["volume": .double(0.5)])
        let store = try openStore(directory, forced: forced, defaults: defaults)
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.5)
        let typed = Recorder<ValueChange<Double>>()
        let raw = Recorder<Change>()
        let tokens = [store.observe(Self.volume) { typed.append($0) }, store.observe("volume") { raw.append($0) }]
        try shell("cat > \(quoted(defaults))", input: try layerFileData(["volume": .double(0.6)]))
        #expect(await typed.wait(forCount: 1))
        #expect(typed.values.first.map { ($0.oldValue, $0.newValue, $0.origin) } ?? (0, 0, .local) == (0.5, 0.6, .external))
        #expect(wrapper.wrappedValue == 0.6)
        // The defaults' other keys change too, but not what `volume` reads: no second typed change.
        try shell("cat > \(quoted(defaults))", input: try layerFileData(["volume": .double(0.6), "speed": .int(1)]))
        #expect(await waitUntil { store.value(forKey: "speed", as: Int.self) == 1 })
        #expect(typed.values.count == 1)
        #expect(raw.values.isEmpty, "the highest raw value, \"loud\", never changed")
        _ = tokens
    }

    @Test func anAtomicRenameForcesAKeyAndDeletingTheFileUnforcesIt() async throws {
        let directory = try TemporaryDirectory()
        let forced = directory.file("forced.plist")  // missing: an empty layer
        let defaults = directory.file("defaults.plist")
        let store = try openStore(directory, forced: forced, defaults: defaults)
        let wrapper = Stored(Self.volume, store: store)
        store.set(0.9, forKey: "volume")
        #expect(wrapper.wrappedValue == 0.9)
        #expect(!wrapper.projectedValue.isForced)
        let changes = Recorder<ValueChange<Double>>()
        let token = store.observe(Self.volume) { changes.append($0) }
        try shell(
            "cat > \(quoted(forced)).tmp && mv \(quoted(forced)).tmp \(quoted(forced))",
            input: try layerFileData(["volume": .double(0.2)]))
        #expect(await changes.wait(forCount: 1))
        #expect(changes.values.first.map { ($0.oldValue, $0.newValue, $0.origin) } ?? (0, 0, .local) == (0.9, 0.2, .external))
        #expect(wrapper.wrappedValue == 0.2)
        #expect(wrapper.projectedValue.isForced)
        #expect(store.events { if case .becameForced(key: "volume", _) = $0 { true } else { false } }.count == 1)
        try shell("rm \(quoted(forced))")
        #expect(await changes.wait(forCount: 2))
        #expect(wrapper.wrappedValue == 0.9)
        #expect(!store.isForced(forKey: "volume"))
        #expect(store.events { if case .becameUnforced(key: "volume") = $0 { true } else { false } }.count == 1)
        token.cancel()
    }

    @Test func aSymlinkSwapLikeAMountedConfigMapReachesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let mount = directory.file("config")
        let defaults = mount.appending(path: "defaults.plist")
        try FileManager.default.createDirectory(at: mount.appending(path: "..2026_01"), withIntermediateDirectories: true)
        try writeLayerFile(mount.appending(path: "..2026_01/defaults.plist"), ["volume": .double(0.3)])
        try shell("cd \(quoted(mount)) && ln -s ..2026_01 ..data && ln -s ..data/defaults.plist defaults.plist")
        let store = try openStore(directory, forced: directory.file("forced.plist"), defaults: defaults)
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.3)
        let changes = Recorder<ValueChange<Double>>()
        let token = store.observe(Self.volume) { changes.append($0) }
        try shell(
            "cd \(quoted(mount)) && mkdir ..2026_02 && cat > ..2026_02/defaults.plist && ln -s ..2026_02 ..data_tmp "
                + "&& mv -T ..data_tmp ..data && rm -r ..2026_01",
            input: try layerFileData(["volume": .double(0.35)]))
        #expect(await changes.wait(forCount: 1))
        #expect(changes.values.first?.newValue == 0.35)
        #expect(wrapper.wrappedValue == 0.35)
        token.cancel()
    }

    @Test func aForcedFileWhoseDirectoriesAppearLaterOrGoAndComeBackReachesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let system = directory.file("etc")
        let forced = system.appending(path: "xdg/app/forced.plist")  // neither etc nor xdg/app exists at open
        let store = try openStore(directory, forced: forced, defaults: directory.file("defaults.plist"))
        let wrapper = Stored(Self.volume, store: store)
        store.set(0.9, forKey: "volume")
        #expect(
            store.events { if case .layerFileUnreadable = $0 { true } else { false } }.isEmpty,
            "a missing directory is a missing layer, not an unreadable one")
        try shell(
            "mkdir -p \(quoted(system))/xdg/app && cat > \(quoted(forced)).tmp && mv \(quoted(forced)).tmp \(quoted(forced))",
            input: try layerFileData(["volume": .double(0.2)]))
        #expect(await waitUntil { wrapper.wrappedValue == 0.2 })
        #expect(store.isForced(forKey: "volume"))
        // The administrator removes the whole directory, then installs it again.
        try shell("rm -r \(quoted(system))")
        #expect(await waitUntil { wrapper.wrappedValue == 0.9 })
        #expect(!store.isForced(forKey: "volume"))
        try shell(
            "mkdir -p \(quoted(system))/xdg/app && cat > \(quoted(forced))", input: try layerFileData(["volume": .double(0.3)]))
        #expect(await waitUntil { wrapper.wrappedValue == 0.3 })
        #expect(store.isForced(forKey: "volume"))
    }

    @Test func aDefaultsFileWhoseDirectoryIsMadeLaterTellsObserversAndComesBackAfterItsRemoval() async throws {
        let directory = try TemporaryDirectory()
        let app = directory.file("config/app")  // as $XDG_CONFIG_HOME/app before the app's first run
        let defaults = app.appending(path: "defaults.plist")
        let store = try openStore(directory, forced: directory.file("forced.plist"), defaults: defaults)
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.5)
        let changes = Recorder<ValueChange<Double>>()
        let token = store.observe(Self.volume) { changes.append($0) }
        try shell("mkdir -p \(quoted(app)) && cat > \(quoted(defaults))", input: try layerFileData(["volume": .double(0.6)]))
        #expect(await changes.wait(forCount: 1))
        #expect(changes.values.first.map { ($0.oldValue, $0.newValue, $0.origin) } ?? (0, 0, .local) == (0.5, 0.6, .external))
        #expect(wrapper.wrappedValue == 0.6)
        try shell("rm -r \(quoted(app))")
        #expect(await waitUntil { wrapper.wrappedValue == 0.5 })
        try shell("mkdir \(quoted(app)) && cat > \(quoted(defaults))", input: try layerFileData(["volume": .double(0.7)]))
        #expect(await waitUntil { wrapper.wrappedValue == 0.7 })
        #expect(store.source(forKey: "volume") == .defaults(location: defaults.path(percentEncoded: false)))
        token.cancel()
    }

    @Test func aForcedFileWhoseAncestorIsMovedAsideAndInstalledAgainReachesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let system = directory.file("etc")
        let forced = system.appending(path: "xdg/app/forced.plist")
        try FileManager.default.createDirectory(at: system.appending(path: "xdg/app"), withIntermediateDirectories: true)
        try writeLayerFile(forced, ["volume": .double(0.2)])
        let store = try openStore(directory, forced: forced, defaults: directory.file("defaults.plist"))
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.2)
        // A package manager moves the old tree aside: the directory of the file is not removed or
        // moved itself, so its own watch hears nothing, yet the file is gone from its path.
        try shell("mv \(quoted(system)) \(quoted(directory.file("etc.old")))")
        #expect(await waitUntil { wrapper.wrappedValue == 0.5 })
        #expect(!store.isForced(forKey: "volume"))
        try shell(
            "mkdir -p \(quoted(system))/xdg/app && cat > \(quoted(forced))", input: try layerFileData(["volume": .double(0.3)]))
        #expect(await waitUntil { wrapper.wrappedValue == 0.3 })
        #expect(store.isForced(forKey: "volume"))
    }

    @Test func aSymlinkPointedAtAFileInAnotherDirectoryWatchesTheNewTarget() async throws {
        let directory = try TemporaryDirectory()
        let (first, second) = (directory.file("first"), directory.file("second"))
        for target in [first, second] { try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true) }
        try writeLayerFile(first.appending(path: "real.plist"), ["volume": .double(0.3)])
        try writeLayerFile(second.appending(path: "real.plist"), ["volume": .double(0.4)])
        let defaults = directory.file("defaults.plist")
        try FileManager.default.createSymbolicLink(at: defaults, withDestinationURL: first.appending(path: "real.plist"))
        let store = try openStore(directory, forced: directory.file("forced.plist"), defaults: defaults)
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.3)
        // Pointed elsewhere atomically; the first target's directory stays, so its watch is not lost.
        try shell(
            "ln -s \(quoted(second))/real.plist \(quoted(defaults)).new && mv -T \(quoted(defaults)).new \(quoted(defaults))")
        #expect(await waitUntil { wrapper.wrappedValue == 0.4 })
        try shell("cat > \(quoted(second))/real.plist", input: try layerFileData(["volume": .double(0.45)]))
        #expect(await waitUntil { wrapper.wrappedValue == 0.45 })
    }

    @Test func aLayerFileWrittenBetweenTheFirstReadAndItsWatchIsSeen() async throws {
        let directory = try TemporaryDirectory()
        // Not beside the user's file: the backend's watch of that directory would hear the edit.
        let site = directory.file("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let defaults = site.appending(path: "defaults.plist")
        try writeLayerFile(defaults, ["volume": .double(0.6)])
        let edit = try layerFileData(["volume": .double(0.65)])
        let path = defaults.path(percentEncoded: false)
        // Another process's edit lands right after the store's first read of the file, every time.
        PreferenceStore.afterFirstLayerRead.withLock { $0[path] = { _ = try? shell("cat > \(quoted(defaults))", input: edit) } }
        defer { _ = PreferenceStore.afterFirstLayerRead.withLock { $0.removeValue(forKey: path) } }
        let store = try openStore(directory, forced: directory.file("forced.plist"), defaults: defaults)
        #expect(await waitUntil { store[Self.volume] == 0.65 })
        #expect(try Data(contentsOf: defaults) == edit, "the edit ran")
    }

    @Test func aTypedObserverHearsTheUserValueChangeUnderAForcedValueThatDoesNotDecode() async throws {
        let directory = try TemporaryDirectory()
        let forced = directory.file("forced.plist")
        try writeLayerFile(forced, ["volume": .string("loud")])  // not a Double: reads fall through to the user's
        let user = try PreferenceStore(.plist(at: directory.file("user.plist")))
        user.set(0.8, forKey: "volume")
        try user.flush()
        let store = try openStore(directory, forced: forced, defaults: directory.file("defaults.plist"))
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.8)
        let typed = Recorder<ValueChange<Double>>()
        let token = store.observe(Self.volume) { typed.append($0) }
        // Another writer of the user's file, one without the forced layer (the key is locked here).
        user.set(0.9, forKey: "volume")
        try user.flush()
        #expect(await typed.wait(forCount: 1))
        #expect(typed.values.first.map { ($0.oldValue, $0.newValue, $0.origin) } ?? (0, 0, .local) == (0.8, 0.9, .external))
        #expect(wrapper.wrappedValue == 0.9)
        token.cancel()
    }

    @Test func anInPlaceEditOfTheFileASymlinkPointsToReachesTheStore() async throws {
        let directory = try TemporaryDirectory()
        let elsewhere = directory.file("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let target = elsewhere.appending(path: "real.plist")
        try writeLayerFile(target, ["volume": .double(0.3)])
        let defaults = directory.file("defaults.plist")
        try FileManager.default.createSymbolicLink(at: defaults, withDestinationURL: target)
        let store = try openStore(directory, forced: directory.file("forced.plist"), defaults: defaults)
        let wrapper = Stored(Self.volume, store: store)
        #expect(wrapper.wrappedValue == 0.3)
        try shell("cat > \(quoted(target))", input: try layerFileData(["volume": .double(0.4)]))
        #expect(await waitUntil { wrapper.wrappedValue == 0.4 })
    }

    @Test func aFileCorruptAtOpenIsEmptyAndOneCorruptLaterKeepsItsLastGoodContents() async throws {
        let directory = try TemporaryDirectory()
        let forced = directory.file("forced.plist")
        let defaults = directory.file("defaults.plist")
        try Data("<plist><dict><key>volume</key><real>0.".utf8).write(to: defaults)
        try writeLayerFile(forced, ["volume": .double(0.2)])
        let store = try openStore(directory, forced: forced, defaults: defaults)
        #expect(store.events { if case .layerFileUnreadable(_, _, keptLastGood: false) = $0 { true } else { false } }.count == 1)
        #expect(store.value(forKey: "other", as: Int.self) == nil)
        let events = Recorder<StoreEvent>()
        let listener = Task { for await event in store.diagnostics { events.append(event) } }
        try await Task.sleep(for: .milliseconds(50))
        try shell("printf '<plist><dict><key>volume</key><rea' > \(quoted(forced))")  // an administrator's typo
        #expect(
            await waitUntil {
                events.values.contains { if case .layerFileUnreadable(_, _, keptLastGood: true) = $0 { true } else { false } }
            })
        #expect(store[Self.volume] == 0.2)
        #expect(store.isForced(forKey: "volume"))
        listener.cancel()
    }

    @Test func aForcedFileAnyoneCanWriteIsReported() throws {
        let directory = try TemporaryDirectory()
        let forced = directory.file("forced.plist")
        try writeLayerFile(forced, ["volume": .double(0.2)])
        try shell("chmod 666 \(quoted(forced))")
        let store = try openStore(directory, forced: forced, defaults: directory.file("defaults.plist"))
        #expect(store.events { if case .forcedFileWritable = $0 { true } else { false } }.count == 1)
    }
}
