import Foundation
import Testing

@testable import StoredKit

@Suite("StoredValueJSON")
struct StoredValueJSONTests {
    static let dates: [Date] = [
        Date(timeIntervalSinceReferenceDate: 721_692_800.123_456_7),
        Date(timeIntervalSinceReferenceDate: 721_692_800.000_000_12),
        Date(timeIntervalSince1970: 1_700_000_000.5),
        Date(timeIntervalSince1970: -300_000_000.25),
        Date(timeIntervalSinceReferenceDate: -0.5),
        Date(timeIntervalSinceReferenceDate: 1e-10),
        Date(timeIntervalSinceReferenceDate: 0),
        Date(timeIntervalSinceReferenceDate: -0.0),
        Date(timeIntervalSinceReferenceDate: .infinity),
        Date(timeIntervalSinceReferenceDate: 1e300),
        .distantPast, .distantFuture, Date(),
    ]

    static let everyKind: StoredValue = .dictionary([
        "bool": .bool(true),
        "int": .int(Int64.min),
        "max": .int(Int64.max),
        "uint": .uint(UInt64.max),
        "double": .double(1.0),
        "negativeZero": .double(-0.0),
        "tiny": .double(.leastNonzeroMagnitude),
        "nan": .double(.nan),
        "negativeInfinity": .double(-.infinity),
        "string": .string("Grüße 👋 \"quoted\" \\ \n\t\u{0}\u{1F}"),
        "data": .data(Data([0, 1, 2, 255])),
        "emptyData": .data(Data()),
        "dates": .array(dates.map(StoredValue.date)),
        "emptyArray": .array([]),
        "emptyDictionary": .dictionary([:]),
        "looksTagged": .dictionary(["$date": .string("2020-01-01T00:00:00Z")]),
        "looksEscaped": .dictionary(["$$data": .int(1)]),
        "twoDollarKeys": .dictionary(["$date": .int(1), "$data": .int(2)]),
        "nested": .array([.array([.dictionary(["a": .array([.double(2.5), .int(2)])])])]),
    ])

    @Test func everyKindRoundTripsExactly() throws {
        let text = StoredValueJSON.encode(Self.everyKind)
        #expect(try StoredValueJSON.decode(text) == Self.everyKind)
        let pretty = StoredValueJSON.encode(Self.everyKind, prettyPrinted: true)
        #expect(pretty.contains("\n  \"bool\": true"))
        #expect(try StoredValueJSON.decode(pretty) == Self.everyKind)
    }

    @Test func plainJSONWhereItIsExact() {
        let value: StoredValue = .dictionary([
            "tabs": .array([.string("home")]), "zoom": .double(1), "count": .int(3), "on": .bool(false),
        ])
        #expect(StoredValueJSON.encode(value) == #"{"count":3,"on":false,"tabs":["home"],"zoom":1.0}"#)
        #expect(StoredValueJSON.encode(.double(.nan)) == #"{"$double":"nan"}"#)
        #expect(StoredValueJSON.encode(.data(Data([1, 2]))) == #"{"$data":"AQI="}"#)
        #expect(
            StoredValueJSON.encode(.date(Date(timeIntervalSince1970: 1_700_000_000.5))) == #"{"$date":"2023-11-14T22:13:20.5Z"}"#)
        #expect(StoredValueJSON.encode(.dictionary(["$date": .int(1)])) == #"{"$$date":1}"#)
    }

    @Test func integersAndDoublesStayApart() throws {
        #expect(
            try StoredValueJSON.decode("[1, 1.0, 1e2, -0, 18446744073709551615]")
                == .array([
                    .int(1), .double(1), .double(100), .int(0), .uint(UInt64.max),
                ]))
        let negativeZero = try StoredValueJSON.decode("-0.0")
        guard case .double(let number) = negativeZero else {
            Issue.record("expected a double, got \(negativeZero)")
            return
        }
        #expect(number.sign == .minus)
    }

    @Test func dateTextIsExactAndReadable() throws {
        for date in Self.dates {
            let text = StoredValueText.text(of: date)
            let back = try #require(StoredValueText.date(from: text), "\(text)")
            #expect(StoredValue.date(back) == .date(date), "\(text)")
        }
        #expect(StoredValueText.text(of: Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.75Z")
        #expect(StoredValueText.text(of: Date(timeIntervalSinceReferenceDate: .infinity)) == "@inf")
    }

    @Test func badInputThrowsTypedErrorsNamingTheSource() {
        for text in [
            "", "nul", "null", "[1,]", "{\"a\" 1}", "\"unterminated", "[1] 2", "01x", "\"\\ud800\"",
            "{\"$date\": 5}", "{\"$data\": \"***\"}", String(repeating: "[", count: 600),
        ] {
            #expect(throws: StoreError.self, "\(text.prefix(20))") { try StoredValueJSON.decode(text, source: "import.json") }
        }
        do {
            _ = try StoredValueJSON.decode("[1, null]", source: "import.json")
            Issue.record("null was accepted")
        } catch {
            #expect("\(error)".contains("import.json"))
        }
    }

    @Test("a number is never rounded to another kind of value: beyond 64 bits, to infinity, to zero")
    func numbersAreExactOrRefused() throws {
        for text in ["18446744073709551616", "-9223372036854775809", "1e400", "-1e400", "1e-400", "0.1e-330"] {
            let error = try #require(throws: StoreError.self) { try StoredValueJSON.decode("[\(text)]", source: "in.json") }
            #expect("\(error)".contains("'\(text)'"), "\(error)")
        }
        #expect(
            try StoredValueJSON.decode("[0e-400, 0.0, 1e308, 5e-324]")
                == .array([.double(0), .double(0), .double(1e308), .double(.leastNonzeroMagnitude)]))
    }
}
