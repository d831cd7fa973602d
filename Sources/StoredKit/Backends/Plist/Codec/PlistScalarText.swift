import Foundation

/// Parsing and formatting of the XML plist scalar texts: `<integer>`, `<real>` and `<date>` contents.
///
/// Works on raw UTF-8 bytes so the XML reader never builds a `String` for a number; `nil` means the text
/// is not valid and the caller reports where.
enum PlistScalarText {
    /// Seconds from 1970-01-01 to 2001-01-01, the reference date of `Date` and of plist dates.
    static let unixSecondsAtReferenceDate: Int64 = 978_307_200

    // MARK: Integers

    /// Parses `[+-]?(digits|0x hexdigits)`; values above `Int64.max` become ``StoredValue/uint(_:)``.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> StoredValue? {
        var index = 0
        let count = text.count
        var isNegative = false
        if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            isNegative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        var radix: UInt64 = 10
        if index + 1 < count, text[index] == UInt8(ascii: "0"), text[index + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            index += 2
        }
        guard index < count else { return nil }
        var magnitude: UInt64 = 0
        while index < count {
            guard let digit = digitValue(text[index]), UInt64(digit) < radix else { return nil }
            let (shifted, overflowA) = magnitude.multipliedReportingOverflow(by: radix)
            let (sum, overflowB) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflowA, !overflowB else { return nil }
            magnitude = sum
            index += 1
        }
        guard isNegative else { return StoredValue(magnitude) }
        guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
        return .int(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
    }

    /// Whether `text` is a well-formed decimal integer, whatever its size: an `<integer>` that
    /// ``integer(_:)`` refuses although this holds is valid but beyond 64 bits.
    static func isWholeNumber(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let digits = text.first == UInt8(ascii: "-") || text.first == UInt8(ascii: "+") ? text.dropFirst() : text[...]
        return !digits.isEmpty && digits.allSatisfy { UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 }
    }

    private static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    // MARK: Reals

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { product, _ in product * 10 }
    }

    /// Parses a decimal real or one of Foundation's spellings of NaN and infinity.
    static func real(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let fast = exactlyRepresentableDecimal(text) { return fast }
        let string = String(decoding: text, as: UTF8.self)
        switch string.lowercased() {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default: break
        }
        // Over-long mantissas are rare; strtod (behind Double.init) rounds them correctly. Only decimal
        // spellings reach it: strtod would also take hex floats ("0x10") and "nan(...)", which neither
        // Foundation nor plistlib reads as a real.
        guard !text.isEmpty, text.allSatisfy(isDecimalRealByte) else { return nil }
        return Double(string)
    }

    private static func isDecimalRealByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    /// Clinger's fast path: a mantissa below 2^53 scaled by an exact power of ten rounds correctly in one
    /// IEEE operation, which covers nearly every real a program writes.
    private static func exactlyRepresentableDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let count = text.count
        var isNegative = false
        if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            isNegative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var significantDigits = 0
        var exponent = 0
        var seenPoint = false
        while index < count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digitCount += 1
                if mantissa != 0 || byte != UInt8(ascii: "0") { significantDigits += 1 }
                guard significantDigits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if seenPoint { exponent -= 1 }
            } else {
                break
            }
            index += 1
        }
        guard digitCount > 0 else { return nil }
        if index < count {
            guard text[index] | 0x20 == UInt8(ascii: "e") else { return nil }
            index += 1
            var exponentIsNegative = false
            if index < count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentIsNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < count else { return nil }
            var explicitExponent = 0
            while index < count {
                let byte = text[index]
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"), explicitExponent < 10_000 else { return nil }
                explicitExponent = explicitExponent * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
            }
            exponent += exponentIsNegative ? -explicitExponent : explicitExponent
        }
        var value = Double(mantissa)
        if mantissa != 0 {
            guard exponent >= -22, exponent <= 22 else { return nil }
            value = exponent < 0 ? value / exactPowersOfTen[-exponent] : value * exactPowersOfTen[exponent]
        }
        return isNegative ? -value : value
    }

    /// Foundation's spellings: `nan`, `+infinity`, `-infinity`; otherwise Swift's shortest exact form.
    static func realText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
        return value.description
    }

    // MARK: Dates

    /// Parses `[-]YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, UTC) into seconds since 2001-01-01.
    static func date(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        var index = 0
        let isNegativeYear = !text.isEmpty && text[0] == UInt8(ascii: "-")
        if isNegativeYear { index = 1 }
        func number(digits range: ClosedRange<Int>, then separator: UInt8?) -> Int? {
            var value = 0
            var digits = 0
            while index < text.count, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9"),
                digits < range.upperBound
            {
                value = value * 10 + Int(text[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard range.contains(digits) else { return nil }
            if let separator {
                guard index < text.count, text[index] == separator else { return nil }
                index += 1
            }
            return value
        }
        guard let unsignedYear = number(digits: 1...9, then: UInt8(ascii: "-")),
            let month = number(digits: 2...2, then: UInt8(ascii: "-")),
            let day = number(digits: 2...2, then: UInt8(ascii: "T")),
            let hour = number(digits: 2...2, then: UInt8(ascii: ":")),
            let minute = number(digits: 2...2, then: UInt8(ascii: ":")),
            let second = number(digits: 2...2, then: UInt8(ascii: "Z")),
            index == text.count,
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let year = isNegativeYear ? -unsignedYear : unsignedYear
        let days = CivilCalendar.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
        let unixSeconds = days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        return Date(timeIntervalSinceReferenceDate: Double(unixSeconds - unixSecondsAtReferenceDate))
    }

    /// Formats a date as Foundation does, rounding down to the whole second; `nil` when the date is not
    /// finite or beyond year 999,999,999.
    static func dateText(_ date: Date) -> String? {
        let interval = date.timeIntervalSinceReferenceDate.rounded(.down)
        guard interval.isFinite, abs(interval) < 3e16 else { return nil }
        let unixSeconds = Int64(interval) + unixSecondsAtReferenceDate
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondOfDay = Int(unixSeconds - days * 86_400)
        let civil = CivilCalendar.date(daysSince1970: days)
        let (year, month, day) = (Int(civil.year), Int(civil.month), Int(civil.day))
        var text = year < 0 ? "-" : ""
        let yearDigits = String(abs(year))
        text += String(repeating: "0", count: max(0, 4 - yearDigits.count)) + yearDigits
        text += "-" + twoDigits(month) + "-" + twoDigits(day) + "T" + twoDigits(secondOfDay / 3_600)
        text += ":" + twoDigits(secondOfDay / 60 % 60) + ":" + twoDigits(secondOfDay % 60) + "Z"
        return text
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
