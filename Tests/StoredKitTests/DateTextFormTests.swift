import Foundation
import Testing

@testable import StoredKit

/// The documented text form of dates in SQLite's `value` column and in StoredValueJSON: ISO 8601
/// UTC for years 1...9999, otherwise `@` and the exact seconds since 2001-01-01.
@Suite("Date text forms")
struct DateTextFormTests {
    static let cases: [(Date, String)] = [
        (Date(timeIntervalSince1970: 1_700_000_000.25), "2023-11-14T22:13:20.25Z"),
        (Date(timeIntervalSinceReferenceDate: -63_145_440_000), "@-63145440000.0"),  // before year 1
        (Date(timeIntervalSinceReferenceDate: 300_000_000_000), "@300000000000.0"),  // after year 9999
        (Date(timeIntervalSinceReferenceDate: .infinity), "@inf"),
        (Date(timeIntervalSinceReferenceDate: -.infinity), "@-inf"),
        (Date(timeIntervalSinceReferenceDate: -0.0), "@-0.0"),
    ]

    @Test(arguments: cases.indices)
    func sqliteColumnAndJSONUseTheDocumentedForm(_ index: Int) throws {
        let (date, text) = Self.cases[index]
        let directory = try TemporaryDirectory()
        let store = try PreferenceStore(.sqlite(at: directory.database), durability: .immediate)
        store.set(date, forKey: "when")
        store.set([date], forKey: "list")
        let column = try SQLiteBackendTests.shell(directory.database, "select value from preferences where key = 'when'")
        #expect(column == text + "\n")
        #expect(StoredValueJSON.encode(.date(date)) == "{\"$date\":\"\(text)\"}")
        let reopened = try PreferenceStore(.sqlite(at: directory.database))
        #expect(reopened.storedValue(forKey: "when") == .date(date))
        #expect(reopened.storedValue(forKey: "list") == .array([.date(date)]))
    }
}
