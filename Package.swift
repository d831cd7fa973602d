// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "StoredKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StoredKit", targets: ["StoredKit"]),
        .library(name: "StoredKitPostgres", targets: ["StoredKitPostgres"]),
        .library(name: "TabKit", targets: ["TabKit"]),
        .library(name: "StoredKitConformance", targets: ["StoredKitConformance"]),
        .executable(name: "stored", targets: ["stored"]),
        .executable(name: "stored-demo", targets: ["stored-demo"]),
        .executable(name: "stored-bench", targets: ["StoredBenchmarks"]),
    ],
    targets: [
        .systemLibrary(
            name: "CStoredSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CStoredPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // The engine, values, @Stored, and the memory, plist and SQLite backends: SQLite is its only C library.
        .target(name: "StoredKit", dependencies: ["CStoredSQLite"]),
        // The PostgreSQL backend, its own product so that only programs that `import StoredKitPostgres` link libpq.
        .target(name: "StoredKitPostgres", dependencies: ["StoredKit", "CStoredPostgres"]),
        .target(name: "StoredKitConformance", dependencies: ["StoredKit"]),
        .target(name: "TabKit"),
        .executableTarget(name: "stored", dependencies: ["StoredKit", "StoredKitPostgres"]),
        // The demo runs on an embedded SQLite store, or (`--shared URL --replica FILE`) on a local replica of a
        // PostgreSQL namespace, so it links libpq too.
        .executableTarget(name: "stored-demo", dependencies: ["StoredKit", "StoredKitPostgres", "TabKit"]),
        // Per-thread allocation (malloc interposed) and instruction counts: linked into stored-bench only.
        .target(name: "CBenchmarkCounters", path: "Benchmarks/CBenchmarkCounters"),
        .executableTarget(
            name: "StoredBenchmarks",
            dependencies: [
                "StoredKit", "StoredKitPostgres", "CBenchmarkCounters", "CStoredPostgres", "StoredKitTestSupport",
            ],
            path: "Benchmarks/StoredBenchmarks"
        ),
        // What the tests, the torture tool, the benchmark and the fuzz targets share: seeded randomness, fixtures,
        // generated values, temporary directories, the built executables, a throwaway PostgreSQL server.
        .target(name: "StoredKitTestSupport", dependencies: ["StoredKit"], path: "Tests/StoredKitTestSupport"),
        .testTarget(
            name: "StoredKitTests",
            dependencies: ["StoredKit", "StoredKitPostgres", "StoredKitConformance", "StoredKitTestSupport"],
            exclude: ["ForeignFiles"]  // read from the source tree by ForeignFileTests
        ),
        .testTarget(name: "TabKitTests", dependencies: ["TabKit", "StoredKit", "StoredKitTestSupport", "stored-demo"]),
        .executableTarget(
            name: "stored-test-helper", dependencies: ["StoredKit", "StoredKitPostgres"], path: "Tests/StoredTestHelper"),
        // stored-test-helper makes the offline replicas that `stored sync`, `info` and `check` are tested on.
        .testTarget(name: "StoredCLITests", dependencies: ["StoredKitTestSupport", "stored", "stored-test-helper"]),
        .executableTarget(
            name: "stored-torture", dependencies: ["StoredKit", "StoredKitPostgres", "StoredKitTestSupport"],
            path: "Tests/StoredTorture"),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["StoredKit", "StoredKitPostgres", "StoredKitTestSupport", "stored-test-helper", "stored-torture"]),
        // Every code example of the DocC articles (Sources/*/*.docc), compiled and run by `make test`.
        .testTarget(
            name: "DocumentationExamplesTests",
            dependencies: [
                "StoredKit", "StoredKitPostgres", "StoredKitConformance", "StoredKitTestSupport", "TabKit", "stored",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
