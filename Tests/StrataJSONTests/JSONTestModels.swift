// Models for the JSON store's own tests: the seed's trips (WWDC24 "What's new in SwiftData")
// and one model with a property of every kind the file format writes differently.
import Foundation
import StrataCore

@Model final class Trip {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = [BucketListItem]()
    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model final class BucketListItem {
    var title: String
    var hasReservation: Bool
    var trip: Trip?

    init(title: String, hasReservation: Bool) {
        self.title = title
        self.hasReservation = hasReservation
    }
}

@Model final class LivingAccommodation {
    var placeName: String
    var trip: Trip?

    init(placeName: String) {
        self.placeName = placeName
    }
}

@Model final class Person {
    var name: String
    var age: Int

    init(name: String, age: Int) {
        self.name = name
        self.age = age
    }
}

/// A Codable value stored as nested JSON.
struct Coordinates: Codable, Hashable {
    var latitude: Double
    var longitude: Double
}

/// One property of each kind the format writes in its own way.
@Model final class Sample {
    var label: String
    var count: Int64
    var unsigned: UInt64
    var ratio: Double
    var flag: Bool
    var when: Date
    var blob: Data
    var amount: Decimal
    var token: UUID
    var link: URL
    var place: Coordinates
    var tags: [String]
    var note: String?

    init(label: String) {
        self.label = label
        count = 0
        unsigned = 0
        ratio = 0
        flag = false
        when = Date(timeIntervalSince1970: 0)
        blob = Data()
        amount = 0
        token = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        link = URL(string: "https://example.com")!
        place = Coordinates(latitude: 0, longitude: 0)
        tags = []
    }
}

/// A model with a declared default, which fills records that lack the attribute.
@Model final class Setting {
    var key: String
    var level: Int = 3

    init(key: String) {
        self.key = key
    }
}
