import Foundation
import Strata
import StrataMemory
import Testing

/// The context at its edges: ownership, failing stores, saves across stores, batches.
@Suite struct ContextEdgeTests {
    let today = Date(timeIntervalSince1970: 1_750_000_000)

    func recordingContainer(_ controls: StoreControls) throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: RecordingStoreConfiguration(name: "trips", controls: controls))
    }

    func insertTrip(into container: ModelContainer, name: String = "Lakes", items: Int = 2) throws {
        let context = ModelContext(container)
        let trip = Trip(name: name, destination: "Zürich", startDate: today, endDate: today.addingTimeInterval(86_400))
        trip.bucketList = (0..<items).map { BucketListItem(title: "item \($0)", details: "", hasReservation: false, isInPlan: true) }
        trip.livingAccommodation = LivingAccommodation(address: "Seefeld", placeName: "Hotel Seerose", hasReservation: true)
        context.insert(trip)
        try context.save()
    }
}

// MARK: Ownership

extension ContextEdgeTests {
    @Test func aContextAndTheGraphItFetchedAreFreedWhenTheScopeEnds() throws {
        let controls = StoreControls()
        let container = try recordingContainer(controls)
        try insertTrip(into: container)
        weak var weakContext: ModelContext?
        weak var weakTrip: Trip?
        weak var weakItem: BucketListItem?
        weak var weakLodging: LivingAccommodation?
        do {
            let context = ModelContext(container)
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            let item = try #require(trip.bucketList.first)
            #expect(item.trip === trip)  // the inverse is loaded: trip and item refer to each other
            let lodging = try #require(trip.livingAccommodation)
            #expect(lodging.placeName == "Hotel Seerose")
            #expect(lodging.trip === trip)  // two to-one relationships that refer to each other
            weakContext = context
            weakTrip = trip
            weakItem = item
            weakLodging = lodging
        }
        #expect(weakContext == nil)
        #expect(weakTrip == nil)
        #expect(weakItem == nil)
        #expect(weakLodging == nil)
        #expect(controls.openContexts == 0)
    }

    @Test func thousandsOfRequestContextsLeaveNoModelBehind() throws {
        let controls = StoreControls()
        let container = try recordingContainer(controls)
        for index in 0..<12 { try insertTrip(into: container, name: "Trip \(index)", items: 3) }
        var survivors: [() -> AnyObject?] = []
        for request in 0..<2_000 {
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<Trip>())
            #expect(trips.count == 12)
            let items = trips.flatMap(\.bucketList)
            #expect(items.count == 36)
            _ = trips.map { $0.livingAccommodation?.placeName }
            if request % 200 == 0, let trip = trips.first, let item = items.first {
                weak var weakTrip = trip
                weak var weakItem = item
                weak var weakContext = context
                survivors.append { weakTrip }
                survivors.append { weakItem }
                survivors.append { weakContext }
            }
        }
        #expect(survivors.allSatisfy { $0() == nil })
        #expect(controls.openContexts == 0)
    }

    @Test func releasingTheLastReferenceToAContainerClosesItsStores() throws {
        let controls = StoreControls()
        weak var weakContainer: ModelContainer?
        do {
            let container = try recordingContainer(controls)
            try insertTrip(into: container)
            let context = ModelContext(container)
            _ = try context.fetch(FetchDescriptor<Trip>()).first?.bucketList.count
            weakContainer = container
        }
        #expect(weakContainer == nil)
        #expect(controls.isClosed)
    }

    @MainActor
    @Test func theMainContextDoesNotKeepItsContainerAlive() throws {
        let controls = StoreControls()
        do {
            let container = try recordingContainer(controls)
            container.mainContext.autosaveEnabled = false
            container.mainContext.insert(Trip(name: "Main", destination: "M", startDate: today, endDate: today))
            try container.mainContext.save()
            #expect(try container.mainContext.fetchCount(FetchDescriptor<Trip>()) == 1)
        }
        #expect(controls.isClosed)
    }

    @MainActor
    @Test func aMainContextKeptAfterItsContainerStillWorks() throws {
        let controls = StoreControls()
        var context: ModelContext? = try recordingContainer(controls).mainContext
        context?.autosaveEnabled = false
        context?.insert(Trip(name: "Kept", destination: "K", startDate: today, endDate: today))
        try context?.save()
        #expect(try context?.fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(context?.container.schema.entitiesByName["Trip"] != nil)
        #expect(!controls.isClosed)
        context = nil
        #expect(controls.isClosed)
    }
}

