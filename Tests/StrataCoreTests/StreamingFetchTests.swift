import Foundation
import Strata
import StrataMemory
import Testing

/// What a ``StreamingStore`` did and is told to do.
final class StreamControls: Sendable {
    struct State {
        var wholeFetches = 0
        var streamedFetches = 0
        /// Rows handed to the core one at a time.
        var handedOver = 0
        var refusesFilters = false
        /// The row (counted from 0) whose `startDate` the store hands over as a string.
        var damagedRow: Int?
        /// The property and value the store hands over in place of the stored one, in ``damagedRow``.
        var damage: (property: String, value: PersistentValue) = ("startDate", .string("not a date"))
        /// Called after the core took each row.
        var afterEachRow: (@Sendable (PersistentIdentifier) -> Void)?
        /// A snapshot of another entity the store hands over before each row.
        var foreignRow: DefaultSnapshot?
        /// Whether the store hands each row over twice, as a damaged file could list it.
        var repeatsRows = false
    }

    let state = Locked(State())
}

/// A store that streams (``DataStoreStreaming``) the rows of a MemoryStore, counting its
/// whole and streamed fetches and calling a hook after each row the core took.
final class StreamingStore: DataStoreStreaming, @unchecked Sendable {
    struct Configuration: DataStoreConfiguration {
        typealias Store = StreamingStore
        var name: String
        var schema: Schema?
        let controls: StreamControls

        static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.controls === rhs.controls }
        func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }

    let configuration: Configuration
    let inner: MemoryStore
    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }

    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        inner = try MemoryStore(MemoryStoreConfiguration(name: configuration.name, schema: configuration.schema), migrationPlan: nil)
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        configuration.controls.state.withLock { $0.wholeFetches += 1 }
        return try inner.fetch(request)
    }

    func fetch<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (DefaultSnapshot) throws -> Void
    ) throws -> [PersistentIdentifier: DefaultSnapshot] {
        let (refuses, damagedRow, damage, hook, foreign, repeats) = configuration.controls.state.withLock { state in
            state.streamedFetches += 1
            return (state.refusesFilters, state.damagedRow, state.damage, state.afterEachRow, state.foreignRow, state.repeatsRows)
        }
        if refuses, try request.filter != nil { throw DataStoreError.preferInMemoryFilter }
        let result = try inner.fetch(request)
        for (row, snapshot) in result.fetchedSnapshots.enumerated() {
            var snapshot = snapshot
            if row == damagedRow, let slot = snapshot.propertyNames.firstIndex(of: damage.property) {
                snapshot[index: slot] = damage.value
            }
            if let foreign { try body(foreign) }
            try body(snapshot)
            if repeats { try body(snapshot) }
            configuration.controls.state.withLock { $0.handedOver += 1 }
            hook?(snapshot.persistentIdentifier)
        }
        return result.relatedSnapshots
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try inner.save(request)
    }
}

/// A store that hands over its rows one at a time gets each row's model made as it arrives.
@Suite struct StreamingFetchTests {
    let today = Date(timeIntervalSince1970: 1_750_000_000)

    /// A container of a ``StreamingStore`` holding trips named `names`.
    func container(_ controls: StreamControls, names: [String]) throws -> ModelContainer {
        let container = try ModelContainer(
            for: Trip.self, configurations: StreamingStore.Configuration(name: "streamed", controls: controls))
        let context = ModelContext(container)
        for name in names {
            context.insert(Trip(name: name, destination: "Bern", startDate: today, endDate: today.addingTimeInterval(86_400)))
        }
        try context.save()
        controls.state.withLock { $0 = StreamControls.State() }
        return container
    }

    /// Each row's model is made as the row arrives, before the store reads the next (the
    /// models are registered together once the store has read them all).
    @Test func eachModelIsMadeBeforeTheStoreReadsTheNextRow() throws {
        let controls = StreamControls()
        let container = try ModelContainer(
            for: StreamedStop.self, configurations: StreamingStore.Configuration(name: "stops", controls: controls))
        let inserting = ModelContext(container)
        for name in ["Lakes", "Alps", "Coast"] { inserting.insert(StreamedStop(name: name)) }
        try inserting.save()
        controls.state.withLock { $0 = StreamControls.State() }
        let before = StreamedStop.made.withLock { $0 }
        let seen = Locked<[Int]>([])
        controls.state.withLock { state in
            state.afterEachRow = { _ in
                let made = StreamedStop.made.withLock { $0 }
                seen.withLock { $0.append(made - before) }
            }
        }
        let context = ModelContext(container)
        let stops = try context.fetch(FetchDescriptor<StreamedStop>(sortBy: [SortDescriptor(\.name)]))
        #expect(stops.map(\.name) == ["Alps", "Coast", "Lakes"])
        #expect(seen.withLock { $0 } == [1, 2, 3], "a row's model was not made as the row arrived")
        let (whole, streamed) = controls.state.withLock { ($0.wholeFetches, $0.streamedFetches) }
        #expect(whole == 0 && streamed == 1)
        for stop in stops {
            let registered: StreamedStop? = context.registeredModel(for: stop.persistentModelID)
            #expect(registered === stop)
        }
        // A fetch in a context that already holds the models streams too, and keeps their identity.
        let again = try context.fetch(FetchDescriptor<StreamedStop>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
        #expect(again.map(\.name) == ["Lakes", "Coast", "Alps"])
        #expect(again[0] === stops[2] && again[2] === stops[0])
    }

    /// A row the store hands over twice is one model, listed twice, in a new context and in
    /// one that holds models already.
    @Test func aRowHandedOverTwiceIsOneModel() throws {
        let controls = StreamControls()
        let container = try container(controls, names: ["Lakes", "Alps"])
        controls.state.withLock { $0.repeatsRows = true }
        let context = ModelContext(container)
        for round in ["new context", "context with models"] {
            let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == ["Alps", "Alps", "Lakes", "Lakes"], "\(round)")
            guard trips.count == 4 else { continue }
            #expect(trips[0] === trips[1] && trips[2] === trips[3], "\(round)")
            let registered: Trip? = context.registeredModel(for: trips[0].persistentModelID)
            #expect(registered === trips[0], "\(round)")
        }
    }

