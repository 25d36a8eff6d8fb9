// The SampleTrips models of WWDC24 "What's new in SwiftData" (seed 004), with `import Strata`
// in place of `import SwiftData`. Trip is the session's final form (#Unique, #Index,
// .preserveValueOnDeletion); the session elides BucketListItem and LivingAccommodation,
// which follow Apple's SampleTrips project.
import Foundation
import Strata

@Model
class Trip {
    #Unique<Trip>([\.name, \.startDate, \.endDate])
    #Index<Trip>([\.name], [\.startDate], [\.endDate], [\.name, \.startDate, \.endDate])

    @Attribute(.preserveValueOnDeletion)
    var name: String
    var destination: String
    @Attribute(.preserveValueOnDeletion)
    var startDate: Date
    @Attribute(.preserveValueOnDeletion)
    var endDate: Date
    var bucketList: [BucketListItem] = [BucketListItem]()
    var livingAccommodation: LivingAccommodation?

    init(name: String, destination: String, startDate: Date, endDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
    }
}

@Model
class BucketListItem {
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

@Model
class LivingAccommodation {
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