// MARK: Saves

extension ContextEdgeTests {
    @Test func savingAnUpdateLoadsNothing() throws {
        let controls = StoreControls()
        let container = try recordingContainer(controls)
        try insertTrip(into: container)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        controls.resetFetches()
        trip.destination = "Lucerne"
        try context.save()
        #expect(controls.fetches == 0, "the save loaded relationships that were never read")
        let update = try #require(controls.saves.last?.updated.first)
        #expect(update["destination"] == .string("Lucerne"))
        #expect(update["bucketList"]?.kind == .identifiers, "an unread to-many is sent as the identifiers it was fetched with")

        let reader = ModelContext(container)
        let stored = try #require(try reader.fetch(FetchDescriptor<Trip>()).first)
        #expect(stored.destination == "Lucerne")
        #expect(stored.bucketList.count == 2)
        #expect(stored.livingAccommodation?.placeName == "Hotel Seerose")
    }

    @Test func aRelationshipThatFailedToLoadIsNeverWrittenBackEmpty() throws {
        let controls = StoreControls()
        let container = try recordingContainer(controls)
        try insertTrip(into: container)
        let context = ModelContext(container)
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        controls.failFetches(true)
        #expect(trip.bucketList.isEmpty)  // the read cannot throw: it logs, and reads as empty
        trip.bucketList.append(BucketListItem(title: "new", details: "", hasReservation: false, isInPlan: false))
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        controls.failFetches(false)

        let reader = ModelContext(container)
        let stored = try #require(try reader.fetch(FetchDescriptor<Trip>()).first)
        #expect(Set(stored.bucketList.map(\.title)) == ["item 0", "item 1"])
    }

    @Test func fetchTimeErrorsOfAStoreAreThrown() throws {
        let controls = StoreControls()
        let container = try recordingContainer(controls)
        try insertTrip(into: container)
        let context = ModelContext(container)
        controls.failFetches(true)
        #expect(throws: InjectedFailure.self) { try context.fetch(FetchDescriptor<Trip>()) }
        #expect(throws: InjectedFailure.self) { try context.fetchCount(FetchDescriptor<Trip>()) }
        #expect(throws: InjectedFailure.self) { try context.fetchIdentifiers(FetchDescriptor<Trip>()) }
        controls.failFetches(false)
        var prefetching = FetchDescriptor<Trip>()
        prefetching.relationshipKeyPathsForPrefetching = [\.bucketList]
        let trips = try context.fetch(prefetching)
        #expect(trips.count == 1)
        #expect(trips.first?.bucketList.count == 2)
    }

