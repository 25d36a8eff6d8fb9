import Foundation
import Strata
import StrataMemory
import Testing

/// The seeds' SampleTrips flow and the context's own behaviour, on MemoryStore.
@Suite struct ModelContextTests {
    let container: ModelContainer
    let context: ModelContext
    let today = Date(timeIntervalSince1970: 1_750_000_000)

    init() throws {
        container = try ModelContainer(
            for: Trip.self, Owner.self, Student.self, configurations: MemoryStoreConfiguration(name: "tests"))
        context = ModelContext(container)
    }

    func makeTrip(_ name: String, _ destination: String, startOffset: Double, days: Double) -> Trip {
        Trip(
            name: name, destination: destination, startDate: today.addingTimeInterval(startOffset * 86_400),
            endDate: today.addingTimeInterval((startOffset + days) * 86_400))
    }

    func insertSampleGraph() throws -> Trip {
        let zurich = makeTrip("Lakes and Old Towns", "Zürich", startOffset: -2, days: 7)
        zurich.bucketList = [
            BucketListItem(title: "Swim", details: "Utoquai", hasReservation: false, isInPlan: true),
            BucketListItem(title: "Uetliberg", details: "Sunset", hasReservation: false, isInPlan: false),
        ]
        zurich.livingAccommodation = LivingAccommodation(address: "Seefeld", placeName: "Hotel Seerose", hasReservation: true)
        context.insert(zurich)
        context.insert(makeTrip("Temples", "Kyoto", startOffset: 30, days: 10))
        context.insert(makeTrip("Fjords", "Bergen", startOffset: -20, days: 5))
        try context.save()
        return zurich
    }

    @Test func insertingARootInsertsItsGraphAndLinksInverses() throws {
        let trip = makeTrip("A", "B", startOffset: 0, days: 1)
        let item = BucketListItem(title: "x", details: "", hasReservation: false, isInPlan: false)
        trip.bucketList.append(item)
        context.insert(trip)
        #expect(context.insertedModelsArray.count == 2)
        #expect(item.trip === trip)
        #expect(trip.persistentModelID.isTemporary)
        try context.save()
        #expect(!trip.persistentModelID.isTemporary)
        #expect(!item.persistentModelID.isTemporary)
        #expect(!context.hasChanges)
    }

    /// After a save, the models it inserted are registered under their permanent identifiers
    /// only: a lookup by a temporary one finds nothing, whether the save held new models of
    /// one class (their temporary keys go in one step) or of several (one at a time).
    @Test(arguments: [false, true])
    func aSaveForgetsTheTemporaryIdentifiersOfItsInserts(withChildren: Bool) throws {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let trips = (0..<5).map { makeTrip("T\($0)", "D", startOffset: Double($0), days: 1) }
        if withChildren { trips[0].bucketList = [BucketListItem(title: "x", details: "", hasReservation: false, isInPlan: false)] }
        for trip in trips { context.insert(trip) }
        let temporary = trips.map(\.persistentModelID) + (withChildren ? [trips[0].bucketList[0].persistentModelID] : [])
        try context.save()
        for id in temporary {
            #expect(id.isTemporary)
            #expect((context.registeredModel(for: id) as Trip?) == nil && (context.registeredModel(for: id) as BucketListItem?) == nil)
        }
        for trip in trips {
            #expect(!trip.persistentModelID.isTemporary)
            #expect((context.registeredModel(for: trip.persistentModelID) as Trip?) === trip)
        }
        // The next new model registers and saves as the first ones did.
        let later = makeTrip("Later", "E", startOffset: 9, days: 1)
        context.insert(later)
        let laterTemporary = later.persistentModelID
        #expect((context.registeredModel(for: laterTemporary) as Trip?) === later)
        try context.save()
        #expect((context.registeredModel(for: laterTemporary) as Trip?) == nil)
        #expect((context.registeredModel(for: later.persistentModelID) as Trip?) === later)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 6)
    }

    @Test func appendingToAnInsertedModelInsertsTheChild() throws {
        let trip = try insertSampleGraph()
        let item = BucketListItem(title: "Boat", details: "", hasReservation: true, isInPlan: true)
        trip.bucketList.append(item)
        #expect(context.insertedModelsArray.contains { $0 === item })
        #expect(item.trip === trip)
        try context.save()
        let fresh = ModelContext(container)
        let trips = try fresh.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Zürich" }))
        #expect(trips.first?.bucketList.count == 3)
    }

