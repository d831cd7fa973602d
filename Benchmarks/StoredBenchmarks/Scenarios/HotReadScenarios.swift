import Foundation
import StoredKit
import StoredKitTestSupport

/// Reads of values that did not change since the last read: the `@Stored` fast path.
enum HotReadScenarios {
    static var all: [Scenario] { [int, codable, sqliteStore] }

    /// A settings type as an app writes it.
    struct Settings {
        @Stored var count: Int
        @Stored var customization: SidebarCustomization

        init(store: PreferenceStore) {
            _count = Stored(wrappedValue: 0, "count", store: store)
            _customization = Stored(wrappedValue: .twentyTabs(revision: 0), "customization", store: store)
        }
    }

    static var int: Scenario {
        Scenario(
            name: "hot-read.int", group: "hot read",
            measures: "Reading an Int that has not changed since the last read, in a tight loop.",
            subject: "@Stored<Int> read",
            baselines: [Baseline("userdefaults", "UserDefaults.integer(forKey:)", goal: .faster(50, source: "issue 2"))]
        ) { context in
            let settings = Settings(store: PreferenceStore.inMemory())
            settings.count = 42
            let subject = context.harness.measure { count in
                for _ in 0..<count { blackHole(settings.count) }
            }
            let baseline = try TemporaryDefaults.with { defaults in
                defaults.set(42, forKey: "count")
                return context.harness.measure { count in
                    for _ in 0..<count { blackHole(defaults.integer(forKey: "count")) }
                }
            }
            return ScenarioOutcome(subject: .measured(subject), baselines: ["userdefaults": .measured(baseline)])
        }
    }

    static var codable: Scenario {
        Scenario(
            name: "hot-read.codable", group: "hot read",
            measures: "Reading an unchanged 20-tab TabViewCustomization-like Codable value (cached, not decoded again).",
            subject: "@Stored<TabCustomization> read",
            baselines: [
                Baseline(
                    "userdefaults-json", "UserDefaults.string(forKey:) + JSONDecoder().decode per read",
                    goal: .faster(100, source: "issue 2"))
            ]
        ) { context in
            let value = SidebarCustomization.twentyTabs(revision: 1)
            let settings = Settings(store: PreferenceStore.inMemory())
            settings.customization = value
            guard settings.customization == value else {
                throw BenchmarkError.unexpected("the Codable value did not round-trip through the store")
            }
            let subject = context.harness.measure { count in
                for _ in 0..<count { blackHole(settings.customization) }
            }
            let json = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            let baseline = try TemporaryDefaults.with { defaults in
                defaults.set(json, forKey: "customization")
                return try context.harness.measure { count in
                    for _ in 0..<count {
                        let text = defaults.string(forKey: "customization") ?? ""
                        blackHole(try JSONDecoder().decode(SidebarCustomization.self, from: Data(text.utf8)))
                    }
                }
            }
            return ScenarioOutcome(subject: .measured(subject), baselines: ["userdefaults-json": .measured(baseline)])
        }
    }

    static var sqliteStore: Scenario {
        Scenario(
            name: "hot-read.int.sqlite", group: "hot read",
            measures: "Reading an unchanged Int through a store on an SQLite file, against SQLite itself.",
            subject: "@Stored<Int> read (SQLite store)",
            baselines: [Baseline("raw-select", "raw prepared SELECT of one key", goal: .faster(50, source: "issue 4"))],
            requires: .sqlite
        ) { context in
            let directory = try context.makeDirectory("hot-read-sqlite")
            let subject = try Side.subject(on: .file(.sqlite)) {
                let settings = Settings(store: try FileStoreKind.sqlite.openStore(in: directory))
                settings.count = 42
                try settings.$count.store.flush()
                return context.harness.measure { count in
                    for _ in 0..<count { blackHole(settings.count) }
                }
            }
            return ScenarioOutcome(subject: subject, baselines: ["raw-select": try RawSQLiteBaseline.preparedSelect(context)])
        }
    }
}
