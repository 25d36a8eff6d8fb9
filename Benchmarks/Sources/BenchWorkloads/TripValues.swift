import Foundation

/// One trip as plain values: the data every backend stores, each field a deterministic
/// function of the row number `i`.
///
/// Dates are seconds since 2001-01-01 (`timeIntervalSinceReferenceDate`), stored as REAL by
/// all three backends, so the raw, GRDB and Strata files hold the same values.
public struct TripRow: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var destination: String
    public var startDate: Double
    public var endDate: Double
    public var budget: Double
    public var isFavorite: Bool

    public init(id: Int64, name: String, destination: String, startDate: Double, endDate: Double, budget: Double, isFavorite: Bool) {
        self.id = id
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
        self.budget = budget
        self.isFavorite = isFavorite
    }
}

/// The data set: N trips, the filter's cut-off date and the keys of the indexed lookups.
public enum TripValues {
    /// 2020-01-01 00:00 UTC as seconds since the reference date.
    static let firstStart: Double = 599_529_600
    static let day: Double = 86_400

    /// The filter's lower bound on `startDate`: 2021-07-01 00:00 UTC.
    public static let filterCutoff: Double = 646_790_400
    /// The filter's substring on `name` (case-sensitive everywhere: `instr`, Swift `contains`).
    public static let filterNeedle = "ab"
    /// How many indexed lookups the lookup workload runs.
    public static let lookupCount = 1_000

    /// Row `i` (0-based); its primary key is `i + 1`.
    public static func row(_ i: Int) -> TripRow {
        let h = mix(UInt64(i))
        return TripRow(
            id: Int64(i + 1),
            name: name(i, hash: h),
            destination: letters(mix(h ^ 0xD1B5_4A32_D192_ED03), count: 12),
            startDate: firstStart + Double((i &* 7_919) % 1_096) * day + Double(i % 86_400),
            endDate: firstStart + Double((i &* 7_919) % 1_096 + 1 + i % 21) * day,
            budget: Double(500 + (i &* 37) % 5_000) + 0.25,
            isFavorite: i % 7 == 0)
    }

    /// Rows `0..<count`.
    public static func rows(_ count: Int) -> [TripRow] {
        (0..<count).map(row)
    }

    /// The names looked up by the lookup workload: spread over the table, all present.
    public static func lookupKeys(count: Int) -> [String] {
        (0..<lookupCount).map { k in
            let i = (k &* 9_973 + 17) % count
            return name(i, hash: mix(UInt64(i)))
        }
    }

    /// 16 characters, unique per `i`: 11 pseudo-random lowercase letters, `-`, then `i` in base 26.
    static func name(_ i: Int, hash: UInt64) -> String {
        var bytes = Array(letters(hash, count: 11).utf8)
        bytes.append(UInt8(ascii: "-"))
        var rest = i
        var tail: [UInt8] = []
        for _ in 0..<4 {
            tail.append(UInt8(ascii: "a") + UInt8(rest % 26))
            rest /= 26
        }
        bytes.append(contentsOf: tail.reversed())
        return String(decoding: bytes, as: UTF8.self)
    }

    static func letters(_ seed: UInt64, count: Int) -> String {
        var state = seed
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            state = mix(state)
            bytes.append(UInt8(ascii: "a") + UInt8(state % 26))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SplitMix64's finaliser.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
