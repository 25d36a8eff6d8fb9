import Foundation
import StrataCore

// The attribute-type models of the conformance suite: one property of every type a store
// must keep, with factories for the extreme values checks save and read back.

/// A raw-value enum stored as its `Int` raw value.
enum SpecimenPriority: Int, Codable, Hashable, CaseIterable {
    case low = -1, normal = 0, high = 10
}

/// A raw-value enum stored as its `String` raw value.
enum SpecimenMood: String, Codable, Hashable {
    case calm, excited = "très excité"
}

/// A `Codable` enum with payloads, stored in its encoded form.
enum SpecimenTransport: Codable, Hashable {
    case walk
    case train(line: String)
    case flight(number: String, seats: Int)
}

/// A nested `Codable` struct.
struct SpecimenCoordinates: Codable, Hashable {
    var latitude: Double
    var longitude: Double
}

/// A `Codable` struct with an optional nested struct.
struct SpecimenAddress: Codable, Hashable {
    var street: String
    var postcode: String
    var location: SpecimenCoordinates?
}

/// One non-optional property of every attribute type.
@Model final class ScalarSpecimen {
    var label: String
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var bool: Bool
    var string: String
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var priority: SpecimenPriority
    var mood: SpecimenMood
    var transport: SpecimenTransport
    var address: SpecimenAddress
    var tags: [String]
    var scores: [String: Int]
    var stops: [SpecimenCoordinates]
    var matrix: [[Int]]

    init(label: String) {
        self.label = label
        int = 0
        int8 = 0
        int16 = 0
        int32 = 0
        int64 = 0
        uint = 0
        uint8 = 0
        uint16 = 0
        uint32 = 0
        uint64 = 0
        double = 0
        float = 0
        bool = false
        string = ""
        date = Date(timeIntervalSinceReferenceDate: 0)
        data = Data()
        uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        url = URL(string: "https://example.com")!
        decimal = 0
        priority = .normal
        mood = .calm
        transport = .walk
        address = SpecimenAddress(street: "", postcode: "", location: nil)
        tags = []
        scores = [:]
        stops = []
        matrix = []
    }

    /// The smallest or emptiest value of every type.
    static func minimum() -> ScalarSpecimen {
        let specimen = ScalarSpecimen(label: "minimum")
        specimen.int = .min
        specimen.int8 = .min
        specimen.int16 = .min
        specimen.int32 = .min
        specimen.int64 = .min
        specimen.uint = .min
        specimen.uint8 = .min
        specimen.uint16 = .min
        specimen.uint32 = .min
        specimen.uint64 = .min
        specimen.double = -.greatestFiniteMagnitude
        specimen.float = -.greatestFiniteMagnitude
        specimen.bool = false
        specimen.string = ""
        specimen.date = .distantPast
        specimen.data = Data()
        specimen.uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        specimen.url = URL(string: "file:///")!
        specimen.decimal = Decimal(string: "-12345678901234567890.123456789")!
        specimen.priority = .low
        specimen.mood = .calm
        specimen.transport = .walk
        specimen.address = SpecimenAddress(street: "", postcode: "", location: nil)
        specimen.tags = []
        specimen.scores = [:]
        specimen.stops = []
        specimen.matrix = []
        return specimen
    }

    /// The largest or fullest value of every type.
    static func maximum() -> ScalarSpecimen {
        let specimen = ScalarSpecimen(label: "maximum")
        specimen.int = .max
        specimen.int8 = .max
        specimen.int16 = .max
        specimen.int32 = .max
        specimen.int64 = .max
        specimen.uint = .max
        specimen.uint8 = .max
        specimen.uint16 = .max
        specimen.uint32 = .max
        specimen.uint64 = .max
        specimen.double = .greatestFiniteMagnitude
        specimen.float = .greatestFiniteMagnitude
        specimen.bool = true
        specimen.string = "Zürich 東京 🚀 e\u{301} \"quoted\" 'single' \\ back\nnew line\ttab"
        specimen.date = .distantFuture
        specimen.data = Data((0...255).map { UInt8($0) } + (0...255).reversed().map { UInt8($0) })
        specimen.uuid = UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!
        specimen.url = URL(string: "https://user@example.com:8443/a%20b/c?d=e&f=g#h")!
        specimen.decimal = Decimal(string: "12345678901234567890.123456789")!
        specimen.priority = .high
        specimen.mood = .excited
        specimen.transport = .flight(number: "LX 318", seats: Int.max)
        specimen.address = SpecimenAddress(
            street: "Bahnhofstrasse 1", postcode: "8001", location: SpecimenCoordinates(latitude: 47.37, longitude: -8.54))
        specimen.tags = ["lake", "", "old town", "lake"]
        specimen.scores = ["food": 5, "weather": -3, "": 0, "ünïcode": Int.min]
        specimen.stops = [SpecimenCoordinates(latitude: 1, longitude: 2), SpecimenCoordinates(latitude: -0.5, longitude: 0.25)]
        specimen.matrix = [[1, 2], [], [Int.max]]
        return specimen
    }