    @Test func savedGraphReadsBackInANewContext() throws {
        _ = try insertSampleGraph()
        let fresh = ModelContext(container)
        let trips = try fresh.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Fjords", "Lakes and Old Towns", "Temples"])
        let zurich = trips[1]
        #expect(Set(zurich.bucketList.map(\.title)) == ["Swim", "Uetliberg"])
        #expect(zurich.livingAccommodation?.placeName == "Hotel Seerose")
        #expect(zurich.livingAccommodation?.trip === zurich)
        #expect(zurich.bucketList.allSatisfy { $0.trip === zurich })
    }

    @Test func seedSearchPredicatesFindTrips() throws {
        _ = try insertSampleGraph()
        var searchText = "zur"
        let byName = #Predicate<Trip> { searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) }
        #expect(try context.fetch(FetchDescriptor(predicate: byName)).isEmpty)
        let compound = #Predicate<Trip> {
            searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) || $0.destination.localizedStandardContains(searchText)
        }
        #expect(try context.fetch(FetchDescriptor(predicate: compound)).map(\.destination) == ["Zürich"])
        searchText = ""
        let all = #Predicate<Trip> { searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) }
        #expect(try context.fetchCount(FetchDescriptor(predicate: all)) == 3)
    }

    @Test func hotelNameAndUnplannedItemsQueriesWork() throws {
        _ = try insertSampleGraph()
        let hotel = "Hotel Seerose"
        let atHotel = #Predicate<Trip> { $0.livingAccommodation?.placeName == hotel }
        #expect(try context.fetch(FetchDescriptor(predicate: atHotel)).map(\.destination) == ["Zürich"])
        let now = today
        let ongoingWithUnplanned = #Predicate<Trip> { trip in
            trip.startDate < now && now < trip.endDate && trip.bucketList.contains { !$0.isInPlan }
        }
        #expect(try context.fetch(FetchDescriptor(predicate: ongoingWithUnplanned)).map(\.destination) == ["Zürich"])
    }

    @Test func sortLimitAndOffsetShapeTheResult() throws {
        _ = try insertSampleGraph()
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate, order: .reverse)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).map(\.destination) == ["Zürich"])
        #expect(try context.fetchIdentifiers(descriptor).count == 1)
    }

    @Test func uniqueConstraintTurnsACollidingInsertIntoAnUpdate() throws {
        let original = try insertSampleGraph()
        let duplicate = Trip(name: original.name, destination: "Zurich, Switzerland", startDate: original.startDate, endDate: original.endDate)
        context.insert(duplicate)
        try context.save()
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lakes and Old Towns" }))
        #expect(trips.count == 1)
        #expect(trips.first?.destination == "Zurich, Switzerland")
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
    }

    @Test func uniqueConstraintMergesTwoPendingInserts() throws {
        let first = makeTrip("Same", "First", startOffset: 0, days: 1)
        let second = makeTrip("Same", "Second", startOffset: 0, days: 1)
        context.insert(first)
        context.insert(second)
        try context.save()
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 1)
        #expect(trips.first?.destination == "Second")
        #expect(first.destination == "Second")
        #expect(second.persistentModelID == first.persistentModelID)
    }

    @Test func singlePropertyUniqueAttributeUpserts() throws {
        context.insert(Course(code: "CS101", title: "Intro"))
        try context.save()
        context.insert(Course(code: "CS101", title: "Introduction to Computing"))
        try context.save()
        let courses = try ModelContext(container).fetch(FetchDescriptor<Course>())
        #expect(courses.map(\.title) == ["Introduction to Computing"])
    }

    @Test func cascadeDeletesRelatedModelsRecursively() throws {
        let owner = Owner(name: "Ada")
        let pet = Pet(name: "Rex")
        pet.toys = [Toy(label: "Ball"), Toy(label: "Bone")]
        owner.pets = [pet]
        context.insert(owner)
        try context.save()
        context.delete(owner)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Pet>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Toy>()) == 0)
    }

    @Test func nullifyClearsTheOtherSide() throws {
        let owner = Owner(name: "Ada")
        let car = Car(plate: "ZH 1")
        owner.car = car
        context.insert(owner)
        try context.save()
        #expect(car.driver === owner)
        context.delete(owner)
        try context.save()
        let cars = try ModelContext(container).fetch(FetchDescriptor<Car>())
        #expect(cars.count == 1)
        #expect(cars.first?.driver == nil)
    }

    @Test func denyRefusesTheSaveAndChangesNothing() throws {
        let owner = Owner(name: "Ada")
        owner.debts = [Debt(amount: 10)]
        owner.pets = [Pet(name: "Rex")]
        context.insert(owner)
        try context.save()
        context.delete(owner)
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<Owner>()) == 1)
        #expect(try fresh.fetchCount(FetchDescriptor<Pet>()) == 1)
        #expect(try fresh.fetchCount(FetchDescriptor<Debt>()) == 1)
    }

    @Test func seedTripDeleteNullifiesItsItems() throws {
        let trip = try insertSampleGraph()
        context.delete(trip)
        try context.save()
        let items = try ModelContext(container).fetch(FetchDescriptor<BucketListItem>())
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0.trip == nil })
    }

    @Test func manyToManyInversesStayInStep() throws {
        let ada = Student(name: "Ada")
        let math = Course(code: "M1", title: "Math")
        let art = Course(code: "A1", title: "Art")
        ada.courses = [math, art]
        context.insert(ada)
        #expect(math.students.map(\.name) == ["Ada"])
        try context.save()
        ada.courses.removeAll { $0 === art }
        #expect(art.students.isEmpty)
        try context.save()
        let fresh = ModelContext(container)
        let students = try fresh.fetch(FetchDescriptor<Student>())
        #expect(students.first?.courses.map(\.code) == ["M1"])
        let artFetched = try fresh.fetch(FetchDescriptor<Course>(predicate: #Predicate { $0.code == "A1" }))
        #expect(artFetched.first?.students.isEmpty == true)
    }

    @Test func movingAChildUpdatesBothParents() throws {
        let first = makeTrip("One", "A", startOffset: 0, days: 1)
        let second = makeTrip("Two", "B", startOffset: 0, days: 1)
        let item = BucketListItem(title: "x", details: "", hasReservation: false, isInPlan: false)
        first.bucketList = [item]
        context.insert(first)
        context.insert(second)
        item.trip = second
        #expect(first.bucketList.isEmpty)
        #expect(second.bucketList.map(\.title) == ["x"])
    }

    @Test func pendingChangesAreReflectedUnlessExcluded() throws {
        _ = try insertSampleGraph()
        let kyoto = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })).first!
        kyoto.destination = "Nara"
        context.insert(makeTrip("New", "Kyoto", startOffset: 1, days: 1))
        let bergen = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Bergen" })).first!
        context.delete(bergen)

        let kyotoNow = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })
        #expect(try context.fetch(kyotoNow).map(\.name) == ["New"])
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
        var stored = kyotoNow
        stored.includePendingChanges = false
        #expect(try context.fetch(stored).map(\.name) == ["Temples"])
    }

    @Test func rollbackDiscardsInsertsChangesAndDeletes() throws {
        _ = try insertSampleGraph()
        let kyoto = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })).first!
        kyoto.destination = "Nara"
        let extra = makeTrip("Extra", "X", startOffset: 0, days: 1)
        context.insert(extra)
        let bergen = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Bergen" })).first!
        context.delete(bergen)
        #expect(context.hasChanges)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(kyoto.destination == "Kyoto")
        #expect(!bergen.isDeleted)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
    }

    @Test func rollbackRestoresTheSavedValueOfAPropertyChangedTwice() throws {
        _ = try insertSampleGraph()
        let kyoto = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })).first!
        kyoto.destination = "Nara"
        kyoto.name = "Renamed"
        kyoto.destination = "Osaka"
        context.rollback()
        #expect(kyoto.destination == "Kyoto", "the rollback restored the first change, not the saved value")
        #expect(kyoto.name == "Temples")
        // Saved, the restored values are what the store holds; a later rollback returns to them.
        kyoto.destination = "Nara"
        try context.save()
        kyoto.destination = "Osaka"
        context.rollback()
        #expect(kyoto.destination == "Nara")
    }

    @Test func enumerateVisitsEveryModelInBatchesAndGuardsMutations() throws {
        _ = try insertSampleGraph()
        var names: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 2) { names.append($0.name) }
        #expect(names == ["Fjords", "Lakes and Old Towns", "Temples"])
        context.insert(makeTrip("Dirty", "D", startOffset: 0, days: 1))
        #expect(throws: SwiftDataError.self) {
            try context.enumerate(FetchDescriptor<Trip>()) { _ in }
        }
        var count = 0
        try context.enumerate(FetchDescriptor<Trip>(), allowEscapingMutations: true) { _ in count += 1 }
        #expect(count == 3)
    }

    @Test func batchedFetchLoadsLazily() throws {
        _ = try insertSampleGraph()
        let results = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 2)
        #expect(results.count == 3)
        #expect(results.map(\.name) == ["Fjords", "Lakes and Old Towns", "Temples"])
    }

    @Test func identityIsOneObjectPerIdentifier() throws {
        let trip = try insertSampleGraph()
        let again = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Zürich" })).first
        #expect(again === trip)
        #expect(context.registeredModel(for: trip.persistentModelID) as Trip? === trip)
        #expect(context.model(for: trip.persistentModelID) === trip)
        let other = ModelContext(container)
        #expect(other.registeredModel(for: trip.persistentModelID) as Trip? == nil)
        #expect((other.model(for: trip.persistentModelID) as? Trip)?.name == trip.name)
    }

    @Test func deleteWhereMarksMatchesForTheNextSave() throws {
        let zurich = try insertSampleGraph()
        let items = zurich.bucketList
        try context.delete(model: Trip.self, where: #Predicate { $0.destination != "Kyoto" })
        #expect(context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Trip>()).map(\.destination) == ["Kyoto"], "the context's fetches leave the matches out")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 3, "the store deleted before the save")
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Trip>()).map(\.destination) == ["Kyoto"])
        // A trip's relationships have the default rule, .nullify: its items stay, without a trip.
        #expect(try reader.fetch(FetchDescriptor<BucketListItem>()).map { $0.trip == nil } == [true, true])
        #expect(zurich.isDeleted, "a registered model the delete removed still reads as live")
        #expect(items.allSatisfy { !$0.isDeleted && $0.trip == nil }, "a registered item still names its deleted trip")
    }

    @Test func savingInOneContextRefreshesAnother() throws {
        _ = try insertSampleGraph()
        let reader = ModelContext(container)
        let readerKyoto = try reader.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })).first!
        let writerKyoto = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" })).first!
        writerKyoto.name = "Temples in Spring"
        try context.save()
        _ = try reader.fetchCount(FetchDescriptor<Trip>())
        #expect(readerKyoto.name == "Temples in Spring")
    }

    /// Saves `context` and returns the identifiers its `didSave` listed as inserted.
    func insertedIdentifiersPostedBySaving() throws -> [PersistentIdentifier]? {
        let received = Box<[String: Any]>()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            received.value = note.userInfo as? [String: Any]
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        return received.value?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]
    }

    @Test func didSaveCarriesTheChangedIdentifiers() async throws {
        let trip = makeTrip("Note", "N", startOffset: 0, days: 1)
        context.insert(trip)
        let inserted = try insertedIdentifiersPostedBySaving()
        #expect(inserted == [trip.persistentModelID])
    }

    /// An insert deleted before the first save leaves a gap among the pending inserts: the
    /// others are saved in order, each with a permanent identifier, and the deleted one never is.
    @Test func anInsertDeletedBeforeTheSaveLeavesTheOthersInOrder() async throws {
        let trips = (0..<4).map { makeTrip("Gap \($0)", "G", startOffset: Double($0), days: 1) }
        for trip in trips { context.insert(trip) }
        context.delete(trips[1])
        let inserted = try insertedIdentifiersPostedBySaving()
        let kept = [trips[0], trips[2], trips[3]]
        #expect(inserted == kept.map(\.persistentModelID))
        #expect(kept.allSatisfy { !$0.persistentModelID.isTemporary && !$0.hasChanges })
        let stored = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map(\.name) == ["Gap 0", "Gap 2", "Gap 3"])
    }

    @Test func transactionSavesWhatTheBlockDid() throws {
        try context.transaction {
            context.insert(makeTrip("In a transaction", "T", startOffset: 0, days: 1))
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }
}

