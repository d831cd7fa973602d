import Foundation
import Testing

@testable import StoredKit

@Suite("Plist codec: round trips, XML dialect and error messages")
struct PlistCodecTests {
    private func decode(_ text: String) throws -> StoredValue {
        try PlistCodec.decode(Data(text.utf8), path: "test.plist")
    }

    private func plist(_ body: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\(body)</plist>\n"
    }

    private func corruptReason(_ text: String) -> String? {
        corruptReason(Data(text.utf8))
    }

    private func corruptReason(_ data: Data) -> String? {
        do {
            _ = try PlistCodec.decode(data, path: "test.plist")
            return nil
        } catch StoreError.corruptFile(path: "test.plist", let reason, quarantinedAt: nil) {
            return reason
        } catch {
            return "unexpected error \(error)"
        }
    }

    @Test func xmlRoundTripKeepsEverythingButSubSecondDates() throws {
        let data = try PlistCodec.encode(PlistTestSupport.sample, format: .xml)
        #expect(try PlistCodec.decode(data, path: "a.plist") == PlistTestSupport.xmlPrecision(PlistTestSupport.sample))
        let fractional = StoredValue.date(Date(timeIntervalSinceReferenceDate: -0.25))
        let decoded = try PlistCodec.decode(try PlistCodec.encode(fractional, format: .xml), path: "a.plist")
        #expect(decoded == .date(Date(timeIntervalSinceReferenceDate: -1)))
    }

    @Test func binaryRoundTripIsExact() throws {
        var entries: [String: StoredValue] = ["sample": PlistTestSupport.sample]
        entries["fractional date"] = .date(Date(timeIntervalSinceReferenceDate: 12.345678))
        entries["nan payload"] = .double(Double(nan: 0x1234, signaling: false))
        entries["many"] = .array((0..<300).map { .string("item \($0 % 7)") })
        let value = StoredValue.dictionary(entries)
        let data = try PlistCodec.encode(value, format: .binary)
        #expect(data.prefix(8) == Data("bplist00".utf8))
        #expect(try PlistCodec.decode(data, path: "a.plist") == value)
    }

    @Test func binaryWriterStoresRepeatedASCIIStringsOnce() throws {
        let repeated = StoredValue.array(Array(repeating: .string("a fairly long repeated string"), count: 100))
        let data = try PlistCodec.encode(repeated, format: .binary)
        #expect(data.count < 400)
        #expect(try PlistCodec.decode(data, path: "a.plist") == repeated)
    }

    @Test func canonicallyEquivalentStringsKeepTheirBytes() throws {
        let value = StoredValue.array([.string("\u{E9}"), .string("e\u{301}")])
        for format in [PlistFormat.xml, .binary] {
            let decoded = try PlistCodec.decode(try PlistCodec.encode(value, format: format), path: "a.plist")
            guard case .array(let items) = decoded, items.count == 2, case .string(let second) = items[1] else {
                Issue.record("unexpected \(decoded)")
                continue
            }
            #expect(Array(second.utf8) == Array("e\u{301}".utf8))
        }
    }

