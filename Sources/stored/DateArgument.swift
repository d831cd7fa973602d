/// Why an ISO 8601 text names no real moment, checked before Foundation reads it: its parser
/// rolls over what does not exist, so `2024-04-31` would be stored as May 1 and `T25:00:00` as
/// the next day.
///
/// ```swift
/// DateArgument.calendarProblem(in: "2024-04-31")  //=> "April 2024 has 30 days"
/// DateArgument.calendarProblem(in: "2024-05-01T10:00:00Z")  //=> nil
/// ```
enum DateArgument {
    static func calendarProblem(in text: String) -> String? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, is character: Character) -> Bool {
            index < bytes.count && bytes[index] == character.asciiValue
        }
        guard let year = number(0..<4), byte(4, is: "-"), let month = number(5..<7), byte(7, is: "-"),
            let day = number(8..<10)
        else { return nil }
        guard (1...12).contains(month) else { return "there is no month \(month)" }
        let length = daysIn(month: month, year: year)
        guard (1...length).contains(day) else {
            return day == 0 ? "there is no day 0" : "\(monthNames[month - 1]) \(year) has \(length) days"
        }
        guard byte(10, is: "T") || byte(10, is: "t"), let hour = number(11..<13), byte(13, is: ":"),
            let minute = number(14..<16)
        else { return nil }
        guard hour < 24 else { return "there is no hour \(hour) (hours go from 00 to 23)" }
        guard minute < 60 else { return "there is no minute \(minute) (minutes go from 00 to 59)" }
        if byte(16, is: ":"), let second = number(17..<19), second > 59 {
            return "there is no second \(second) (seconds go from 00 to 59)"
        }
        // A UTC offset: the last '+' or '-', followed by HH:MM or HHMM.
        guard let sign = bytes.lastIndex(where: { $0 == 0x2B || $0 == 0x2D }), sign > 10 else { return nil }
        let colon = byte(sign + 3, is: ":") ? 1 : 0
        guard let offsetHours = number((sign + 1)..<(sign + 3)),
            let offsetMinutes = number((sign + 3 + colon)..<(sign + 5 + colon))
        else { return nil }
        if offsetHours > 23 || offsetMinutes > 59 {
            return "'\(String(decoding: bytes[sign...], as: UTF8.self))' is not a UTC offset (from -23:59 to +23:59)"
        }
        return nil
    }

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    private static func daysIn(month: Int, year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }
}
