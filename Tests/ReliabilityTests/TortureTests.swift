import Foundation
import StoredKitTestSupport
import Testing

/// Each `stored-torture` scenario at a small count: the binary exits non-zero on any loss,
/// corruption or crash, and every figure it prints that must be zero is zero.
/// RELIABILITY.md has the full-size runs. The file backends here; PostgreSQL in
/// ``PostgresTortureTests``, which need the test server.
@Suite("stored-torture at small counts", .serialized)
struct TortureTests {
    @Test func killedWritersLoseNothing() throws {
        let run = try TortureRun(["kill", "6", "--backend", "plist,sqlite"])
        #expect(run.lines.count == 4)
        run.expectClean()
    }

    @Test func contendingProcessesLoseNoUpdate() throws {
        let run = try TortureRun(["contention", "25", "--processes", "3", "--backend", "plist,sqlite"])
        #expect(run.lines.count == 6)
        #expect(run.lines.filter { $0.contains("75 of 75 present") }.count == 4)
        run.expectClean()
    }

    /// Regression: several processes opening one new SQLite file at once saw another's tables
    /// before its application ID and refused the file as "not a StoredKit database".
    @Test func processesCreatingOneFileAllOpenIt() throws {
        let run = try TortureRun(["contention", "150", "--processes", "6", "--backend", "sqlite"])
        let line = try #require(run.lines.first { $0.hasPrefix("contention sqlite creation") })
        #expect(line.contains("15 rounds × 6 processes"))
        #expect(line.contains("0 failed opens"))
        run.expectClean()
    }

    @Test func damagedFilesNeverCrash() throws {
        let run = try TortureRun(["corruption", "25", "--step", "97", "--seed", "9"])
        #expect(run.lines.count == 3)
        run.expectClean()
    }

    /// Also shows the fault seam works: with STOREDKIT_FAULTS=fsync-fail every write fails.
    @Test func failingWritesKeepThePreviousData() throws {
        let run = try TortureRun(["faults", "2", "--seed", "9"])
        #expect(run.lines.count >= 8)
        let seam = try #require(run.lines.first { $0.hasPrefix("faults fsync fails (seam) plist") })
        #expect(seam.contains("0 written, 2 failed"))
        run.expectClean()
    }

    @Test func killedMigrationsAreAllOrNothing() throws {
        let run = try TortureRun(["migration", "4"])
        #expect(run.lines.count == 2)
        run.expectClean()
    }

    @Test func aFileReplacedWhileOpenLosesNoAcknowledgedWrite() throws {
        let run = try TortureRun(["replace", "4"])
        #expect(run.lines.count == 2)
        run.expectClean()
    }
}

/// One run of the `stored-torture` binary built next to the tests.
struct TortureRun {
    let lines: [String]
    let status: Int32

    /// The binary, built by `swift test` next to the test bundle.
    static func executable() throws -> URL { try BuiltExecutable.url(named: "stored-torture") }

    init(_ arguments: [String]) throws {
        let (status, output) = try ExternalCommand.run(try Self.executable().path, arguments)
        self.status = status
        // Figure lines only: the seed lines say how to replay a run.
        lines = output.split(separator: "\n").map(String.init).filter { !$0.contains("seed") }
    }

    /// Exit status 0, no line marked FAILED, and every "N lost/corrupt/crashes/..." figure zero.
    func expectClean(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 0, "stored-torture failed:\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
        for line in lines {
            #expect(!line.contains("FAILED"), "\(line)", sourceLocation: sourceLocation)
            for figure in ["corrupt", "lost", "torn", "crashes", "in between", "not intact", "unclear", "leftover"] {
                let nonZero = line.split(separator: ",").contains { part in
                    let words = part.split(separator: " ")
                    return part.contains(figure) && words.first.flatMap { Int($0) }.map { $0 != 0 } == true
                }
                #expect(!nonZero, "\(figure) in: \(line)", sourceLocation: sourceLocation)
            }
        }
    }
}
