import Foundation
import Strata
import Testing

/// A store in the manner of the WWDC24 JSONStore sample, which refuses every predicate and
/// sort, works through ModelContainer: the core filters, sorts, windows and counts for it.
@Suite struct CustomStoreTests {
    let url: URL
    let container: ModelContainer
    let context: ModelContext

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-wwdc-\(UUID()).json")
        let configuration = JSONStoreConfiguration(name: "wwdc", schema: Schema([Trip.self, Owner.self]), fileURL: url)
        container = try ModelContainer(for: Trip.self, Owner.self, configurations: configuration)
        context = ModelContext(container)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for (index, city) in ["Oslo", "Kyoto", "Zürich", "Lima", "Accra"].enumerated() {
            let trip = Trip(
                name: "Trip \(index)", destination: city, startDate: start.addingTimeInterval(Double(index) * 86_400),
                endDate: start.addingTimeInterval(Double(index + 3) * 86_400))
            trip.bucketList = [BucketListItem(title: "See \(city)", details: "", hasReservation: false, isInPlan: index % 2 == 0)]
            context.insert(trip)
        }
        try context.save()
    }

    @Test func theStoreWritesTheSnapshotsItWasGiven() throws {
        let data = try Data(contentsOf: url)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let snapshots = try decoder.decode([DefaultSnapshot].self, from: data)
        #expect(snapshots.filter { $0.persistentIdentifier.entityName == "Trip" }.count == 5)
        #expect(snapshots.filter { $0.persistentIdentifier.entityName == "BucketListItem" }.count == 5)
        #expect(snapshots.allSatisfy { !$0.persistentIdentifier.isTemporary })
    }

    @Test func predicatesSortsAndWindowsRunInMemory() throws {
        var descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination != "Lima" }, sortBy: [SortDescriptor(\.destination)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        #expect(try ModelContext(container).fetch(descriptor).map(\.destination) == ["Kyoto", "Oslo"])
        #expect(context.explain(descriptor).contains("store: \(url.lastPathComponent)"))
    }

    @Test func countsAndIdentifiersFallBackToMemoryToo() throws {
        let planned = #Predicate<Trip> { $0.bucketList.contains { $0.isInPlan } }
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor(predicate: planned)) == 3)
        #expect(try fresh.fetchIdentifiers(FetchDescriptor(predicate: planned)).count == 3)
        var limited = FetchDescriptor(predicate: planned, sortBy: [SortDescriptor(\.name, order: .reverse)])
        limited.fetchLimit = 1
        #expect(try fresh.fetch(limited).map(\.name) == ["Trip 4"])
    }

    @Test func deleteWhereAndRelationshipsWorkThroughTheStore() throws {
        try context.delete(model: Trip.self, where: #Predicate { $0.destination == "Oslo" || $0.destination == "Lima" })
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.destination)])).map(\.destination) == ["Accra", "Kyoto", "Zürich"])
        let items = try fresh.fetch(FetchDescriptor<BucketListItem>())
        #expect(items.count == 5)
        #expect(items.filter { $0.trip == nil }.count == 2)
    }

    @Test func cascadesRunThroughTheStore() throws {
        let owner = Owner(name: "Ada")
        owner.pets = [Pet(name: "Rex"), Pet(name: "Tom")]
        context.insert(owner)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Pet>()) == 2)
        context.delete(owner)
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Pet>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<Owner>()) == 0)
    }

    @Test func uniqueUpsertWorksForAStoreThatDoesNotFilter() throws {
        let existing = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })).first!
        context.insert(Trip(name: existing.name, destination: "Kyōto", startDate: existing.startDate, endDate: existing.endDate))
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Trip>()) == 5)
        #expect(try fresh.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 1" })).map(\.destination) == ["Kyōto"])
    }
}