    /// A to-one that several fetched models share is registered once from the snapshot the
    /// store sent along, and not looked up again for each further model that lists it.
    @Test func aPrefetchedToOneSharedByManyModelsIsNotLookedUpAgain() throws {
        let controls = StoreControls()
        let container = try recordingContainer(controls)
        try insertTrip(into: container, name: "Lakes", items: 3)
        try insertTrip(into: container, name: "Temples", items: 2)
        controls.sendRelated([Trip.self, BucketListItem.self, LivingAccommodation.self])
        let context = ModelContext(container)
        controls.resetFetches()
        var byTrip = FetchDescriptor<BucketListItem>(sortBy: [SortDescriptor(\.title)])
        byTrip.relationshipKeyPathsForPrefetching = [\.trip]
        let items = try context.fetch(byTrip)
        #expect(controls.fetches == 1, "the shared trips were looked up again")
        #expect(items.count == 5)
        let trips = Dictionary(grouping: items) { $0.trip.map(ObjectIdentifier.init) }
        #expect(trips.count == 2, "each trip is one model")
        #expect(Set(items.compactMap { $0.trip?.name }) == ["Lakes", "Temples"])
        // The related snapshots no prefetched relationship took are kept for later faults.
        #expect(Set(items.compactMap { $0.trip?.livingAccommodation?.placeName }) == ["Hotel Seerose"])
        #expect(controls.fetches == 1)

        // A to-many whose members have one owner each: the members come along too.
        let other = ModelContext(container)
        controls.resetFetches()
        var withItems = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        withItems.relationshipKeyPathsForPrefetching = [\.bucketList]
        let fetched = try other.fetch(withItems)
        #expect(fetched.map { $0.bucketList.count } == [3, 2])
        #expect(controls.fetches == 1)
    }

    /// Owners in a memory store; courses, which have no relationship to them, in a recording store.
    func twoStoreContainer(_ controls: StoreControls) throws -> ModelContainer {
        try ModelContainer(
            for: Schema([Owner.self, Course.self]),
            configurations: [
                MemoryStoreConfiguration(name: "owners", schema: Schema([Owner.self])),
                RecordingStoreConfiguration(name: "courses", schema: Schema([Course.self, Student.self]), controls: controls),
            ])
    }

    @Test func aRetriedSaveAcrossTwoStoresSendsEachChangeOnce() throws {
        let controls = StoreControls()
        let container = try twoStoreContainer(controls)
        let context = ModelContext(container)
        let owner = Owner(name: "Ada")
        let course = Course(code: "CS101", title: "Programming")
        context.insert(owner)
        context.insert(course)
        controls.failNextSaves(1)
        var partial: ModelContext.PartialSaveError?
        do {
            try context.save()
            Issue.record("the save should have failed in the second store")
        } catch let error as ModelContext.PartialSaveError {
            partial = error
            #expect(error.underlyingError is InjectedFailure)
        }
        #expect(partial?.committedStores == owner.persistentModelID.storeIdentifier.map { [$0] })
        #expect(!owner.persistentModelID.isTemporary)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1, "only the failed store's insert is still pending")
        try context.save()
        #expect(!context.hasChanges)

        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Owner>()) == 1, "the retry inserted the first store's model again")
        #expect(try reader.fetchCount(FetchDescriptor<Course>()) == 1)
        #expect(partial?.failedStore == course.persistentModelID.storeIdentifier)
        #expect(controls.saves.count == 2)
        #expect(controls.saves.allSatisfy { $0.inserted.count == 1 })
    }

    @Test func aSaveWhoseFirstStoreFailsSavesNothingAndKeepsEveryChange() throws {
        let controls = StoreControls()
        let container = try ModelContainer(
            for: Schema([Owner.self, Course.self]),
            configurations: [
                RecordingStoreConfiguration(name: "courses", schema: Schema([Course.self, Student.self]), controls: controls),
                MemoryStoreConfiguration(name: "owners", schema: Schema([Owner.self])),
            ])
        let context = ModelContext(container)
        context.insert(Owner(name: "Ada"))
        context.insert(Course(code: "CS101", title: "Programming"))
        controls.failNextSaves(1)
        #expect(throws: InjectedFailure.self) { try context.save() }
        #expect(context.insertedModelsArray.count == 2)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Owner>()) == 1)
        #expect(try reader.fetchCount(FetchDescriptor<Course>()) == 1)
    }
}

// MARK: Batches (the conformance suite checks that batches shrink when rows vanish)

extension ContextEdgeTests {
    func insertCourses(_ count: Int, into container: ModelContainer) throws {
        let context = ModelContext(container)
        for index in 0..<count { context.insert(Course(code: String(format: "C%02d", index), title: "Course \(index)")) }
        try context.save()
    }