/// A mutable holder for values captured by notification observers in tests.
final class Box<Value>: @unchecked Sendable {
    var value: Value?
}

extension ModelContextTests {
    @Test func modelsKnowTheirContext() throws {
        let trip = makeTrip("Context", "C", startOffset: 0, days: 1)
        #expect(trip.modelContext == nil)
        context.insert(trip)
        #expect(trip.modelContext === context)
        #expect(trip.hasChanges)
        try context.save()
        #expect(!trip.hasChanges)
        trip.name = "Changed"
        #expect(trip.hasChanges)
        context.delete(trip)
        #expect(trip.isDeleted)
        try context.save()
        #expect(trip.modelContext == nil)
    }
}

extension ModelContextTests {
    @Test func upsertKeepsTheStoredModelsRelationshipsAndAddsNewOnes() throws {
        let original = try insertSampleGraph()
        let duplicate = Trip(name: original.name, destination: "Zürich again", startDate: original.startDate, endDate: original.endDate)
        duplicate.bucketList = [BucketListItem(title: "Museum", details: "", hasReservation: false, isInPlan: true)]
        context.insert(duplicate)
        try context.save()
        let fresh = ModelContext(container)
        let trips = try fresh.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Zürich again" }))
        #expect(trips.count == 1)
        #expect(Set(trips.first?.bucketList.map(\.title) ?? []) == ["Swim", "Uetliberg", "Museum"])
        #expect(trips.first?.livingAccommodation?.placeName == "Hotel Seerose")
        #expect(trips.first?.bucketList.allSatisfy { $0.trip === trips.first } == true)
        context.delete(original)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BucketListItem>()) == 3)
    }
}

