import Foundation
import StrataCore

// Models for the query compiler's tests: the seeds' trips graph (one-to-many, one-to-one
// and, through travelers, many-to-many) and a model with every attribute kind.

@Model final class Trip {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
    @Relationship(inverse: \LivingAccommodation.trip) var livingAccommodation: LivingAccommodation?
    @Relationship(inverse: \Traveler.trips) var travelers: [Traveler] = []

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model final class BucketListItem {
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool
    var trip: Trip?

    init(title: String, details: String, hasReservation: Bool, isInPlan: Bool) {
        self.title = title
        self.details = details
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }
}

@Model final class LivingAccommodation {
    var address: String
    var placeName: String
    var hasReservation: Bool
    var trip: Trip?

    init(address: String, placeName: String, hasReservation: Bool) {
        self.address = address
        self.placeName = placeName
        self.hasReservation = hasReservation
    }
}

@Model final class Traveler {
    var name: String
    var nickname: String?
    var trips: [Trip] = []

    init(name: String, nickname: String?) {
        self.name = name
        self.nickname = nickname
    }
}

enum SpecimenRank: Int, Codable {
    case bronze = 1, silver, gold
}

struct SpecimenAddress: Codable, Hashable {
    var street: String
    var postcode: String
}

/// One property of each attribute kind, optional and not.
@Model final class Specimen {
    var label: String
    var int: Int
    var double: Double
    var bool: Bool
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var decimal: Decimal
    var rank: SpecimenRank
    var tags: [String]
    var scores: [Int]
    var flags: [Bool]
    var ratings: [String: Int]
    var address: SpecimenAddress
    var optionalInt: Int?
    var optionalDouble: Double?
    var optionalString: String?
    var optionalDate: Date?
    var optionalUUID: UUID?
    var optionalDecimal: Decimal?
    var optionalTags: [String]?

    init(label: String) {
        self.label = label
        int = 0
        double = 0
        bool = false
        date = Date(timeIntervalSinceReferenceDate: 0)
        data = Data()
        uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        url = URL(string: "https://example.com")!
        decimal = 0
        rank = .bronze
        tags = []
        scores = []
        flags = []
        ratings = [:]
        address = SpecimenAddress(street: "", postcode: "")
    }
}
