import Foundation
import Testing

@testable import StoredKit

/// One key in every layer: the highest wins, and removing layers one by one walks down the order
/// forced → arguments → environment → user → defaults (in order) → registered → key default.
@Suite("Layer precedence")
struct LayerPrecedenceTests {
    static let volume = StoredKey<Double>("volume", default: 0.01)

    /// The full stack over `backend`, leaving out the layers named in `without`.
    func stack(without: Set<String> = []) -> [PreferenceLayer] {
        var layers: [PreferenceLayer] = []
        // Given out of order on purpose: the order of the list does not matter, the kind does.
        if !without.contains("defaults1") { layers.append(.defaults(.memory(["volume": .double(0.6)], name: "site"))) }
        if !without.contains("environment") {
            layers.append(.environment(prefix: "MYAPP_", variables: ["MYAPP_VOLUME": "0.3", "OTHER": "1"]))
        }
        if !without.contains("forced") { layers.append(.forced(.memory(["volume": .double(0.1)], name: "policy"))) }
        if !without.contains("defaults2") { layers.append(.defaults(.memory(["volume": .double(0.7)], name: "vendor"))) }
        if !without.contains("arguments") { layers.append(.arguments(["/usr/bin/app", "-volume", "0.2"])) }
        return layers
    }

    @Test(arguments: ["plist", "sqlite"])
    func everyLayerRemovedOneByOne(kind: String) throws {
        let directory = try TemporaryDirectory()
        let userFile = directory.file("user.\(kind)")
        do {
            let store = try PreferenceStore(fileAt: userFile)
            store.set(0.4, forKey: "volume")
            try store.flush()
        }
        let expected: [(removed: String, value: Double, source: ValueSource)] = [
            ("", 0.1, .forced(location: "policy")),
            ("forced", 0.2, .arguments),
            ("arguments", 0.3, .environment(variable: "MYAPP_VOLUME")),
            ("environment", 0.4, .user),
            ("user", 0.6, .defaults(location: "site")),
            ("defaults1", 0.7, .defaults(location: "vendor")),
            ("defaults2", 0.8, .registered),
            ("registered", 0.01, .keyDefault),
        ]
        var removed: Set<String> = []
        for step in expected {
            removed.insert(step.removed)
            let backend: AnyBackend = kind == "plist" ? .plist(at: userFile) : .sqlite(at: userFile)
            let store = try PreferenceStore(backend, layers: stack(without: removed))
            if !removed.contains("registered") { store.register(defaults: ["volume": 0.8]) }
            if removed.contains("user") { store.removeValue(forKey: "volume") }
            let wrapper = Stored(Self.volume, store: store)
            #expect(wrapper.wrappedValue == step.value, "after removing \(step.removed)")
            #expect(store[Self.volume] == step.value)
            #expect(store.value(forKey: "volume", as: Double.self) == (step.source == .keyDefault ? nil : step.value))
            #expect(store.source(forKey: "volume") == step.source)
            #expect(wrapper.projectedValue.source == step.source)
            #expect(store.isForced(forKey: "volume") == (step.removed == ""))
            #expect(wrapper.projectedValue.isForced == (step.removed == ""))
            try store.transaction { tx in
                #expect(tx[Self.volume] == step.value)
            }
            try store.flush()
        }
    }

    @Test func theUsersValueStaysReadableUnderTheLayers() throws {
        let store = try PreferenceStore(MemoryBackend(), layers: stack(without: ["forced"]))
        store.set(0.9, forKey: "volume")
        #expect(store.value(forKey: "volume", as: Double.self) == 0.2)
        #expect(store.userValue(forKey: "volume", as: Double.self) == 0.9)
        #expect(store.hasValue(forKey: "volume"))
    }

    @Test func keysAndTheDictionaryShowEveryLayer() throws {
        let store = try PreferenceStore(
            MemoryBackend(),
            layers: [
                .forced(.memory(["locked": .bool(true)])), .arguments(["app", "-fromArgument", "x"]),
                .defaults(.memory(["fromDefaults": .int(1)])),
            ])
        store.set("mine", forKey: "own")
        store.set(2, forKey: "fromDefaults")
        store.removeValue(forKey: "fromDefaults")
        #expect(store.keys == ["fromArgument", "fromDefaults", "locked", "own"])
        try store.transaction { tx in
            tx.removeValue(forKey: "fromDefaults")  // the user's value goes; the defaults' stays
            #expect(tx.keys == ["fromArgument", "fromDefaults", "locked", "own"])
        }
        #expect(
            store.dictionaryRepresentation() == [
                "locked": .bool(true), "fromArgument": .string("x"), "fromDefaults": .int(1), "own": .string("mine"),
            ])
    }

    @Test func aValueThatDoesNotDecodeFallsThroughToTheNextLayerAndIsReported() throws {
        let store = try PreferenceStore(
            MemoryBackend(values: ["volume": .string("loud")]),
            layers: [
                .forced(.memory(["volume": .string("very loud")], name: "policy")),
                .arguments(["app", "-volume", "not a number"]),
                .defaults(.memory(["volume": .double(0.6)], name: "site")),
            ])
        #expect(Stored(Self.volume, store: store).wrappedValue == 0.6)
        #expect(store.value(forKey: "volume", as: Double.self) == 0.6)
        let skipped = store.events {
            if case .layerValueUnreadable(key: "volume", _, _) = $0 { true } else { false }
        }
        #expect(skipped.count >= 2)
        #expect(skipped.contains { "\($0)".contains("policy") })
        #expect(skipped.contains { "\($0)".contains("not a number") })
        #expect(store.recentEvents.contains { if case .decodingFailed(key: "volume", _, _) = $0 { true } else { false } })
    }

    @Test func observersHearOnlyChangesOfTheEffectiveValue() async throws {
        let store = try PreferenceStore(
            MemoryBackend(), layers: [.arguments(["app", "-volume", "0.2"]), .defaults(.memory(["speed": .int(3)]))])
        let changes = Recorder<ValueChange<Double>>()
        let token = store.observe(Self.volume) { changes.append($0) }
        let speedChanges = Recorder<Change>()
        let speedToken = store.observe("speed") { speedChanges.append($0) }
        store.set(0.9, forKey: "volume")  // hidden by the argument: no change to see
        store.set(5, forKey: "speed")  // above the defaults: a change
        #expect(changes.values.isEmpty)
        #expect(speedChanges.values.map(\.newValue) == [.int(5)])
        store.removeValue(forKey: "speed")  // back to the defaults' 3
        #expect(speedChanges.values.map(\.newValue) == [.int(5), .int(3)])
        #expect(store.value(forKey: "volume", as: Double.self) == 0.2)
        #expect(
            store.recentEvents.filter { if case .writeOverridden(key: "volume", source: .arguments) = $0 { true } else { false } }
                .count == 1)
        store.set(0.8, forKey: "volume")  // reported once per key
        #expect(
            store.recentEvents.filter { if case .writeOverridden(key: "volume", _) = $0 { true } else { false } }.count == 1)
        token.cancel()
        speedToken.cancel()
    }

    @Test func valuesStreamStartsWithTheEffectiveValue() async throws {
        let store = try PreferenceStore(MemoryBackend(), layers: [.environment(prefix: "T_", variables: ["T_VOLUME": "0.25"])])
        var iterator = store.values(for: Self.volume).makeAsyncIterator()
        #expect(await iterator.next() == 0.25)
    }
}