    @Test func xmlOutputMatchesFoundationLayout() throws {
        let value = StoredValue.dictionary([
            "b": .array([.int(-3), .data(Data([1, 2, 3]))]), "a": .string("x<y & z>"), "c": .dictionary([:]),
            "d": .double(.infinity), "e": .date(Date(timeIntervalSinceReferenceDate: 0)),
        ])
        let text = String(decoding: try PlistCodec.encode(value, format: .xml), as: UTF8.self)
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<string>x&lt;y &amp; z&gt;</string>
            \t<key>b</key>
            \t<array>
            \t\t<integer>-3</integer>
            \t\t<data>
            \t\tAQID
            \t\t</data>
            \t</array>
            \t<key>c</key>
            \t<dict/>
            \t<key>d</key>
            \t<real>+infinity</real>
            \t<key>e</key>
            \t<date>2001-01-01T00:00:00Z</date>
            </dict>
            </plist>

            """
        #expect(text == expected)
    }

    @Test func xmlReaderAcceptsTheWholeDialect() throws {
        let text = """
            \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment before the doctype -->
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "x" [ <!ENTITY e "y"> ]>
            <plist version="1.0"><dict>
              <key>entities</key><string>&lt;&gt;&amp;&quot;&apos;&#65;&#x1F600;</string>
              <!-- comment between entries -->
              <key>cdata</key><string>a<![CDATA[<raw & text>]]>b</string>
              <key>empty</key><string/><key/><string>empty key</string>
              <key>hex</key><integer>0x1F</integer>
              <key>plus</key><integer> +5 </integer>
              <key>big</key><integer>18446744073709551615</integer>
              <key>min</key><integer>-9223372036854775808</integer>
              <key>reals</key><array><real>+infinity</real><real>-inf</real><real>NaN</real><real>1.</real>
                <real>.5</real><real>-0</real><real>1e-5</real><real>123456789012345678901234567890</real></array>
              <key>flags</key><array><true/><false></false></array>
              <key>data</key><data>
                AQID
                BA==
              </data>
              <key>date</key><date>2001-01-01T00:01:00Z</date>
              <key>containers</key><array><dict/><array/><array></array><dict></dict></array>
              <key>duplicate</key><integer>1</integer><key>duplicate</key><integer>2</integer>
            </dict></plist>
            """
        let expected = StoredValue.dictionary([
            "entities": .string("<>&\"'A😀"), "cdata": .string("a<raw & text>b"), "empty": .string(""), "": .string("empty key"),
            "hex": .int(31), "plus": .int(5), "big": .uint(.max), "min": .int(.min),
            "reals": .array([
                .double(.infinity), .double(-.infinity), .double(.nan), .double(1), .double(0.5), .double(-0.0),
                .double(1e-5), .double(123_456_789_012_345_677_877_719_597_056),
            ]),
            "flags": .array([.bool(true), .bool(false)]), "data": .data(Data([1, 2, 3, 4])),
            "date": .date(Date(timeIntervalSinceReferenceDate: 60)),
            "containers": .array([.dictionary([:]), .array([]), .array([]), .dictionary([:])]), "duplicate": .int(2),
        ])
        #expect(try decode(text) == expected)
        #expect(try decode("<array><integer>1</integer></array>") == .array([.int(1)]))
    }

    @Test func realsRoundTripExactlyThroughXML() throws {
        var generator = SystemRandomNumberGenerator()
        let reals = (0..<2_000).map { _ in Double(bitPattern: generator.next()) }.filter { !$0.isNaN }
        let value = StoredValue.array(reals.map(StoredValue.double))
        #expect(try PlistCodec.decode(try PlistCodec.encode(value, format: .xml), path: "a.plist") == value)
    }

    @Test func datesParseAcrossTheCalendar() throws {
        #expect(
            try decode(plist("<date>0001-01-01T00:00:00Z</date>")) == .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000))
        )
        #expect(
            try decode(plist("<date>2024-02-29T23:59:59Z</date>")) == .date(Date(timeIntervalSinceReferenceDate: 730_943_999)))
        #expect(try decode(plist("<date>1970-01-01T00:00:00Z</date>")) == .date(Date(timeIntervalSince1970: 0)))
        for seconds in stride(from: -70_000_000_000.0, to: 70_000_000_000, by: 987_654_321.0) {
            let value = StoredValue.date(Date(timeIntervalSinceReferenceDate: seconds))
            #expect(try PlistCodec.decode(try PlistCodec.encode(value, format: .xml), path: "a.plist") == value)
        }
    }

    @Test func malformedXMLNamesTheProblemAndTheByte() {
        #expect(corruptReason(Data()) == "the file is empty")
        #expect(corruptReason("{\"json\": true}") == "not a property list: expected '<' at byte 0")
        #expect(corruptReason("<plist><integer>7</integer>") == "unexpected end of file at byte 27; expected </plist>")
        #expect(corruptReason(plist("<integer>12a</integer>")) == "invalid integer '12a' at byte 60")
        #expect(corruptReason(plist("<real>1.2.3</real>")) == "invalid real '1.2.3' at byte 60")
        #expect(corruptReason(plist("<date>2001-01-01T00:00:00.5Z</date>"))?.hasPrefix("invalid date") == true)
        #expect(corruptReason(plist("<data>AQ*D</data>")) == "invalid base64 character in <data> at byte 68")
        #expect(corruptReason(plist("<dict><key>k</key></dict>")) == "key 'k' has no value (byte 78)")
        #expect(corruptReason(plist("<dict><string>v</string></dict>")) == "expected <key> but found <string> at byte 66")
        #expect(corruptReason(plist("<map/>")) == "unknown element <map> at byte 60")
        #expect(corruptReason(plist("<string>a < b</string>")) == "unexpected '<' in <string> at byte 70; escape it as &lt;")
        #expect(corruptReason(plist("<string>&bogus;</string>")) == "unknown entity '&bogus;' at byte 68")
        #expect(corruptReason(plist("<string>&#xD800;</string>")) == "invalid character reference '&#xD800;' at byte 68")
        #expect(corruptReason(plist("<array></dict>")) == "expected </array> at byte 67")
        #expect(corruptReason(plist("<true/>") + "junk") == "unexpected content after the property list at byte 76")
        #expect(
            corruptReason(
                Data([0x3C, 0x73, 0x74, 0x72, 0x69, 0x6E, 0x67, 0x3E, 0xFF, 0x3C, 0x2F, 0x73, 0x74, 0x72, 0x69, 0x6E, 0x67, 0x3E])
            )
                == "invalid UTF-8 in text starting at byte 8")
        #expect(
            corruptReason(Data("bplist15".utf8) + Data(count: 40))
                == "unsupported binary plist version '15'; only bplist00 is supported")
    }

    @Test func nestingIsLimitedWhenReadingAndWriting() throws {
        let depth = PlistCodec.maximumDepth
        let allowed = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
        #expect(throws: Never.self) { try decode(allowed) }
        // Deeper than the limit: a well-formed file is valid but unsupported, a truncated one corrupt.
        let tooDeep = String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)
        #expect {
            try decode(tooDeep)
        } throws: { error in
            guard case StoreError.unsupportedFile(_, let reason, _) = error else { return false }
            return reason == "a value \(StoredValue.tooDeepPhrase) (at byte \(depth * 7))"
        }
        #expect(corruptReason(String(repeating: "<array>", count: 100_000))?.contains("unexpected end of file") == true)
        var value = StoredValue.int(1)
        for _ in 0..<600 { value = .array([value]) }
        for format in [PlistFormat.xml, .binary] {
            #expect(throws: StoreError.self) { try PlistCodec.encode(value, format: format) }
        }
    }

    @Test func nonFiniteDatesAreRefusedOnlyByXML() throws {
        let value = StoredValue.date(Date(timeIntervalSinceReferenceDate: .infinity))
        #expect(throws: StoreError.self) { try PlistCodec.encode(value, format: .xml) }
        #expect(try PlistCodec.decode(try PlistCodec.encode(value, format: .binary), path: "a.plist") == value)
    }
}
