import Foundation
import StoredKitTestSupport
import Testing

/// Text that names no value of its type is refused by name with status 3, never turned into a
/// neighbouring value: a day that does not exist, an integer beyond 64 bits, a real beyond a double,
/// bytes that are not UTF-8.
@Suite("bad text is refused, not converted")
struct SilentConversionTests {
    struct Case: CustomStringConvertible, Sendable {
        let arguments: [String]
        /// Texts the one-line message must contain: the bad text and why.
        let message: [String]
        var input: String?

        var description: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["write", "STORE", "k", "2024-04-31", "--date"], message: ["'2024-04-31'", "April 2024 has 30 days"]),
        Case(
            arguments: ["write", "STORE", "k", "2023-02-29", "--date"], message: ["'2023-02-29'", "February 2023 has 28 days"]),
        Case(
            arguments: ["write", "STORE", "k", "2024-04-31T10:00:00Z", "--date"],
            message: ["'2024-04-31T10:00:00Z'", "April 2024 has 30 days"]),
        Case(
            arguments: ["write", "STORE", "k", "2024-05-01T25:00:00Z", "--date"],
            message: ["'2024-05-01T25:00:00Z'", "no hour 25"]),
        Case(
            arguments: ["write", "STORE", "k", "2024-05-01T10:60:00+02:00", "--date"],
            message: ["'2024-05-01T10:60:00+02:00'", "no minute 60"]),
        Case(
            arguments: ["write", "STORE", "k", "2024-05-01T10:00:60Z", "--date"],
            message: ["'2024-05-01T10:00:60Z'", "no second 60"]),
        Case(
            arguments: ["write", "STORE", "k", "2024-05-01T10:00:00+25:00", "--date"],
            message: ["'2024-05-01T10:00:00+25:00'", "not a UTC offset"]),
        Case(arguments: ["write", "STORE", "k", "2024-13-01", "--date"], message: ["'2024-13-01'", "no month 13"]),
        Case(
            arguments: ["write", "STORE", "k", "123456789012345678901234567890", "--json"],
            message: ["'123456789012345678901234567890'", "beyond 64 bits"]),
        Case(
            arguments: ["write", "STORE", "k", "[-9223372036854775809]", "--json"],
            message: ["'-9223372036854775809'", "beyond 64 bits"]),
        Case(arguments: ["write", "STORE", "k", "1e400", "--json"], message: ["'1e400'", "beyond the range of a double"]),
        Case(
            arguments: ["write", "STORE", "k", #"{"a": -1e400}"#, "--json"],
            message: ["'-1e400'", "beyond the range of a double"]),
        Case(arguments: ["write", "STORE", "k", "1e-400", "--json"], message: ["'1e-400'", "would read as 0"]),
        Case(arguments: ["write", "STORE", "k", "1e400", "--double"], message: ["'1e400'", "beyond the range of a double"]),
        Case(arguments: ["write", "STORE", "k", "-1e-400", "--double"], message: ["'-1e-400'", "would read as 0"]),
        Case(
            arguments: ["write", "STORE", "k", #"{"$double": "1e400"}"#, "--json"], message: ["'1e400'", "not a valid $double"]),
        Case(
            arguments: ["import", "STORE", "-"], message: ["'18446744073709551616'", "beyond 64 bits"],
            input: #"{"a": 18446744073709551616}"#),
        Case(
            arguments: ["import", "STORE", "-"], message: ["'1e400'", "beyond the range of a double"], input: #"{"a": [1e400]}"#),
    ]

    @Test("each bad text: status 3, a message naming it and why, the store unchanged", arguments: storeNames, cases)
    func refused(store: String, bad: Case) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        try cli.run("write", store, "count", "1", "--int")
        let before = try #require(cli.bytes(store))

        let outcome = try cli.run(bad.arguments.map { $0 == "STORE" ? store : $0 }, input: bad.input.map { Data($0.utf8) })

        #expect(outcome.status == 3, "\(outcome)")
        for text in bad.message { #expect(outcome.errorOutput.contains(text), "\(outcome)") }
        #expect(cli.bytes(store) == before)
    }

    @Test("real dates, big 64-bit integers and small reals are still read exactly", arguments: storeNames)
    func goodTextStillWorks(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        let writes: [([String], String)] = [
            (["leap", "2024-02-29", "--date"], #"{"$date": "2024-02-29T00:00:00Z"}"#),
            (["evening", "2024-04-30T23:59:59Z", "--date"], #"{"$date": "2024-04-30T23:59:59Z"}"#),
            (["east", "2024-05-01T00:30:00+01:00", "--date"], #"{"$date": "2024-04-30T23:30:00Z"}"#),
            (["big", "[18446744073709551615, -9223372036854775808]", "--json"], "[18446744073709551615, -9223372036854775808]"),
            (["reals", "[1e300, 5e-324, 1e30]", "--json"], "[1e+300, 5e-324, 1e+30]"),
        ]
        for (arguments, _) in writes {
            let outcome = try cli.run(["write", store] + arguments)
            #expect(outcome.status == 0, "\(arguments): \(outcome)")
        }
        for (arguments, expected) in writes {
            let read = try cli.run("read", store, arguments[0], "--json")
            #expect(read.stdout.filter { !$0.isWhitespace } == expected.filter { !$0.isWhitespace }, "\(read)")
        }
    }

    @Test("an argument that is not UTF-8 is refused naming its bytes; no other key is touched", arguments: storeNames)
    func invalidUTF8Argument(store: String) throws {
        let cli = try StoredProcess()
        defer { cli.removeScratch() }
        #expect(try cli.run("write", store, "k\u{FFFD}", "kept").status == 0)
        let before = try #require(cli.bytes(store))

        for command in [
            #"delete "$1" "$(printf 'k\377')""#, #"write "$1" "$(printf 'k\377')" v"#, #"write "$1" k "$(printf 'v\377')""#,
        ] {
            let shell = try cli.makeProcess([])
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = ["-c", #"exec "$0" "# + command, try StoredProcess.binary().path, store]
            let errors = Pipe()
            shell.standardError = errors
            try shell.run(killingAfter: Process.safetyNet)
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()

            #expect(shell.terminationStatus == 3, "\(command): \(message)")
            #expect(message.contains(#"\xFF'"#) && message.contains("not valid UTF-8"), "\(command): \(message)")
            #expect(cli.bytes(store) == before, "\(command)")
        }
        #expect(try cli.run("read", store, "k\u{FFFD}").stdout == "\"kept\"\n")
    }
}
