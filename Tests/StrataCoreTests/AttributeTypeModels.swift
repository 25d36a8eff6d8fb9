import Foundation
import Strata

enum Priority: Int, Codable, CaseIterable {
    case low, normal, high
}

enum Mood: String, Codable {
    case calm, excited
}

enum Transport: Codable, Hashable {
    case walk
    case train(line: String)
    case flight(number: String, seats: Int)
}

struct Coordinates: Codable, Hashable {
    var latitude: Double
    var longitude: Double
}

struct Address: Codable, Hashable {
    var street: String
    var postcode: String
    var location: Coordinates?
}

/// A model with one property of every attribute type Strata stores.
@Model
final class Specimen {
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
    var priority: Priority
    var mood: Mood
    var transport: Transport
    var address: Address
    var tags: [String]
    var scores: [String: Int]
    var stops: [Coordinates]

    var optionalInt: Int?
    var optionalString: String?
    var optionalDate: Date?
    var optionalUUID: UUID?
    var optionalPriority: Priority?
    var optionalTransport: Transport?
    var optionalAddress: Address?
    var optionalTags: [String]?

    @Transient var viewCount = 0

    var summary: String { "\(string) #\(int)" }

    init() {
        int = -1
        int8 = .min
        int16 = .max
        int32 = -32
        int64 = .min
        uint = .max
        uint8 = .max
        uint16 = 16
        uint32 = .max
        uint64 = .max
        double = 2.5
        float = 1.25
        bool = true
        string = "Zürich"
        date = Date(timeIntervalSince1970: 1_700_000_000.25)
        data = Data([0, 1, 2, 255])
        uuid = UUID(uuidString: "3E1B2B7C-6F6B-4C47-9F43-4D1F2B0B9A10")!
        url = URL(string: "https://example.com/a?b=c")!
        decimal = Decimal(string: "12345.6789")!
        priority = .high
        mood = .excited
        transport = .flight(number: "LX 318", seats: 2)
        address = Address(street: "Bahnhofstrasse 1", postcode: "8001", location: Coordinates(latitude: 47.37, longitude: 8.54))
        tags = ["lake", "old town"]
        scores = ["food": 5, "weather": 3]
        stops = [Coordinates(latitude: 1, longitude: 2)]
    }
}
