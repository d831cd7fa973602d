import Foundation
import StoredKit

// stored-torture: reliability scenarios for StoredKit, each printing one figure line per
// configuration and exiting non-zero when any loss, corruption or crash figure is not zero.
// `--child ...` runs one side of a scenario in a child process (spawned by the parent).

let usage = """
    usage: stored-torture SCENARIO [COUNT] [--backend plist|sqlite|postgres,...] [--postgres URL] [--seed N]
      kill [TRIALS=1000] [--durability deferred|immediate]   kill -9 a writer at random moments
      contention [COUNT=1000] [--processes 8]                 P processes × COUNT updates / keys
      server-restart [RESTARTS=100]                           restart PostgreSQL (-m immediate) under writers and observers
      corruption [FLIPS=1000] [--step 1]                      every-offset truncation + FLIPS bit-flip cases
      faults [CASES=50]                                       disk full, read-only directory, fsync failure, short writes
      migration [TRIALS=200]                                  kill -9 during a migration
      replace [TRIALS=200]                                    mv a backup over / rm the file while a writer has it open
      exit [PROCESSES=1000]                                   processes exiting at random moments of a PostgreSQL store (TCP, TLS, down, silent)
      replica-soak [SECONDS=10] [--rate 50] [--processes 3]  offline replicas writing under cuts, silences, server crashes, kill -9
      all [--small]                                           every scenario (small counts with --small)
    PostgreSQL scenarios use --postgres URL, else $STOREDKIT_POSTGRES_URL, else a throwaway server they
    start (Scripts/postgres-test-server.sh); server-restart and replica-soak always start their own.
    """

// SIGINT and SIGTERM end it (and its children) through StoredKit's exit sequence: 130, 143.
TerminationSignals.endThroughExitSequence()
// Children, scratch directories and servers of its own end with it, however it ends.
endWithTheTool()
let arguments = Array(CommandLine.arguments.dropFirst())

func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func count(default value: Int) -> Int {
    arguments.count > 1 ? Int(arguments[1]) ?? value : value
}

if arguments.first == "--child" {
    do {
        try ChildCommand.run(Array(arguments.dropFirst()))
        exit(0)
    } catch {
        complain("child \(arguments.dropFirst().first ?? ""): \(error)")
        exit(3)
    }
}

// `--backend plist,sqlite` picks several.
let backends = option("--backend").map { Set($0.split(separator: ",").map(String.init)) }
let kinds = StoreKind.allCases.filter { backends?.contains($0.rawValue) ?? true }
let includesPostgres = backends?.contains("postgres") ?? true

/// The server of the PostgreSQL scenarios, started on first use when none is given, and
/// released (a throwaway one stopped) at exit: globals are never deinitialised otherwise.
nonisolated(unsafe) var givenServer: TortureServer?
func postgresServer() throws -> TortureServer {
    if let givenServer { return givenServer }
    let server = try TortureServer(url: option("--postgres") ?? ProcessInfo.processInfo.environment["STOREDKIT_POSTGRES_URL"])
    givenServer = server
    atexit { givenServer = nil }
    return server
}

/// What `kill` and `contention` run against: the files `--backend` picks, then PostgreSQL,
/// whose server starts only when its turn comes.
func tortureBackends() -> [TortureBackend] {
    kinds.map(TortureBackend.file) + (includesPostgres ? [.postgres(server: postgresServer)] : [])
}

func killTrials(_ trials: Int, durabilities: [String]) throws -> Bool {
    try KillScenario.run(trials: trials, backends: tortureBackends(), durabilities: durabilities)
}

func contention(processes: Int, count: Int) throws -> Bool {
    try ContentionScenario.run(processes: processes, count: count, backends: tortureBackends())
}

/// `replica-soak`: its own server; `--rate` writes/s in all over `--processes` children.
func replicaSoak(seconds: Int) throws -> Bool {
    let rate = option("--rate").flatMap(Int.init) ?? 50
    let processes = option("--processes").flatMap(Int.init) ?? 3
    return try ReplicaSoakScenario.run(seconds: seconds, rate: rate, processes: processes, seed: seed)
}

let seed = option("--seed").flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))
let small = arguments.contains("--small")

do {
    let passed: Bool
    switch arguments.first {
    case "kill":
        let durabilities = option("--durability").map { [$0] } ?? ["deferred", "immediate"]
        passed = try killTrials(count(default: 1000), durabilities: durabilities)
    case "contention":
        let processes = option("--processes").flatMap(Int.init) ?? 8
        passed = try contention(processes: processes, count: count(default: 1000))
    case "corruption":
        let step = option("--step").flatMap(Int.init) ?? 1
        let samples =
            option("--backend") == "plist"
            ? [.plistXML, .plistBinary] : option("--backend") == "sqlite" ? [.sqlite] : SampleStore.allCases
        say("corruption seed \(seed)")
        passed = try CorruptionScenario.run(flips: count(default: 1000), step: max(step, 1), seed: seed, samples: samples)
    case "faults":
        say("faults seed \(seed)")
        passed = try FaultScenario.run(cases: count(default: 50), seed: seed)
    case "exit":
        say("exit seed \(seed)")
        passed = try ExitScenario.run(trials: count(default: 1000), seed: seed, server: postgresServer())
    case "server-restart":
        passed = try ServerRestartScenario.run(restarts: count(default: 100), server: TortureServer(url: nil))
    case "replica-soak":
        say("replica-soak seed \(seed)")
        passed = try replicaSoak(seconds: count(default: 10))
    case "migration":
        passed = try MigrationCrashScenario.run(trials: count(default: 200), kinds: kinds)
    case "replace":
        passed = try ReplaceScenario.run(trials: count(default: 200), kinds: kinds)
    case "all":
        say("seed \(seed)")
        let results = [
            try killTrials(small ? 8 : 1000, durabilities: ["deferred", "immediate"]),
            try contention(processes: small ? 3 : 8, count: small ? 30 : 1000),
            try CorruptionScenario.run(flips: small ? 40 : 1000, step: small ? 61 : 1, seed: seed, samples: SampleStore.allCases),
            try FaultScenario.run(cases: small ? 3 : 50, seed: seed),
            try MigrationCrashScenario.run(trials: small ? 6 : 200, kinds: kinds),
            try ReplaceScenario.run(trials: small ? 8 : 200, kinds: kinds),
            try !includesPostgres || ServerRestartScenario.run(restarts: small ? 2 : 100, server: TortureServer(url: nil)),
            try !includesPostgres || ExitScenario.run(trials: small ? 40 : 1000, seed: seed, server: postgresServer()),
            try !includesPostgres || replicaSoak(seconds: small ? 3 : 300),
        ]
        passed = !results.contains(false)
    default:
        say(usage)
        exit(arguments.isEmpty || arguments.first == "--help" ? 0 : 64)
    }
    exit(passed ? 0 : 1)
} catch {
    complain("\(error)")
    exit(2)
}
