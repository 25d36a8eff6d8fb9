import Foundation
import Strata
import Testing

@Suite struct ObservationTests {
    @Test func changingAnAttributeNotifiesObservers() {
        let trip = Trip(name: "Oslo", destination: "Norway", startDate: .now, endDate: .now)
        let fired = Locked(0)
        withObservationTracking {
            _ = trip.name
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        trip.destination = "Elsewhere"
        #expect(fired.withLock { $0 } == 0)
        trip.name = "Bergen"
        #expect(fired.withLock { $0 } == 1)
    }

    @Test func changingARelationshipNotifiesObservers() {
        let trip = Trip(name: "Oslo", destination: "Norway", startDate: .now, endDate: .now)
        let fired = Locked(false)
        withObservationTracking {
            _ = trip.bucketList
        } onChange: {
            fired.withLock { $0 = true }
        }
        trip.bucketList.append(BucketListItem(title: "Fjord", details: "", hasReservation: false, isInPlan: false))
        #expect(fired.withLock { $0 })
    }
}
