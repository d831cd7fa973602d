import Foundation
import StoredKit

#if canImport(Glibc)
    import Glibc
#endif

/// The file replaced while open: a child writes in a loop (`write-loop`, immediate) and
/// acknowledges each durable write; at a random moment the parent moves a backup over the file
/// (`mv backup prefs`, odd trials) or deletes it (`rm prefs`, even trials), waits for three more
/// acknowledgements, kills the child and reopens the path with `corruption: .fail`.
///
/// Every write acknowledged after the replacement must be in the file that has the name (`n` ≥
/// the last acknowledged value), the backup's own key must be there (not overwritten by the old
/// file's write-ahead log), and the file must open.
enum ReplaceScenario {
    static func run(trials: Int, kinds: [StoreKind]) throws -> Bool {
        try runEach(kinds) { kind in try runTrials(trials, kind: kind) }
    }

    private static func runTrials(_ trials: Int, kind: StoreKind) throws -> FigureLine {
        var lost = 0
        var backupsLost = 0
        var corrupt = 0
        var errors = 0
        var acknowledgedAfter = 0
        let directory = try ScratchDirectory("replace")
        let path = directory.file(kind.fileName)
        let backup = directory.file("backup." + kind.rawValue)
        for trial in 0..<trials {
            try directory.clear()
            let replacing = trial % 2 == 1
            if replacing { try makeBackup(backup, marker: trial) }
            let child = try ChildProcess(["write-loop", path, "immediate"])
            // The first acknowledged write: the file exists from then on.
            guard child.readLines(timeout: .seconds(60), until: { Int($0) != nil }) else {
                throw TortureError("the writer did not start: \(child.lines)")
            }
            child.readLines(timeout: .milliseconds(Int.random(in: 0...50)))
            let seen = child.lines.count
            let moved = replacing ? rename(backup, path) : unlink(path)
            guard moved == 0 else { throw TortureError("could not replace '\(path)': errno \(errno)") }
            let continued = child.readLines(timeout: .seconds(30)) { _ in child.lines.count >= seen + 3 }
            child.killHard()
            guard continued else {
                errors += 1
                complain("\(kind) trial \(trial): the writer stopped after the replacement: \(child.lines.suffix(3))")
                continue
            }
            let acknowledged = child.lines.compactMap { Int($0) }.max() ?? 0
            acknowledgedAfter += child.lines.count - seen
            do {
                let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path), corruption: .fail)
                let stored = store.value(forKey: "n", as: Int.self) ?? 0
                if stored < acknowledged {
                    lost += 1
                    complain("\(kind) trial \(trial): stored \(stored), acknowledged \(acknowledged)")
                }
                if replacing, store.value(forKey: "restored", as: Int.self) != trial {
                    backupsLost += 1
                    let keys = store.dictionaryRepresentation().keys.sorted()
                    complain("\(kind) trial \(trial): the backup's key is gone: \(keys)")
                }
            } catch StoreError.corruptFile(_, let reason, _) {
                corrupt += 1
                complain("\(kind) trial \(trial): corrupt after the replacement: \(reason)")
            } catch {
                errors += 1
                complain("\(kind) trial \(trial): reopen failed: \(error)")
            }
        }
        var line = FigureLine("replaced-while-open \(kind)")
        let moves = trials / 2
        line.info("\(trials) trials (\(moves) mv, \(trials - moves) rm; \(acknowledgedAfter) writes acknowledged after)")
        line.mustBeZero(lost, "acknowledged writes lost")
        line.mustBeZero(backupsLost, "backups overwritten")
        line.mustBeZero(corrupt, "corrupt")
        line.mustBeZero(errors, "errors")
        return line
    }

    /// A closed store file holding only `restored`, to move over the open one.
    private static func makeBackup(_ path: String, marker: Int) throws {
        let store = try PreferenceStore(fileAt: URL(fileURLWithPath: path), durability: .immediate)
        store.set(marker, forKey: "restored")
        try store.flush()
    }
}