    @Test func enumerateReleasesEachBatchAfterVisitingIt() throws {
        let container = try ModelContainer(for: Course.self, configurations: MemoryStoreConfiguration(name: "release"))
        try insertCourses(9, into: container)
        let context = ModelContext(container)
        final class WeakBox { weak var course: Course? }
        var visited: [WeakBox] = []
        var liveAtVisit: [Int] = []
        try context.enumerate(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.code)]), batchSize: 3) { course in
            liveAtVisit.append(visited.filter { $0.course != nil }.count)
            let box = WeakBox()
            box.course = course
            visited.append(box)
        }
        #expect(liveAtVisit == [0, 1, 2, 0, 1, 2, 0, 1, 2])
        #expect(visited.allSatisfy { $0.course == nil })
    }

    /// A container of `count` courses in `store`: "sqlite" (in memory) or "memory" (MemoryStore).
    func coursesContainer(_ store: String, named name: String, holding count: Int) throws -> ModelContainer {
        let configuration: any DataStoreConfiguration =
            store == "sqlite" ? ModelConfiguration(isStoredInMemoryOnly: true) : MemoryStoreConfiguration(name: name)
        let container = try ModelContainer(for: Course.self, configurations: configuration)
        try insertCourses(count, into: container)
        return container
    }

    @Test(arguments: ["sqlite", "memory"])
    func enumerateKeepsTheModelsSomethingElseHolds(store: String) throws {
        let container = try coursesContainer(store, named: "kept", holding: 9)
        let context = ModelContext(container)
        var kept: [Course] = []
        var released: [PersistentIdentifier] = []
        try context.enumerate(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.code)]), batchSize: 3) { course in
            if course.code.hasSuffix("4") || course.code.hasSuffix("8") { kept.append(course) } else { released.append(course.persistentModelID) }
        }
        #expect(kept.map(\.code) == ["C04", "C08"])
        for course in kept {
            #expect(context.registeredModel(for: course.persistentModelID) as Course? === course, "a held model left the identity map")
        }
        #expect(released.count == 7)
        for id in released { #expect(context.registeredModel(for: id) as Course? == nil, "\(id) stayed registered") }
    }

    /// A fetch hands its models over in runs (see `MaterializingRun`): hundreds of them
    /// come back once each, in the order asked for.
    @Test(arguments: ["sqlite", "memory"])
    func aFetchOfManyModelsKeepsEveryOneInOrder(store: String) throws {
        let container = try coursesContainer(store, named: "many", holding: 200)
        let context = ModelContext(container)
        let courses = try context.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.code, order: .reverse)]))
        #expect(courses.map(\.code) == (0..<200).map { String(format: "C%02d", $0) }.sorted(by: >))
        #expect(Set(courses.map(ObjectIdentifier.init)).count == 200)
        let again = try context.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.code, order: .reverse)]))
        #expect(zip(courses, again).allSatisfy { $0 === $1 }, "a second fetch made other objects")
    }

    @Test func aBatchedFetchReleasesBatchesItMovedPast() throws {
        let container = try ModelContainer(for: Course.self, configurations: MemoryStoreConfiguration(name: "batched"))
        try insertCourses(9, into: container)
        let context = ModelContext(container)
        let results = try context.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.code)]), batchSize: 3)
        final class WeakBox { weak var course: Course? }
        var boxes: [WeakBox] = []
        var codes: [String] = []
        for course in results {
            let box = WeakBox()
            box.course = course
            boxes.append(box)
            codes.append(course.code)
        }
        #expect(codes.count == 9)
        #expect(boxes.prefix(6).allSatisfy { $0.course == nil }, "a batch the collection moved past is still alive")
        let kept = results[0]  // a released batch loads again, as new objects of the same identifiers
        #expect(kept.code == "C00" && context.model(for: kept.persistentModelID) === kept)
    }
}

// MARK: Deletes by predicate

