import Foundation
import Testing

@testable import StoredKit
@testable import StoredKitPostgres

/// The `v2` notification payload that carries a commit's changes: what a writer builds, what a
/// listener reads back, and what it refuses (so it reads from the server instead). No server.
@Suite("PostgreSQL commit notices")
struct PostgresCommitNoticeTests {
    @Test func changesAndRemovalsReadBackExactly() throws {
        let changes = BackendChanges(values: [
            "a": .int(1), "gone": nil, "$tag": .dictionary(["$date": .int(1)]), "name with space": .string("x\u{0}y"),
            "nan": .double(Double(nan: 5, signaling: false)), "big": .uint(.max),
        ])
        let tail = try #require(PostgresCommitNotice.tail(for: changes, namespace: "user 42:é"))
        let (namespace, notice) = try #require(PostgresCommitNotice.parse("v2 8 7 " + tail))
        #expect(namespace == "user 42:é")
        #expect(notice.revision == 8 && notice.previous == 7)
        let read = try #require(notice.changes())
        #expect(read.values.count == changes.values.count)
        for (key, value) in changes.values { #expect(read.values[key] == .some(value), "\(key)") }
    }

    /// Seen under load: a backend heard another's commit 1, caught up past it with commits of its
    /// own (revision 3), and a load before the next commit's notification came took itself for
    /// current and skipped the read, missing a commit that had returned before it was called.
    @Test func aLoadWithNothingHeardBeyondItsRevisionReads() throws {
        let backend = PostgresBackend(url: "postgresql://app@127.0.0.1:1/prefs", namespace: "n")
        var state = PostgresBackend.State()
        state.cached = BackendSnapshot(values: ["mine": .int(1)])
        state.revision = 3
        backend.heardSinceLoad.withLock { heard in
            heard.notices = [PostgresCommitNotice(revision: 1, previous: 0, changesText: "{}")]
            heard.newest = 1
        }
        #expect(!backend.applyHeardCommits(&state), "a load no notification asked for reads")
        #expect(state.revision == 3)
    }

    @Test func aLoneKeyThatLooksLikeATagReadsBack() throws {
        let changes = BackendChanges(values: ["$date": .string("not a date")])
        let tail = try #require(PostgresCommitNotice.tail(for: changes, namespace: "n"))
        let read = try #require(PostgresCommitNotice.parse("v2 2 1 " + tail)?.notice.changes())
        #expect(read.values["$date"] == .some(.string("not a date")))
        #expect(read.values.count == 1)
    }

    @Test func theOlderFormAndAnythingUnknownAreNotNotices() {
        #expect(PostgresCommitNotice.parse("8 user:42") == nil)
        #expect(PostgresCommitNotice.parse("v3 8 7 7 user:42{}") == nil)
        #expect(PostgresCommitNotice.parse("v2 8 7 99 user:42{}") == nil)
        #expect(PostgresCommitNotice.parse("v2 8 x 7 user:42{}") == nil)
        #expect(PostgresCommitNotice.parse("") == nil)
    }

    @Test func changesThatDoNotReadAreRefused() throws {
        for text in [#"{"set":{"a":"#, #"{"other":1}"#, #"{"removed":[1]}"#, "[]", "{}", #"{"set":{"a":1},"removed":["a"]}"#] {
            let (_, notice) = try #require(PostgresCommitNotice.parse("v2 2 1 1 n" + text))
            #expect(notice.changes() == nil, "\(text)")
        }
    }

    @Test func largeCommitsAndSchemaChangesTravelWithoutTheirChanges() {
        let large = BackendChanges(values: ["big": .string(String(repeating: "x", count: 7_000))])
        #expect(PostgresCommitNotice.tail(for: large, namespace: "n") == nil)
        let manyKeys = BackendChanges(values: Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("key\($0)", .some(.int(1))) }))
        #expect(PostgresCommitNotice.tail(for: manyKeys, namespace: "n") == nil)
        let nested = StoredValue.array((0..<5_000).map { _ in .array([.data(Data(count: 10))]) })
        #expect(PostgresCommitNotice.tail(for: BackendChanges(values: ["nested": nested]), namespace: "n") == nil)
        #expect(PostgresCommitNotice.tail(for: BackendChanges(values: ["a": .int(1)], schemaVersion: 2), namespace: "n") == nil)
        let fits = BackendChanges(values: ["a": .string(String(repeating: "x", count: 6_000))])
        let tail = PostgresCommitNotice.tail(for: fits, namespace: String(repeating: "n", count: 800))
        #expect((tail?.utf8.count ?? .max) <= PostgresCommitNotice.tailBudget)
    }
}
