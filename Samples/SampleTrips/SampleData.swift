import Foundation

extension Trip {
    /// The sample trips the demo works with, each with bucket-list items and a place to stay.
    static func makeSampleTrips(now: Date = .now) -> [Trip] {
        let day: TimeInterval = 86_400
        let zurich = Trip(
            name: "Lakes and Old Towns", destination: "Zürich",
            startDate: now.addingTimeInterval(-2 * day), endDate: now.addingTimeInterval(5 * day))
        zurich.bucketList = [
            BucketListItem(title: "Swim in the lake", details: "Seebad Utoquai", hasReservation: false, isInPlan: true),
            BucketListItem(title: "Uetliberg sunset", details: "Train from HB", hasReservation: false, isInPlan: false),
        ]
        zurich.livingAccommodation = LivingAccommodation(
            address: "Seefeldstrasse 1", placeName: "Hotel Seerose", hasReservation: true)

        let kyoto = Trip(
            name: "Temples in Autumn", destination: "Kyoto",
            startDate: now.addingTimeInterval(30 * day), endDate: now.addingTimeInterval(40 * day))
        kyoto.bucketList = [
            BucketListItem(title: "Fushimi Inari at dawn", details: "Before 6am", hasReservation: false, isInPlan: true)
        ]
        kyoto.livingAccommodation = LivingAccommodation(
            address: "Gion 3-chome", placeName: "Ryokan Hanami", hasReservation: false)
        return [zurich, kyoto]
    }
}
