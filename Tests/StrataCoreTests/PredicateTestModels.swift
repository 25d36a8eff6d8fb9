import Foundation
import Strata

@testable import StrataCore

/// A small graph of detached models with varied values, and their snapshots, for checking
/// that filters evaluate on snapshots as predicates do on the models.
struct PredicateTestWorld {
    /// The date the seed's "current trip" predicate asks about.
    static let today = Date(timeIntervalSince1970: 1_700_000_000)

    let trips: [Trip]
    let items: [BucketListItem]
    let accommodations: [LivingAccommodation]
    let specimens: [Specimen]
    let snapshots: [PersistentIdentifier: DefaultSnapshot]

    init() {
        let day: TimeInterval = 86_400
        let today = Self.today
        func trip(_ name: String, _ destination: String, from start: Double, to end: Double) -> Trip {
            Trip(name: name, destination: destination, startDate: today + start * day, endDate: today + end * day)
        }
        let paris = trip("Paris", "France", from: -4, to: 6)
        let zurich = trip("Zürich", "Schweiz", from: -40, to: -30)
        let rome = trip("Rome", "Italy", from: -1, to: 1)
        let weekend = trip("paris weekend", "FRANCE", from: 20, to: 22)
        let tokyo = trip("Tokyo", "Japan", from: 0, to: 14)
        let empty = trip("", "", from: 0, to: 0)

        func item(_ title: String, reserved: Bool, planned: Bool, on trip: Trip?) -> BucketListItem {
            let item = BucketListItem(title: title, details: "", hasReservation: reserved, isInPlan: planned)
            item.trip = trip
            return item
        }
        let items = [
            item("Louvre Museum", reserved: true, planned: true, on: paris),
            item("Eiffel Tower", reserved: false, planned: false, on: paris),
            item("Colosseum", reserved: false, planned: true, on: rome),
            item("Vatican Museums", reserved: true, planned: true, on: rome),
            item("Musée d'Orsay", reserved: false, planned: false, on: weekend),
            item("Senso-ji", reserved: true, planned: true, on: tokyo),
            item("Stray idea", reserved: false, planned: false, on: nil),
        ]
        paris.bucketList = [items[0], items[1]]
        rome.bucketList = [items[2], items[3]]
        weekend.bucketList = [items[4]]
        tokyo.bucketList = [items[5]]

        func accommodation(_ place: String, reserved: Bool, for trip: Trip) -> LivingAccommodation {
            let accommodation = LivingAccommodation(address: "", placeName: place, hasReservation: reserved)
            accommodation.trip = trip
            trip.livingAccommodation = accommodation
            return accommodation
        }
        let accommodations = [
            accommodation("Hotel Zürich", reserved: true, for: paris),
            accommodation("Airbnb", reserved: false, for: rome),
            accommodation("Ryokan Ōsaka", reserved: true, for: tokyo),
        ]

        let plain = Specimen()
        let second = Specimen()
        second.int = 7
        second.int8 = 3
        second.double = 0.5
        second.float = 3.5
        second.bool = false
        second.string = "Zurich"
        second.date = today - day
        second.uuid = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        second.decimal = 1
        second.data = Data([9])
        second.priority = .low
        second.mood = .calm
        second.transport = .walk
        second.tags = []
        second.optionalInt = 3
        second.optionalString = "abc"
        second.optionalDate = today
        second.optionalPriority = .normal
        second.optionalTags = ["x"]
        let third = Specimen()
        third.int = 0
        third.int8 = -3
        third.double = -4
        third.string = ""
        third.date = today + day
        third.uuid = UUID(uuidString: "FFFFFFFF-0000-0000-0000-000000000001")!
        third.decimal = Decimal(string: "-0.5")!
        third.priority = .normal
        third.transport = .train(line: "S3")
        third.address = Address(street: "Main", postcode: "1")
        third.tags = ["old town", "beach", "zoo"]
        third.scores = [:]
        third.optionalInt = 12
        third.optionalString = ""
        third.optionalPriority = .high
        third.optionalTags = []
        let fourth = Specimen()
        fourth.int = 42
        fourth.double = 100
        fourth.string = "zürich"
        fourth.tags = ["Lake"]
        fourth.optionalString = "xyz"
        fourth.decimal = Decimal(string: "12345.6788")!
        let specimens = [plain, second, third, fourth]

        trips = [paris, zurich, rome, weekend, tokyo, empty]
        self.items = items
        self.accommodations = accommodations
        self.specimens = specimens

        var snapshots: [PersistentIdentifier: DefaultSnapshot] = [:]
        var related: [PersistentIdentifier: any BackingData] = [:]
        let models: [any PersistentModel] = trips + items + accommodations + specimens
        for model in models {
            let snapshot = DefaultSnapshot(from: model.anyBackingData, relatedBackingDatas: &related)
            snapshots[snapshot.persistentIdentifier] = snapshot
        }
        self.snapshots = snapshots
    }

    /// The snapshot of `model`.
    func snapshot(of model: some PersistentModel) -> DefaultSnapshot {
        guard let snapshot = snapshots[model.persistentModelID] else { fatalError("no snapshot of \(model.persistentModelID)") }
        return snapshot
    }

    /// An evaluator that resolves every model of the world.
    var evaluator: FilterEvaluator {
        let snapshots = snapshots
        return FilterEvaluator { snapshots[$0] }
    }
}
