import Foundation
import StoredKitTestSupport
import Testing

@testable import StoredKit

@Suite("Plist codec: hostile and damaged input")
struct PlistRobustnessTests {
    /// A smaller sample keeps thousands of decodes fast while still covering every object kind.
    private static let sample: StoredValue = .dictionary([
        "string": .string("a<b>&c"), "unicode": .string("é😀"), "int": .int(-5), "big": .uint(.max), "real": .double(0.25),
        "yes": .bool(true), "date": .date(Date(timeIntervalSinceReferenceDate: 1_000)), "data": .data(Data(0..<40)),
        "array": .array([.int(300), .int(70_000), .string("string"), .array([]), .dictionary([:])]),
        "nested": .dictionary(["deep": .array([.string("string"), .double(.infinity)])]),
        "long": .array((0..<16).map { .int(Int64($0)) }),
    ])

    private func binary(objects: [[UInt8]], top: UInt64 = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let tableStart = UInt64(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for field in [UInt64(objects.count), top, tableStart] {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: field >> ($0 * 8)) }
        }
        return Data(bytes)
    }

    private func corruptReason(_ data: Data) -> String? {
        do {
            _ = try PlistCodec.decode(data, path: "hostile.plist")
            return nil
        } catch StoreError.corruptFile(path: "hostile.plist", let reason, quarantinedAt: nil) {
            return reason
        } catch {
            return "unexpected error \(error)"
        }
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func everyTruncationFailsCleanly(format: PlistFormat) throws {
        let data = try PlistCodec.encode(Self.sample, format: format)
        #expect(PlistTestSupport.decodeOutcome(data) == true)
        var failures = 0
        for length in 0..<data.count {
            let outcome = PlistTestSupport.decodeOutcome(data.prefix(length))
            #expect(outcome != nil, "truncated to \(length) bytes")
            if outcome == false { failures += 1 }
        }
        // Only dropping the final newline of an XML file leaves a valid plist.
        #expect(failures == data.count - (format == .xml ? 1 : 0))
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func randomByteFlipsNeverTrap(format: PlistFormat) throws {
        let data = try PlistCodec.encode(Self.sample, format: format)
        var generator = SeededGenerator(seed: format == .xml ? 1 : 2)
        var failures = 0
        for round in 0..<2_500 {
            var damaged = data
            for _ in 0...(round % 4) {
                let index = Int.random(in: 0..<damaged.count, using: &generator)
                damaged[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let outcome = PlistTestSupport.decodeOutcome(damaged)
            #expect(outcome != nil, "round \(round)")
            if outcome == false { failures += 1 }
        }
        #expect(failures > 100)
    }

    @Test func referenceCyclesAreRejected() {
        #expect(corruptReason(binary(objects: [[0xA1, 0x00]])) == "object 0 contains itself (reference cycle)")
        #expect(
            corruptReason(binary(objects: [[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]]))
                == "object 0 contains itself (reference cycle)")
    }

    @Test func exponentialSharingIsRejected() throws {
        // Each array holds the next one twice: 60 objects that would expand to 2^60 values.
        var objects: [[UInt8]] = (0..<59).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x10, 0x01])
        let reason = corruptReason(binary(objects: objects))
        #expect(reason?.contains("is shared so often the plist would expand to over") == true, "\(reason ?? "decoded")")
        // Sharing a string, as Foundation does for repeated keys and values, is fine.
        let shared = binary(objects: [[0xA3, 0x01, 0x01, 0x01], [0x51, 0x78]])
        #expect(try PlistCodec.decode(shared, path: "a.plist") == .array([.string("x"), .string("x"), .string("x")]))
    }

    @Test func malformedBinaryNamesTheProblem() {
        #expect(
            corruptReason(binary(objects: [[0xD1, 0x01, 0x01], [0x10, 0x01]]))
                == "dictionary at byte 8 has a non-string key (object 1)")
        #expect(corruptReason(binary(objects: [[0xA1, 0x07]])) == "object reference 7 at byte 9 is beyond the 1 objects")
        #expect(
            corruptReason(binary(objects: [[0x5F, 0x10, 0x20, 0x41]]))
                == "length 32 at byte 9 runs past the object data (ends at byte 12)")
        #expect(corruptReason(binary(objects: [[0x5C, 0x41]])) == "unexpected end of object data at byte 10 in string at byte 8")
        #expect(
            corruptReason(binary(objects: [[0x61, 0xD8, 0x00]])) == "invalid UTF-16 (unpaired surrogate) in string at byte 8")
        // A UID and an integer beyond 64 bits are valid, so the file is not called corrupt (ForeignFileTests).
        #expect(corruptReason(binary(objects: [[0x70, 0x01]])) == "unsupported object type 0x70 at byte 8")
        #expect(corruptReason(binary(objects: [[0x09]], top: 1))?.hasPrefix("invalid trailer") == true)
        var badOffset = [UInt8](binary(objects: [[0x09]]))
        badOffset[9] = 0xF0
        #expect(corruptReason(Data(badOffset))?.contains("outside the object area") == true)
        #expect(
            corruptReason(Data("bplist00".utf8)) == "unexpected end of file at byte 8: a binary plist needs at least 41 bytes")
    }

    /// 600 arrays each holding the next (two-byte references, so built by hand); the innermost
    /// holds `last`, an object index.
    private func deepBinary(innermost last: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt16] = []
        for index in 0..<600 {
            offsets.append(UInt16(bytes.count))
            let next = index == 599 ? last : index + 1
            bytes += [0xA1, UInt8(next >> 8), UInt8(next & 0xFF)]
        }
        offsets.append(UInt16(bytes.count))
        bytes += [0x09]
        let tableStart = UInt64(bytes.count)
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 2]
        for field in [UInt64(offsets.count), 0, tableStart] {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: field >> ($0 * 8)) }
        }
        return Data(bytes)
    }

    @Test func deepBinaryNestingIsUnsupportedWhenWellFormedAndCorruptWhenCyclic() {
        #expect {
            try PlistCodec.decode(deepBinary(innermost: 600), path: "hostile.plist")
        } throws: { error in
            guard case StoreError.unsupportedFile(_, let reason, _) = error else { return false }
            return reason.hasPrefix("a value \(StoredValue.tooDeepPhrase)")
        }
        // The innermost array holds the outermost: a cycle beyond the limit is still corruption.
        #expect(corruptReason(deepBinary(innermost: 0))?.contains("contains itself") == true)
    }
}
