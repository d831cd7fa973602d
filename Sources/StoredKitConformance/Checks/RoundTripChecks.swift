import Foundation
import StoredKit
import Testing

/// Every kind of value the typed API stores, at its edges, through a new instance of the backend.
enum RoundTripChecks {
    static let all: [BackendConformance.Check] = [values, subSecondDates, manyKeysAndLargeValues]

    static let values = BackendConformance.Check(
        "every storable kind and edge value round-trips through a new instance", requires: .persistent
    ) { subject in
        try roundTrip(ConformanceValues.entries, on: subject)
    }

    static let subSecondDates = BackendConformance.Check(
        "dates keep their fractions of a second", requires: [.persistent, .subSecondDates]
    ) { subject in
        try roundTrip(ConformanceValues.subSecondDateEntries, on: subject)
    }

    static let manyKeysAndLargeValues = BackendConformance.Check(
        "a thousand keys, long key names and a megabyte value round-trip", requires: .persistent
    ) { subject in
        var entries = (0..<1_000).map { ConformanceValues.Entry("key \($0)", $0) }
        entries.append(ConformanceValues.Entry(String(repeating: "k", count: 1_000), "long name"))
        entries.append(ConformanceValues.Entry("megabyte", Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31) })))
        try roundTrip(entries, on: subject)
    }

    /// Writes every entry through one store, then reads each through a store on a new instance.
    static func roundTrip(_ entries: [ConformanceValues.Entry], on subject: any ConformanceSubject) throws {
        let written = try subject.openStore()
        for entry in entries { entry.write(written) }
        try written.flush()
        let expected = written.dictionaryRepresentation()
        #expect(expected.count == Set(entries.map(\.key)).subtracting(ConformanceValues.absentKeys).count)

        let reopened = try subject.openStore()
        #expect(reopened.keys == expected.keys.sorted())
        for entry in entries {
            #expect(reopened.storedValue(forKey: entry.key) == expected[entry.key], "stored form of '\(entry.key)'")
            #expect(entry.readsBack(reopened), "typed read of '\(entry.key)'")
        }
    }
}
