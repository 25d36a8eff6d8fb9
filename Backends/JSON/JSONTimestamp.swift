import Foundation

/// Dates as ISO 8601 text in UTC, exact: reading the text gives back the same `Date`.
///
/// The fraction has 3, 6 or 9 digits when those are exact, else the fewest digits that are,
/// padded to a multiple of three (`2024-05-01T10:00:00.250Z`, `2023-11-14T22:13:20.123456Z`,
/// `2001-01-01T00:00:00.000000000000000000001Z`). Reading accepts any
/// number of fraction digits and a `Z` or `±HH:MM` offset.
enum JSONTimestamp {
    /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
    static let referenceOffset: Int64 = 978_307_200
    /// Powers of ten that `Double` holds exactly.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// The text for `date`, or `nil` when it is not finite or too far from the present
    /// (beyond about 290 billion years).
    static func string(for date: Date) -> String? {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite, abs(interval) < 9.0e15 else { return nil }
        let whole = interval.rounded(.down)
        var seconds = Int64(whole)
        let fraction: String
        if interval < 0 && interval > -1 {
            // interval - floor(interval) is not exact here: write 1 - |interval| digit by digit.
            seconds = -1
            fraction = complement(of: shortestFraction(-interval))
        } else {
            fraction = fractionDigits(interval - whole, whole: whole, interval: interval)
        }
        return format(unixSeconds: seconds + referenceOffset, fraction: fraction)
    }

    /// The date `text` names, or `nil` when it is not ISO 8601 date-time text.
    static func date(from text: UnsafeRawBufferPointer) -> Date? {
        var parser = Parser(bytes: text)
        guard let (unixSeconds, digits) = parser.parse() else { return nil }
        let seconds = unixSeconds - referenceOffset
        if digits.isEmpty { return Date(timeIntervalSinceReferenceDate: Double(seconds)) }
        if seconds != -1 && digits.count <= 15 {
            // The common case, without building text: an exact integer over an exact power of ten.
            var integer: Int64 = 0
            for digit in digits { integer = integer * 10 + Int64(digit - 48) }
            return Date(timeIntervalSinceReferenceDate: Double(seconds) + Double(integer) / powersOfTen[digits.count])
        }
        let fraction = String(decoding: digits, as: UTF8.self)
        if seconds == -1 {
            // The inverse of the complement written for the second before the reference date.
            guard let rest = decimalFraction(complement(of: fraction)) else { return nil }
            return Date(timeIntervalSinceReferenceDate: -rest)
        }
        guard let value = decimalFraction(fraction) else { return nil }
        return Date(timeIntervalSinceReferenceDate: Double(seconds) + value)
    }

