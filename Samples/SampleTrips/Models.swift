import Foundation
import Strata

/// A trip: where, when, what to see and where to stay.
@Model
final class Trip {
    #Unique<Trip>([\.name, \.startDate, \.endDate])
    #Index<Trip>([\.name], [\.startDate], [\.endDate], [\.name, \.startDate, \.endDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var destination: String
    @Attribute(.preserveValueOnDeletion)
    var startDate: Date
    @Attribute(.preserveValueOnDeletion)
    var endDate: Date

    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = [BucketListItem]()

    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?

    init(name: String, destination: String, startDate: Date = .now, endDate: Date = .distantFuture) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

/// Something to see or do on a trip.
@Model
final class BucketListItem {
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

/// Where the traveller stays.
@Model
final class LivingAccommodation {
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
