import StoredKit
import StoredKitPostgres

/// The lines `stored sync` prints of a report: one per key, then the summary.
///
/// ```swift
/// SyncPrinter(report: report, console: Console()).printKeys()  //=> sent volume: 0.8
/// ```
struct SyncPrinter {
    let report: SyncReport
    let console: Console

    var refusedKeys: [String] {
        report.sent.values.filter { if case .refused = $0.outcome { true } else { false } }.map(\.key).sorted()
    }

    func printKeys() {
        for upload in report.sent.values.sorted(by: { $0.key < $1.key }) {
            let line = "\(ValuePrinter.keyText(upload.key)): \(shown(upload.value))"
            switch upload.outcome {
            case .applied: console.print("sent \(line)")
            case .clamped:
                console.print("sent \(line) (stamped at the server's clock: this machine's clock is ahead)")
            case .lost:
                let winner = report.received[upload.key].map { " holds \(shown($0))" } ?? " holds the key"
                console.print("lost \(line) (a change made later elsewhere\(winner))")
            case .refused(let reason): console.print("refused \(line) (\(reason))")
            case .superseded:
                console.print(
                    "skipped \(line) (a migration another replica brought to the server first; the server's value stands)")
            case .notApplied:
                console.print("sent \(line) (not applied: the server holds a later write, or this one already)")
            }
        }
        for key in report.lostUnsent.sorted() {
            let winner = report.received[key].map { " holds \(shown($0))" } ?? " holds the key"
            console.print("lost \(ValuePrinter.keyText(key)) (not sent: a change made later elsewhere\(winner))")
        }
        for (key, value) in report.received.sorted(by: { $0.key < $1.key }) {
            // Said with the write that lost.
            if report.sent[key]?.outcome == .lost || report.lostUnsent.contains(key) { continue }
            console.print("received \(ValuePrinter.keyText(key)): \(shown(value))")
        }
    }

    func printSummary(_ what: String, pending: Int) {
        let outcomes = report.sent.values.map(\.outcome)
        let lostSent = outcomes.filter { $0 == .lost }.count
        let lost = lostSent + report.lostUnsent.count
        let refused = refusedKeys.count
        let sent = outcomes.count - lostSent - refused
        // The winner of a write that lost is told on its line, not as received.
        let received = report.received.keys.filter {
            report.sent[$0]?.outcome != .lost && !report.lostUnsent.contains($0)
        }.count
        let waiting = pending == 0 ? "nothing waits" : "\(pending) write\(pending == 1 ? " waits" : "s wait") in the replica"
        console.print(
            "\(what): \(sent) sent, \(lost) lost to later writes, \(refused) refused, \(received) received; \(waiting).")
    }

    private func shown(_ value: StoredValue?) -> String { value.map(ValuePrinter.oneLine) ?? "(removed)" }
}