    /// The date `text` names, or `nil`.
    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(from: UnsafeRawBufferPointer($0)) }
    }

    // MARK: Fractions

    /// The digits after the decimal point for `fraction` (in [0, 1)), exact for `whole + fraction == interval`.
    private static func fractionDigits(_ fraction: Double, whole: Double, interval: Double) -> String {
        if fraction == 0 { return "" }
        for digits in [3, 6, 9] {
            let scaled = (fraction * powersOfTen[digits]).rounded()
            guard scaled < powersOfTen[digits] else { continue }
            if whole + scaled / powersOfTen[digits] == interval {
                let text = String(Int64(scaled))
                return String(repeating: "0", count: digits - text.count) + text
            }
        }
        return shortestFraction(fraction)
    }

    /// The fewest decimal digits after the point that read back as exactly `fraction` (in (0, 1)).
    private static func shortestFraction(_ fraction: Double) -> String {
        // Swift prints the shortest text that reads back exactly ("0.125", "1.5e-07"); move
        // its exponent into leading zeros.
        let text = fraction.description
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let integerPart = parts[0]
        let fractionPart = parts.count > 1 ? parts[1] : ""
        // The value is 0.(integerPart fractionPart) times ten to the `point`; below one, the
        // digits before the point are zeros.
        let point = integerPart.count + exponent
        var digits = Array((integerPart + fractionPart).utf8)
        if point < 0 {
            digits = Array(repeating: 48, count: -point) + digits
        } else {
            digits.removeFirst(point)
        }
        while digits.last == 48 { digits.removeLast() }
        return String(decoding: digits, as: UTF8.self)
    }

    /// The digits of `1 - 0.digits` (the ten's complement, same length), for non-zero `digits`.
    private static func complement(of digits: String) -> String {
        var bytes = Array(digits.utf8)
        while bytes.last == 48 { bytes.removeLast() }
        guard let last = bytes.indices.last else { return "" }
        for index in bytes.indices {
            bytes[index] = 48 + (index == last ? 10 : 9) - (bytes[index] - 48)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of `0.digits`, correctly rounded.
    private static func decimalFraction(_ digits: String) -> Double? {
        guard digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        if digits.isEmpty { return 0 }
        if digits.utf8.count <= 15, let integer = Int64(digits) {
            // Both operands are exact, so the quotient is the correctly rounded decimal.
            return Double(integer) / powersOfTen[digits.utf8.count]
        }
        return Double("0." + digits)
    }

    // MARK: Calendar

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` for seconds since 1970, in the proleptic Gregorian calendar.
    ///
    /// Written byte by byte into the string's own storage: joining a dozen small strings (each
    /// number padded as a string of its own) cost about 7,800 instructions a date, a fifth of
    /// a JSON store's save and reload.
    private static func format(unixSeconds: Int64, fraction: String) -> String {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondOfDay = unixSeconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let fractionLength = fraction.utf8.count
        // Milliseconds, microseconds, nanoseconds, ...: trailing zeros up to a multiple of three.
        let zeros = (3 - fractionLength % 3) % 3
        // A sign and up to 19 digits of year, "-MM-DDTHH:MM:SS", the fraction and "Z".
        let capacity = 20 + 15 + (fractionLength == 0 ? 0 : 1 + fractionLength + zeros) + 1
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = DigitWriter(buffer: buffer)
            if year < 0 {
                writer.put("-")
                writer.put(-year, width: 6)
            } else if year > 9999 {
                writer.put("+")
                writer.put(year, width: 6)
            } else {
                writer.put(year, width: 4)
            }
            writer.put("-")
            writer.put(month, width: 2)
            writer.put("-")
            writer.put(day, width: 2)
            writer.put("T")
            writer.put(secondOfDay / 3600, width: 2)
            writer.put(":")
            writer.put(secondOfDay / 60 % 60, width: 2)
            writer.put(":")
            writer.put(secondOfDay % 60, width: 2)
            if fractionLength > 0 {
                writer.put(".")
                for byte in fraction.utf8 { writer.put(byte) }
                for _ in 0..<zeros { writer.put("0") }
            }
            writer.put("Z")
            return writer.count
        }
    }

    /// Writes ASCII into a string's uninitialized storage.
    private struct DigitWriter {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func put(_ byte: UInt8) {
            buffer[count] = byte
            count += 1
        }

        mutating func put(_ character: Unicode.Scalar) { put(UInt8(ascii: character)) }

        /// `value` (not negative) in decimal, zero-padded to at least `width` digits.
        mutating func put(_ value: Int64, width: Int) {
            var digits = 1
            var rest = value / 10
            while rest > 0 {
                digits += 1
                rest /= 10
            }
            let length = Swift.max(digits, width)
            var remaining = value
            for position in stride(from: count + length - 1, through: count, by: -1) {
                buffer[position] = UInt8(48 + remaining % 10)
                remaining /= 10
            }
            count += length
        }
    }

    /// Year, month, day of a day count from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The day count from 1970-01-01 of a date (Howard Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Reads `[±]YYYY-MM-DDTHH:MM:SS[.digits](Z|±HH:MM)`.
    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        /// Seconds since 1970 and the fraction's digits without trailing zeros.
        mutating func parse() -> (Int64, UnsafeRawBufferPointer)? {
            var sign: Int64 = 1
            if let first = peek(), first == UInt8(ascii: "+") || first == UInt8(ascii: "-") {
                sign = first == UInt8(ascii: "-") ? -1 : 1
                index += 1
            }
            guard let yearDigits = digits(minimum: 4, maximum: 12), expect("-"),
                let month = digits(exactly: 2), expect("-"), let day = digits(exactly: 2),
                expect("T") || expect("t") || expect(" "),
                let hour = digits(exactly: 2), expect(":"), let minute = digits(exactly: 2), expect(":"),
                let second = digits(exactly: 2)
            else { return nil }
            let year = sign * yearDigits
            guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
                hour <= 23, minute <= 59, second <= 59
            else { return nil }
            var fraction = UnsafeRawBufferPointer(rebasing: bytes[0..<0])
            if expect(".") || expect(",") {
                let start = index
                while let byte = peek(), byte >= 48, byte <= 57 { index += 1 }
                guard index > start else { return nil }
                var end = index
                while end > start && bytes[end - 1] == 48 { end -= 1 }
                fraction = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            }
            var offset: Int64 = 0
            if expect("Z") || expect("z") {
            } else if let byte = peek(), byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                index += 1
                guard let hours = digits(exactly: 2), expect(":"), let minutes = digits(exactly: 2), hours <= 23, minutes <= 59
                else { return nil }
                offset = (hours * 3600 + minutes * 60) * (byte == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
            guard index == bytes.count else { return nil }
            let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
            return (seconds, fraction)
        }

        private func daysIn(month: Int64, year: Int64) -> Int64 {
            switch month {
            case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }

        private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func expect(_ character: Unicode.Scalar) -> Bool {
            guard peek() == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        private mutating func digits(exactly count: Int) -> Int64? { digits(minimum: count, maximum: count) }

        private mutating func digits(minimum: Int, maximum: Int) -> Int64? {
            var value: Int64 = 0
            let start = index
            while index - start < maximum, let byte = peek(), byte >= 48, byte <= 57 {
                value = value * 10 + Int64(byte - 48)
                index += 1
            }
            return index - start >= minimum ? value : nil
        }
    }
}
