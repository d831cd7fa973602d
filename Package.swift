// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "StoredKit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StoredKit", targets: ["StoredKit"]),
        .executable(name: "stored-demo", targets: ["stored-demo"]),
        .executable(name: "stored-bench", targets: ["StoredBenchmarks"]),
    ],
    targets: [
        .systemLibrary(
            name: "CStoredSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "StoredKit", dependencies: ["CStoredSQLite"]),
        .executableTarget(name: "stored-demo", dependencies: ["StoredKit"]),
        .executableTarget(
            name: "StoredBenchmarks",
            dependencies: ["StoredKit"],
            path: "Benchmarks/StoredBenchmarks"
        ),
        .testTarget(name: "StoredKitTests", dependencies: ["StoredKit"]),
    ],
    swiftLanguageModes: [.v6]
)