extension ModelContextTests {
    @Test func largeImportsUpsertAgainstStoredAndPendingModels() throws {
        for index in 0..<50 { context.insert(Course(code: "C\(index)", title: "old \(index)")) }
        try context.save()
        for index in 25..<100 { context.insert(Course(code: "C\(index)", title: "new \(index)")) }
        context.insert(Course(code: "C99", title: "newest 99"))
        try context.save()
        let courses = try ModelContext(container).fetch(FetchDescriptor<Course>())
        #expect(courses.count == 100)
        let titles = Dictionary(uniqueKeysWithValues: courses.map { ($0.code, $0.title) })
        #expect(titles["C0"] == "old 0")
        #expect(titles["C30"] == "new 30")
        #expect(titles["C99"] == "newest 99")
    }
}

extension ModelContextTests {
    @Test func modelsKeepTheirLoadedAttributesAfterTheirContextIsGone() throws {
        _ = try insertSampleGraph()
        let trip = try ModelContext(container)
            .fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Zürich" })).first
        #expect(trip?.destination == "Zürich")
        #expect(trip?.modelContext == nil)
        // Relationships resolve through the context; without it they read as empty or nil.
        #expect(trip?.bucketList.isEmpty == true)
        #expect(trip?.livingAccommodation == nil)
    }

