import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

@Suite("Plist codec: compatibility with Foundation and plutil")
struct PlistFoundationCompatibilityTests {
    private static let formats: [(PlistFormat, PropertyListSerialization.PropertyListFormat)] = [
        (.xml, .xml), (.binary, .binary),
    ]

    /// A value Foundation can write: the sample plus strings and numbers Foundation tends to special-case.
    private var foundationSample: StoredValue {
        guard case .dictionary(var entries) = PlistTestSupport.sample else { return PlistTestSupport.sample }
        entries["many keys"] = .dictionary(Dictionary(uniqueKeysWithValues: (0..<50).map { ("key \($0)", .int(Int64($0))) }))
        entries["repeated"] = .array(Array(repeating: .string("same"), count: 20))
        entries["long unicode"] = .string(String(repeating: "ñ😀", count: 40))
        return .dictionary(entries)
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func filesWeWriteLoadInFoundationAsEqualValues(format: PlistFormat) throws {
        let data = try PlistCodec.encode(foundationSample, format: format)
        var detected = PropertyListSerialization.PropertyListFormat.openStep
        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: &detected)
        #expect(detected == (format == .xml ? .xml : .binary))
        let expected = format == .xml ? PlistTestSupport.xmlPrecision(foundationSample) : foundationSample
        #expect(PlistTestSupport.storedValue(fromFoundation: object) == expected)
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func filesFoundationWritesLoadAsEqualValues(format: PlistFormat) throws {
        let foundationFormat: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        let object = PlistTestSupport.foundationObject(foundationSample)
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: foundationFormat, options: 0)
        guard case .dictionary(var entries) = foundationSample else { return }
        if format == .xml {
            // Foundation's XML writer prints -0.0 as "0.0" (ours keeps the sign, and Foundation reads it back).
            entries["negative zero"] = .double(0)
        }
        let expected = format == .xml ? PlistTestSupport.xmlPrecision(.dictionary(entries)) : .dictionary(entries)
        #expect(try PlistCodec.decode(data, path: "foundation.plist") == expected)
        // Foundation writes small reals as 4-byte floats when they are exact floats.
        let float = try PropertyListSerialization.data(fromPropertyList: [Float(1.5)], format: foundationFormat, options: 0)
        #expect(try PlistCodec.decode(float, path: "float.plist") == .array([.double(1.5)]))
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func largeFilesUseWideReferencesAndOffsetsBothWays(format: PlistFormat) throws {
        // Over 255 objects and 64 KiB: Foundation then writes 2-byte references and 3-byte offsets.
        let value = StoredValue.dictionary(
            Dictionary(
                uniqueKeysWithValues: (0..<3_000).map {
                    ("key \($0)", .string("value \($0) " + String(repeating: "x", count: 30)))
                }))
        let foundationFormat: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        let theirs = try PropertyListSerialization.data(
            fromPropertyList: PlistTestSupport.foundationObject(value), format: foundationFormat, options: 0)
        #expect(try PlistCodec.decode(theirs, path: "large.plist") == value)
        let ours = try PlistCodec.encode(value, format: format)
        let object = try PropertyListSerialization.propertyList(from: ours, format: nil)
        #expect(PlistTestSupport.storedValue(fromFoundation: object) == value)
    }

    @Test func xmlWeWriteIsByteIdenticalToFoundationWhereItsRealsAgree() throws {
        // Foundation prints reals with 17 digits ("0.10000000000000001"); ours are the shortest exact form,
        // so compare a value without non-trivial reals.
        let value = StoredValue.dictionary([
            "b": .array([.int(-3), .data(Data((0..<100).map(UInt8.init))), .bool(true)]), "a": .string("x<y & z> \"q\""),
            "c": .dictionary(["n": .dictionary([:]), "m": .array([])]),
            "e": .date(Date(timeIntervalSinceReferenceDate: 86_400.9)),
            "r": .array([.double(.nan), .double(.infinity), .double(-.infinity), .double(2.5)]), "u": .uint(.max),
        ])
        let ours = try PlistCodec.encode(value, format: .xml)
        let theirs = try PropertyListSerialization.data(
            fromPropertyList: PlistTestSupport.foundationObject(value), format: .xml, options: 0)
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: theirs, as: UTF8.self))
    }

    @Test func plutilLintAcceptsBothFormats() throws {
        let plutil = ["/opt/swift/usr/bin/plutil", "/usr/bin/plutil", "/usr/local/bin/plutil"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        let executable = try #require(plutil, "plutil is needed to lint the files we write")
        try PlistTestSupport.withTemporaryDirectory { directory in
            for (format, _) in Self.formats {
                let file = directory.appendingPathComponent("sample-\(format).plist")
                try PlistCodec.encode(foundationSample, format: format).write(to: file)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = ["-lint", file.path]
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                try process.run(killingAfter: Process.safetyNet)
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "plutil -lint on \(format): \(text)")
                #expect(text.contains("OK"), "plutil -lint on \(format): \(text)")
            }
        }
    }

    @Test func userDefaultsFilesLoad() throws {
        try PlistTestSupport.withTemporaryDirectory { directory in
            // On Linux an absolute suite name makes Foundation write '<suite>.plist' at that path.
            let suite = directory.appendingPathComponent("defaults").path
            let defaults = try #require(UserDefaults(suiteName: suite))
            let date = Date(timeIntervalSinceReferenceDate: 750_000_000)
            defaults.set(42, forKey: "answer")
            defaults.set("ünïcode 😀", forKey: "name")
            defaults.set([1.5, 2.5], forKey: "reals")
            defaults.set(["nested": ["flag": true]], forKey: "dictionary")
            defaults.set(Data([0, 1, 2]), forKey: "data")
            defaults.set(date, forKey: "date")
            #expect(defaults.synchronize())
            let file = URL(fileURLWithPath: suite + ".plist")
            let decoded = try PlistCodec.decode(try Data(contentsOf: file), path: file.path)
            let expected: [String: StoredValue] = [
                "answer": .int(42), "name": .string("ünïcode 😀"), "reals": .array([.double(1.5), .double(2.5)]),
                "dictionary": .dictionary(["nested": .dictionary(["flag": .bool(true)])]), "data": .data(Data([0, 1, 2])),
                "date": .date(date),
            ]
            guard case .dictionary(let entries) = decoded else {
                Issue.record("UserDefaults file is not a dictionary: \(decoded)")
                return
            }
            for (key, value) in expected { #expect(entries[key] == value, "key \(key)") }
        }
    }
}
