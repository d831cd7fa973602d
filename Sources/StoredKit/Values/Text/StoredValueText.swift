import Foundation

/// Exact text forms of doubles and dates, shared by the JSON form of ``StoredValue`` and the
/// SQLite `value` column.
///
/// Both forms round-trip bit for bit, because the engine compares values by bit pattern:
/// - a double is its shortest round-trip decimal (`0.1`, `1e-05`, `-0.0`), or `nan`, `inf`,
///   `-inf`, or `nan:0x<bits>` for a NaN other than `Double.nan`;
/// - a date is ISO 8601 in UTC with as many fractional digits as needed to be exact
///   (`2023-11-14T22:13:20.1234567Z`), which SQLite's date functions read directly. The digits
///   are derived by decimal arithmetic from the shortest form of `timeIntervalSinceReferenceDate`,
///   so no precision is lost converting between 2001 and 1970. Dates outside years 1...9999, a
///   non-finite interval or `-0.0` fall back to `@` followed by the exact double text of
///   `timeIntervalSinceReferenceDate` (seconds since 2001-01-01), e.g. `@inf`.
package enum StoredValueText {
    /// Seconds from 1970-01-01 to Foundation's reference date 2001-01-01.
    private static let referenceDateOffset: Int64 = 978_307_200
    /// Seconds since 1970 of 0001-01-01T00:00:00Z and of 10000-01-01T00:00:00Z.
    private static let supportedSecondsSince1970: Range<Int64> = -62_135_596_800..<253_402_300_800

    // MARK: Doubles

    /// The exact text of `value`: `"0.1"`, `"-0.0"`, `"inf"`, `"nan"`.
    package static func text(of value: Double) -> String {
        if value.isNaN {
            return value.bitPattern == Double.nan.bitPattern ? "nan" : "nan:0x" + String(value.bitPattern, radix: 16)
        }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return value.description
    }

    /// Reads a text written by ``text(of:)-(Double)``; nil when it is not one.
    package static func double(from text: some StringProtocol) -> Double? {
        switch text {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: break
        }
        if text.hasPrefix("nan:0x") {
            guard let bits = UInt64(text.dropFirst(6), radix: 16) else { return nil }
            let value = Double(bitPattern: bits)
            return value.isNaN ? value : nil
        }
        // Double(String) also accepts hex floats and "infinity"; only plain decimals are ours.
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }) else {
            return nil
        }
        guard let value = Double(String(text)), roundingProblem(text, value) == nil else { return nil }
        return value
    }

    /// Why the decimal `text` does not name `value`, strtod's reading of it, even approximately:
    /// it overflowed to infinity or underflowed to zero. `nil` when it names it.
    ///
    /// ```swift
    /// StoredValueText.roundingProblem("1e400", .infinity)  //=> "it is beyond the range of a double (about ±1.8e308)"
    /// ```
    package static func roundingProblem(_ text: some StringProtocol, _ value: Double) -> String? {
        if value.isInfinite { return "it is beyond the range of a double (about ±1.8e308)" }
        let mantissa = text.utf8.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
        if value == 0, mantissa.contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) }) {
            return "it is too small for a double (below about 4.9e-324) and would read as 0"
        }
        return nil
    }

    // MARK: Dates

    /// The exact text of `date`, ISO 8601 UTC when possible.
    package static func text(of date: Date) -> String {
        let interval = date.timeIntervalSinceReferenceDate
        return isoText(interval) ?? "@" + text(of: interval)
    }

    /// Reads a text written by ``text(of:)-(Date)``; nil when it is not one.
    package static func date(from text: some StringProtocol) -> Date? {
        if text.hasPrefix("@") {
            return double(from: text.dropFirst()).map { Date(timeIntervalSinceReferenceDate: $0) }
        }
        guard let (seconds, fraction) = parseISO(Array(text.utf8)) else { return nil }
        let sinceReference = seconds - referenceDateOffset
        let decimal: String
        if fraction.isEmpty {
            decimal = String(sinceReference)
        } else if sinceReference >= 0 {
            decimal = "\(sinceReference).\(fraction)"
        } else {
            // -K + 0.F = -((K - 1) + (1 - 0.F))
            decimal = "-\(-sinceReference - 1).\(complement(fraction))"
        }
        return Double(decimal).map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    private static func isoText(_ interval: Double) -> String? {
        guard interval.isFinite, !(interval == 0 && interval.sign == .minus) else { return nil }
        guard let (negative, integer, fraction) = decimalParts(of: interval) else { return nil }
        var seconds = negative ? referenceDateOffset - integer : referenceDateOffset + integer
        var fractionDigits = fraction
        if negative && !fraction.isEmpty {
            seconds -= 1
            fractionDigits = complement(fraction)
        }
        guard supportedSecondsSince1970.contains(seconds) else { return nil }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(daysSince1970: days)
        var text = padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
        text += padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay / 60 % 60, 2) + ":" + padded(secondOfDay % 60, 2)
        if !fractionDigits.isEmpty { text += "." + fractionDigits }
        return text + "Z"
    }

    /// Splits the shortest decimal form of `value` into sign, integer part and fraction digits
    /// (no trailing zeros), expanding any exponent.
    private static func decimalParts(of value: Double) -> (negative: Bool, integer: Int64, fraction: String)? {
        let text = value.magnitude.description
        let parts = text.split(separator: "e", maxSplits: 1)
        guard let mantissa = parts.first else { return nil }
        let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let pieces = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let integerDigits = String(pieces[0])
        let digits = integerDigits + (pieces.count > 1 ? String(pieces[1]) : "")
        let point = integerDigits.count + exponent
        let integerText: String
        var fractionText: String
        if point <= 0 {
            integerText = "0"
            fractionText = String(repeating: "0", count: -point) + digits
        } else if point >= digits.count {
            integerText = digits + String(repeating: "0", count: point - digits.count)
            fractionText = ""
        } else {
            integerText = String(digits.prefix(point))
            fractionText = String(digits.dropFirst(point))
        }
        while fractionText.hasSuffix("0") { fractionText.removeLast() }
        guard let integer = Int64(integerText) else { return nil }
        return (value.sign == .minus, integer, fractionText)
    }

    /// 10^n − F for the n fraction digits F (F nonzero, no trailing zero): no carry can occur.
    private static func complement(_ digits: String) -> String {
        var bytes = Array(digits.utf8)
        guard let last = bytes.indices.last else { return digits }
        for index in bytes.indices.dropLast() { bytes[index] = 0x30 + 9 - (bytes[index] - 0x30) }
        bytes[last] = 0x30 + 10 - (bytes[last] - 0x30)
        var result = String(decoding: bytes, as: UTF8.self)
        while result.hasSuffix("0") { result.removeLast() }
        return result
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.digits]Z` into seconds since 1970 and fraction digits.
    private static func parseISO(_ bytes: [UInt8]) -> (seconds: Int64, fraction: String)? {
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        guard separators.allSatisfy({ bytes[$0.0] == $0.1.asciiValue }) else { return nil }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var fraction = ""
        if bytes.count > 20 {
            let digits = bytes[20..<(bytes.count - 1)]
            guard bytes[19] == UInt8(ascii: "."), !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
                return nil
            }
            fraction = String(decoding: digits, as: UTF8.self)
            while fraction.hasSuffix("0") { fraction.removeLast() }
        }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
        return (days * 86_400 + hour * 3600 + minute * 60 + second, fraction)
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month - 1)]
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
