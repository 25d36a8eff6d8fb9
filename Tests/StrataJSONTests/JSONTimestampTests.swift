import Foundation
import Testing

@testable import StrataJSON

/// ISO 8601 text for dates, exact in both directions.
@Suite struct JSONTimestampTests {
    static func roundTrips(_ interval: TimeInterval) -> Bool {
        let date = Date(timeIntervalSinceReferenceDate: interval)
        guard let text = JSONTimestamp.string(for: date), let back = JSONTimestamp.date(from: text) else { return false }
        return back.timeIntervalSinceReferenceDate.bitPattern == interval.bitPattern
            || (interval == 0 && back.timeIntervalSinceReferenceDate == 0)
    }

    @Test func everyDoubleInAWideRangeReadsBackBitForBit() {
        var generator = SystemRandomNumberGenerator()
        var failures: [TimeInterval] = []
        for magnitude in [1e-300, 1e-9, 0.5, 1, 1e3, 1e6, 1e9, 1e12, 1e15] {
            for _ in 0..<2_000 {
                let value = Double.random(in: -magnitude...magnitude, using: &generator)
                if !Self.roundTrips(value) { failures.append(value) }
            }
        }
        for special in [0.0, -0.0, -1.0, 1.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, -1e-300, 0.1, -0.1, 1.0.nextDown, -(1.0.nextDown), -1.0.nextUp] {
            if !Self.roundTrips(special) { failures.append(special) }
        }
        #expect(failures.isEmpty, "these intervals did not read back exactly: \(failures.prefix(5))")
    }

    @Test func fractionsUseMillisecondsMicrosecondsOrTheFewestExactDigits() {
        func text(_ interval: TimeInterval) -> String? { JSONTimestamp.string(for: Date(timeIntervalSinceReferenceDate: interval)) }
        #expect(text(0) == "2001-01-01T00:00:00Z")
        #expect(text(0.25) == "2001-01-01T00:00:00.250Z")
        #expect(text(1.000001) == "2001-01-01T00:00:01.000001Z")
        #expect(text(-0.001) == "2000-12-31T23:59:59.999Z")
        #expect(text(86_400 * 365 + 0.1) == "2002-01-01T00:00:00.100Z")
        #expect(text(1e-7) == "2001-01-01T00:00:00.000000100Z")
        // Beyond nanoseconds, the fewest digits that read back exactly.
        #expect(text(1e-21) == "2001-01-01T00:00:00.000000000000000000001Z")
        // Years before 0 and after 9999 take a sign and at least six digits.
        #expect(text(-63_200_000_000) == "-000002-04-10T12:26:40Z")
        #expect(text(300_000_000_000.5) == "+011507-08-17T05:20:00.500Z")
        #expect(text(-1e15) == "-31686738-06-29T22:13:20Z")
        #expect(text(1e14 + 0.125) == "+3170874-11-07T09:46:40.125Z")
        #expect(text(.infinity) == nil)
        #expect(text(.nan) == nil)
    }

    @Test func readingAcceptsOffsetsAndAnyNumberOfFractionDigits() {
        let noon = Date(timeIntervalSince1970: 1_717_243_200)  // 2024-06-01T12:00:00Z
        #expect(JSONTimestamp.date(from: "2024-06-01T12:00:00Z") == noon)
        #expect(JSONTimestamp.date(from: "2024-06-01T14:00:00+02:00") == noon)
        #expect(JSONTimestamp.date(from: "2024-06-01T07:30:00-04:30") == noon)
        #expect(JSONTimestamp.date(from: "2024-06-01T12:00:00.5Z") == noon.addingTimeInterval(0.5))
        #expect(JSONTimestamp.date(from: "2024-06-01T12:00:00.500000000000Z") == noon.addingTimeInterval(0.5))
        #expect(JSONTimestamp.date(from: "2024-02-29T00:00:00Z") != nil)
        #expect(JSONTimestamp.date(from: "+012024-06-01T12:00:00Z") != nil)
    }

    @Test func readingRejectsTextThatIsNotADate() {
        for text in [
            "", "2024-06-01", "2024-06-01T12:00:00", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-06-01T24:00:00Z",
            "2024-06-01T12:00:60Z", "2024-06-01T12:00:00.Z", "2024-06-01T12:00:00Zjunk", "yesterday",
        ] {
            #expect(JSONTimestamp.date(from: text) == nil, "\(text) was read as a date")
        }
    }
}
