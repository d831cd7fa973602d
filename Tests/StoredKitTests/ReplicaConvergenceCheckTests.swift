import StoredKitTestSupport
import Testing

/// The check `ReplicaConvergenceTests` and `stored-torture replica-soak` end with
/// (Tests/StoredKitTestSupport/ReplicaConvergence.swift): its zero figures mean something only if
/// a replica that differs, a server that kept an older write, or an outbox not empty are counted.
@Suite("The replicas' convergence check")
struct ReplicaConvergenceCheckTests {
    typealias Check = ReplicaConvergence

    static let writes = [
        "w k1 a", "s k1 a 100 0 AAAA", "s k1 b 100 0 BBBB", "s k2 c 90 3 AAAA", "s k2 - 95 0 BBBB", "l k3 x",
    ].compactMap(Check.Write.init)

    static func row(_ key: String, _ value: String?, _ ms: Int64, _ counter: Int64, _ replica: String) -> Check.ServerRow {
        Check.ServerRow(
            key: key, value: value, stampMs: ms, stampCounter: counter, stampReplica: replica, revision: 1, writtenAt: "")
    }

    /// k1: the tie at 100.0 goes to the higher replica id (b); k2: the later removal.
    static let rows = ["k1": [row("k1", "b", 100, 0, "BBBB")], "k2": [row("k2", nil, 95, 0, "BBBB")]]
    static let agreeing = Check.Dump(values: ["k1": "b"], stamps: ["k1": "100 0 BBBB"], pending: 0)

    @Test func replicasHoldingTheServersLastWritesPass() {
        #expect(Self.writes.count == 4, "only the s lines are writes")
        let check = Check(
            keys: ["k1", "k2", "k3"], writes: Self.writes, serverRows: Self.rows, replicas: [Self.agreeing, Self.agreeing])
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.lastWrites["k1"]?.value == "b")
        #expect(check.lastWrites["k2"]?.value == nil)
    }

    @Test func aReplicaHoldingAnotherValueOrStampIsDivergent() {
        let other = Check.Dump(values: ["k1": "b", "k2": "c"], stamps: ["k1": "100 0 AAAA", "k2": "90 3 AAAA"], pending: 0)
        let check = Check(keys: ["k1", "k2"], writes: Self.writes, serverRows: Self.rows, replicas: [Self.agreeing, other])
        #expect(check.divergentKeys == ["k1", "k2"])
        #expect(check.keysNotHoldingLastWrite.isEmpty)
    }

    @Test func aServerHoldingAnOlderWriteIsCounted() {
        let older = ["k1": [Self.row("k1", "a", 100, 0, "AAAA")], "k2": [Self.row("k2", "c", 90, 3, "AAAA")]]
        let dump = Check.Dump(values: ["k1": "a", "k2": "c"], stamps: ["k1": "100 0 AAAA", "k2": "90 3 AAAA"], pending: 0)
        let check = Check(keys: ["k1", "k2"], writes: Self.writes, serverRows: older, replicas: [dump])
        #expect(check.keysNotHoldingLastWrite == ["k1", "k2"])
        #expect(check.divergentKeys.isEmpty)
    }

    @Test func pendingWritesAreCountedAndDumpsReadBack() {
        let pending = Check.Dump(values: ["k1": "b"], stamps: ["k1": "100 0 BBBB"], pending: 2)
        #expect(Check.Dump(pending.lines) == pending)
        let check = Check(keys: ["k1"], writes: Self.writes, serverRows: Self.rows, replicas: [pending])
        #expect(check.pending == 2)
        #expect(check.problems == ["replica 0 still has 2 pending"])
    }
}