extension ContextEdgeTests {
    func insertNovels(into container: ModelContainer) throws -> [PersistentIdentifier] {
        let context = ModelContext(container)
        let novels = ["Anna Karenina", "Atonement", "Beloved", "Emma", "Austerlitz", "Ulysses"].map { Novel(title: $0) }
        for novel in novels { context.insert(novel) }
        try context.save()
        return novels.filter { $0.title.hasPrefix("A") }.map(\.persistentModelID)
    }

    @Test func aDeleteByPredicateUsesTheStoresBatchDeleteAndLoadsNoMatch() throws {
        let controls = StoreControls()
        let container = try ModelContainer(
            for: Novel.self,
            configurations: BatchingRecordingStore.Configuration(recording: RecordingStoreConfiguration(name: "novels", controls: controls)))
        let matches = try insertNovels(into: container)
        let context = ModelContext(container)
        try context.delete(model: Novel.self, where: #Predicate { $0.title.starts(with: "A") })
        #expect(matches.allSatisfy { (context.registeredModel(for: $0) as Novel?) == nil }, "a match was loaded")
        let savesBefore = controls.saves.count
        try context.save()
        #expect(controls.batchDeletes == 1)
        #expect(controls.saves.count == savesBefore, "the batch delete also went through a save request")
        let titles = try ModelContext(container).fetch(FetchDescriptor<Novel>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["Beloved", "Emma", "Ulysses"])
    }

    @Test func aStoreWithoutBatchDeletesGetsTheMatchesByIdentifier() throws {
        let controls = StoreControls()
        let container = try ModelContainer(for: Novel.self, configurations: RecordingStoreConfiguration(name: "novels", controls: controls))
        let matches = try insertNovels(into: container)
        let context = ModelContext(container)
        try context.delete(model: Novel.self, where: #Predicate { $0.title.starts(with: "A") })
        #expect(matches.allSatisfy { (context.registeredModel(for: $0) as Novel?) == nil }, "a match was loaded")
        try context.save()
        let request = try #require(controls.saves.last)
        #expect(Set(request.deleted.map(\.persistentIdentifier)) == Set(matches))
        #expect(request.deleted.allSatisfy { $0.propertyNames.contains("title") }, "a store on SwiftData's API gets whole snapshots")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Novel>()) == 3)
    }

    @Test func otherContextsForgetModelsADeleteByPredicateRemoved() throws {
        let container = try ModelContainer(for: Novel.self, configurations: MemoryStoreConfiguration(name: "novels"))
        let matches = try insertNovels(into: container)
        let holder = ModelContext(container)
        let held: Novel? = holder.registeredModel(for: matches[0]) ?? (holder.model(for: matches[0]) as? Novel)
        #expect(held?.title == "Anna Karenina")
        let deleter = ModelContext(container)
        try deleter.delete(model: Novel.self, where: #Predicate { $0.title.starts(with: "A") })
        try deleter.save()
        #expect(try holder.fetch(FetchDescriptor<Novel>()).count == 3)
        #expect((holder.registeredModel(for: matches[0]) as Novel?) == nil)
    }
}

// MARK: Deletes by predicate whose delete rules reach other models

extension ContextEdgeTests {
    /// Three owners whose names start with "A" and one that does not, each with a pet that
    /// has a toy, a car, and a favourite book.
    func insertOwners(into container: ModelContainer) throws {
        let context = ModelContext(container)
        for name in ["Ada", "Alan", "Anita", "Grace"] {
            let owner = Owner(name: name)
            let pet = Pet(name: "\(name)'s cat")
            pet.toys = [Toy(label: "\(name)'s ball")]
            owner.pets = [pet]
            owner.car = Car(plate: "\(name)-1")
            owner.favouriteBook = Novel(title: "\(name)'s book")
            context.insert(owner)
        }
        try context.save()
    }

    func ownerContainer(_ configuration: any DataStoreConfiguration) throws -> ModelContainer {
        try ModelContainer(for: Owner.self, Pet.self, Toy.self, Debt.self, Car.self, Novel.self, configurations: configuration)
    }

    @Test(arguments: ["memory", "recording"])
    func aDeleteByPredicateAppliesDeleteRulesOnStoredValues(store: String) throws {
        let container = try ownerContainer(
            store == "memory"
                ? MemoryStoreConfiguration(name: "owners") as any DataStoreConfiguration
                : RecordingStoreConfiguration(name: "owners", controls: StoreControls()))
        try insertOwners(into: container)
        let holder = ModelContext(container)
        let heldCar = try #require(try holder.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.plate == "Ada-1" })).first)
        #expect(heldCar.driver?.name == "Ada")

        let context = ModelContext(container)
        let ownCar = try #require(try context.fetch(FetchDescriptor<Car>(predicate: #Predicate { $0.plate == "Alan-1" })).first)
        try context.delete(model: Owner.self, where: #Predicate { $0.name.starts(with: "A") })
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Owner>()) == 1)
        #expect(try context.fetch(FetchDescriptor<Pet>()).map(\.name) == ["Grace's cat"], ".cascade left pets behind")
        #expect(try context.fetch(FetchDescriptor<Toy>()).map(\.label) == ["Grace's ball"], "the cascade stopped after one level")
        #expect(try context.fetchCount(FetchDescriptor<Novel>()) == 4, ".noAction deleted a book")
        let reader = ModelContext(container)
        let cars = try reader.fetch(FetchDescriptor<Car>(sortBy: [SortDescriptor(\.plate)]))
        #expect(cars.map(\.plate) == ["Ada-1", "Alan-1", "Anita-1", "Grace-1"], ".nullify deleted a car")
        #expect(cars.map { $0.driver?.name } == [nil, nil, nil, "Grace"], "a stored car still names a deleted driver")
        #expect(ownCar.driver == nil, "the deleting context's car still names its deleted driver")
        holder.processPendingChanges()
        #expect(heldCar.driver == nil, "another context's car still names its deleted driver")
    }

    @Test func aDeleteByPredicateNullifiesToManyInverses() throws {
        let container = try ModelContainer(for: Student.self, Course.self, configurations: MemoryStoreConfiguration(name: "school"))
        let writer = ModelContext(container)
        let math = Course(code: "M1", title: "Math")
        for name in ["Ann", "Bob", "Cid"] {
            let student = Student(name: name)
            student.courses = [math]
            writer.insert(student)
        }
        try writer.save()
        #expect(math.students.count == 3)

        let deleter = ModelContext(container)
        try deleter.delete(model: Student.self, where: #Predicate { $0.name != "Bob" })
        try deleter.save()
        writer.processPendingChanges()
        #expect(math.students.map(\.name) == ["Bob"], "the writer's course still lists deleted students")
        let reader = ModelContext(container)
        let course = try #require(try reader.fetch(FetchDescriptor<Course>()).first)
        #expect(course.students.map(\.name) == ["Bob"])
    }

    @Test func aDenyRuleRefusesADeleteByPredicateBeforeAnythingIsDeleted() throws {
        let container = try ownerContainer(MemoryStoreConfiguration(name: "owners"))
        try insertOwners(into: container)
        let lender = ModelContext(container)
        let anita = try #require(try lender.fetch(FetchDescriptor<Owner>(predicate: #Predicate { $0.name == "Anita" })).first)
        anita.debts = [Debt(amount: 10)]
        try lender.save()

        let context = ModelContext(container)
        try context.delete(model: Owner.self, where: #Predicate { $0.name.starts(with: "A") })
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Owner>()) == 4)
        #expect(try reader.fetchCount(FetchDescriptor<Pet>()) == 4)
        #expect(try reader.fetch(FetchDescriptor<Car>()).allSatisfy { $0.driver != nil })
        #expect(context.hasChanges, "the refused delete is no longer pending")
        context.rollback()
        #expect(!context.hasChanges)
    }
}