    @Test func relationshipsLoadedBeforeTheContextWentStayReadableAsLongAsTheContextLives() throws {
        _ = try insertSampleGraph()
        let reader = ModelContext(container)
        let trip = try reader.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Zürich" })).first
        #expect(trip?.bucketList.count == 2)
        #expect(trip?.livingAccommodation?.placeName == "Hotel Seerose")
        #expect(trip?.bucketList.allSatisfy { $0.trip === trip } == true)
    }
}

extension ModelContextTests {
    @Test func explainSaysWhereEachPartRunsWithoutShowingValues() throws {
        let secret = "Zürich"
        let translatable = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == secret }, sortBy: [SortDescriptor(\.name)])
        let plan = context.explain(translatable)
        #expect(plan.contains("filter: in the store: ($0.destination == ?)"))
        #expect(plan.contains("sort: in the store: name ascending"))
        #expect(plan.contains("MemoryStore evaluates the filter"))
        #expect(!plan.contains(secret))
        let computed = FetchDescriptor<Specimen>(predicate: #Predicate { $0.summary == "x" })
        let specimens = try ModelContainer(for: Specimen.self, configurations: MemoryStoreConfiguration(name: "specimens"))
        #expect(ModelContext(specimens).explain(computed).contains("filter: in memory on models"))
        #expect(context.explain(computed).contains("no configuration of this container holds the model Specimen"))
    }
}

extension ModelContextTests {
    /// A computed property has no stored form: the predicate, the sort and the window run on
    /// the fetched models, with the descriptor's own predicate and sort descriptors.
    @Test func aPredicateAndSortOnAComputedPropertyRunOnTheModels() throws {
        let container = try ModelContainer(for: Specimen.self, configurations: MemoryStoreConfiguration(name: "computed"))
        let writer = ModelContext(container)
        for (string, int) in [("b", 2), ("a", 1), ("c", 3), ("d", 4)] {
            let specimen = Specimen()
            specimen.string = string
            specimen.int = int
            writer.insert(specimen)
        }
        try writer.save()
        var descriptor = FetchDescriptor<Specimen>(
            predicate: #Predicate { $0.summary != "c #3" }, sortBy: [SortDescriptor(\.summary, order: .reverse)])
        let reader = ModelContext(container)
        #expect(reader.explain(descriptor).contains("filter: in memory on models"))
        #expect(reader.explain(descriptor).contains("sort: in memory on models"))
        #expect(try reader.fetch(descriptor).map(\.summary) == ["d #4", "b #2", "a #1"])
        descriptor.fetchLimit = 2
        #expect(try reader.fetch(descriptor).map(\.summary) == ["d #4", "b #2"])
        #expect(try reader.fetchCount(descriptor) == 2)
    }
}