    /// A fetch whose rows come in key order, with one model among them registered already,
    /// registers each new model as its own row's (the models that wait are listed by key
    /// once the registered one breaks their sequence) and keeps the registered one.
    @Test func aRegisteredModelAmongNewOnesKeepsEveryIdentity() throws {
        let controls = StreamControls()
        let names = ["A", "B", "C", "D", "E", "F"]
        let container = try container(controls, names: names)
        for registeredName in ["A", "B", "C", "F"] {
            let context = ModelContext(container)
            let registered = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == registeredName })).first)
            let trips = try context.fetch(FetchDescriptor<Trip>())
            #expect(trips.map(\.name).sorted() == names, "\(registeredName)")
            #expect(trips.contains { $0 === registered }, "\(registeredName)")
            for trip in trips {
                let found: Trip? = context.registeredModel(for: trip.persistentModelID)
                #expect(found === trip, "\(registeredName): \(trip.name)")
            }
            let again = try context.fetch(FetchDescriptor<Trip>())
            #expect(zip(again, trips).allSatisfy { $0 === $1 }, "\(registeredName)")
        }
    }

    @Test func aFilterTheStreamRefusesRunsInMemoryOnAWholeFetch() throws {
        let controls = StreamControls()
        let container = try container(controls, names: ["Lakes", "Alps", "Coast"])
        controls.state.withLock { $0.refusesFilters = true }
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name != "Alps" }, sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Coast", "Lakes"])
        let (whole, streamed) = controls.state.withLock { ($0.wholeFetches, $0.streamedFetches) }
        #expect(whole == 1 && streamed == 1, "the refused stream was not followed by one whole fetch")
    }

    @Test func aRowThatCannotBeAModelStopsTheStream() throws {
        let controls = StreamControls()
        let container = try container(controls, names: ["Lakes", "Alps", "Coast", "Dunes"])
        controls.state.withLock { $0.damagedRow = 1 }
        let context = ModelContext(container)
        #expect(throws: SwiftDataError.modelValidationFailure) {
            _ = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        }
        #expect(controls.state.withLock { $0.handedOver } == 1, "the store went on reading after the core's error")
        // Without the damage the same context fetches every trip.
        controls.state.withLock { $0.damagedRow = nil }
        #expect(try context.fetch(FetchDescriptor<Trip>()).count == 4)
    }

    /// A row of another entity than the fetch's, first or between the others, makes no model.
    @Test func aRowOfAnotherEntityIsSkipped() throws {
        let controls = StreamControls()
        let container = try container(controls, names: ["Lakes", "Alps", "Coast"])
        let lodging = try PersistentIdentifier.identifier(for: "streamed", entityName: "LivingAccommodation", primaryKey: Int64(1))
        controls.state.withLock { $0.foreignRow = DefaultSnapshot(persistentIdentifier: lodging, propertyNames: [], values: []) }
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Alps", "Coast", "Lakes"])
        let made: LivingAccommodation? = context.registeredModel(for: lodging)
        #expect(made == nil)
        #expect(controls.state.withLock { $0.streamedFetches } == 1)
    }

    /// A relationship's value is kept as the store sent it only in the shape of its fault:
    /// an identifier for a to-one, a list of them for a to-many. Anything else is refused
    /// with a typed error naming the relationship, however the rest of the row fits.
    @Test func aRelationshipValueOfTheWrongShapeFailsTheFetch() throws {
        let controls = StreamControls()
        let container = try container(controls, names: ["Lakes", "Alps"])
        let lodging = try PersistentIdentifier.identifier(for: "streamed", entityName: "LivingAccommodation", primaryKey: Int64(1))
        let damages: [(String, PersistentValue)] = [
            ("bucketList", .identifier(lodging)), ("livingAccommodation", .identifiers([lodging])), ("bucketList", .int(3)),
            ("livingAccommodation", .string("lodge")),
        ]
        for (property, value) in damages {
            controls.state.withLock { state in
                state.damagedRow = 0
                state.damage = (property, value)
            }
            let error = #expect(throws: SwiftDataError.self, "\(property) = \(value)") {
                _ = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            }
            #expect(error == SwiftDataError.modelValidationFailure)
            #expect(error?.details.contains("Trip.\(property)") == true, "\(error?.details ?? "no error")")
        }
        // The same values in their own shapes make models.
        controls.state.withLock { $0.damage = ("bucketList", .identifiers([])) }
        #expect(try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.bucketList.count) == [0, 0])
    }
}

/// A model whose transient property's initial value counts the models of its class made.
@Model final class StreamedStop {
    var name: String
    @Transient var order: Int = StreamedStop.countOne()
    init(name: String) { self.name = name }

    /// How many were made in the process.
    static let made = Locked(0)

    static func countOne() -> Int {
        made.withLock { count in
            count += 1
            return count
        }
    }
}