    /// Ordinary values, with fractions that binary floating point cannot hold exactly.
    static func typical() -> ScalarSpecimen {
        let specimen = ScalarSpecimen(label: "typical")
        specimen.int = -42
        specimen.int8 = -8
        specimen.int16 = 1_600
        specimen.int32 = -320_000
        specimen.int64 = 6_400_000_000
        specimen.uint = 42
        specimen.uint8 = 128
        specimen.uint16 = 65_000
        specimen.uint32 = 4_000_000_000
        specimen.uint64 = UInt64(Int64.max) + 1
        specimen.double = 0.1
        specimen.float = 0.1
        specimen.bool = true
        specimen.string = "x"
        specimen.date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        specimen.data = Data([0])
        specimen.uuid = UUID(uuidString: "3E1B2B7C-6F6B-4C47-9F43-4D1F2B0B9A10")!
        specimen.url = URL(fileURLWithPath: "/tmp/a file.txt")
        specimen.decimal = Decimal(string: "0.1")!
        specimen.priority = .normal
        specimen.mood = .excited
        specimen.transport = .train(line: "S3")
        specimen.address = SpecimenAddress(street: "Seefeld", postcode: "8008", location: nil)
        specimen.tags = ["one"]
        specimen.scores = ["only": 1]
        specimen.stops = [SpecimenCoordinates(latitude: 0.1, longitude: 0.2)]
        specimen.matrix = [[]]
        return specimen
    }

    /// Every persisted property's name with its value, for comparing two specimens.
    var fields: [(String, AnyHashable)] {
        [
            ("label", label), ("int", int), ("int8", int8), ("int16", int16), ("int32", int32), ("int64", int64),
            ("uint", uint), ("uint8", uint8), ("uint16", uint16), ("uint32", uint32), ("uint64", uint64),
            ("double", double), ("float", float), ("bool", bool), ("string", string), ("date", date), ("data", data),
            ("uuid", uuid), ("url", url), ("decimal", decimal), ("priority", priority), ("mood", mood),
            ("transport", transport), ("address", address), ("tags", tags), ("scores", scores), ("stops", stops),
            ("matrix", matrix),
        ]
    }
}

/// One optional property of every attribute type.
@Model final class OptionalSpecimen {
    var label: String
    var int: Int?
    var int8: Int8?
    var int16: Int16?
    var int32: Int32?
    var int64: Int64?
    var uint: UInt?
    var uint8: UInt8?
    var uint16: UInt16?
    var uint32: UInt32?
    var uint64: UInt64?
    var double: Double?
    var float: Float?
    var bool: Bool?
    var string: String?
    var date: Date?
    var data: Data?
    var uuid: UUID?
    var url: URL?
    var decimal: Decimal?
    var priority: SpecimenPriority?
    var mood: SpecimenMood?
    var transport: SpecimenTransport?
    var address: SpecimenAddress?
    var tags: [String]?
    var scores: [String: Int]?
    var stops: [SpecimenCoordinates]?

    init(label: String) {
        self.label = label
    }

    /// Every property `nil`.
    static func empty() -> OptionalSpecimen { OptionalSpecimen(label: "nil") }

    /// Every property set, including to values that look empty (`0`, `""`, `false`, `[]`).
    static func filled() -> OptionalSpecimen {
        let specimen = OptionalSpecimen(label: "set")
        specimen.int = 0
        specimen.int8 = .min
        specimen.int16 = .max
        specimen.int32 = -1
        specimen.int64 = .min
        specimen.uint = .max
        specimen.uint8 = 0
        specimen.uint16 = .max
        specimen.uint32 = .max
        specimen.uint64 = .max
        specimen.double = 0
        specimen.float = -1.5
        specimen.bool = false
        specimen.string = ""
        specimen.date = Date(timeIntervalSinceReferenceDate: -1.25)
        specimen.data = Data()
        specimen.uuid = UUID(uuidString: "A0B1C2D3-E4F5-4677-8899-AABBCCDDEEFF")!
        specimen.url = URL(string: "mailto:someone@example.com")!
        specimen.decimal = Decimal(string: "-0.000001")!
        specimen.priority = .low
        specimen.mood = .calm
        specimen.transport = .walk
        specimen.address = SpecimenAddress(street: "", postcode: "0", location: SpecimenCoordinates(latitude: 0, longitude: 0))
        specimen.tags = []
        specimen.scores = [:]
        specimen.stops = []
        return specimen
    }

    /// Every persisted property's name with its value, for comparing two specimens.
    var fields: [(String, AnyHashable)] {
        [
            ("label", label), ("int", int), ("int8", int8), ("int16", int16), ("int32", int32), ("int64", int64),
            ("uint", uint), ("uint8", uint8), ("uint16", uint16), ("uint32", uint32), ("uint64", uint64),
            ("double", double), ("float", float), ("bool", bool), ("string", string), ("date", date), ("data", data),
            ("uuid", uuid), ("url", url), ("decimal", decimal), ("priority", priority), ("mood", mood),
            ("transport", transport), ("address", address), ("tags", tags), ("scores", scores), ("stops", stops),
        ]
    }
}
