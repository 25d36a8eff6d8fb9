import Foundation
import Strata
import StrataJSON
import StrataMemory
import Synchronization
import Testing

/// What app code does with a repository actor: an async protocol in front of the store.
protocol TripRepository: Sendable {
    func add(trips: Int, itemsEach: Int, writer: Int, savingEvery: Int) async throws -> [PersistentIdentifier]
    func count() async throws -> Int
}

@ModelActor
final actor TripWriter: TripRepository {
    func add(trips: Int, itemsEach: Int, writer: Int, savingEvery: Int) throws -> [PersistentIdentifier] {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        var trips_: [Trip] = []
        for index in 0..<trips {
            let trip = Trip(name: "w\(writer)-\(index)", destination: "writer \(writer)", startDate: start, endDate: start)
            trip.bucketList = (0..<itemsEach).map { BucketListItem(title: "w\(writer)-\(index)-\($0)", details: "", hasReservation: false, isInPlan: true) }
            modelContext.insert(trip)
            trips_.append(trip)
            if (index + 1) % savingEvery == 0 { try modelContext.save() }
        }
        try modelContext.save()
        return trips_.map(\.persistentModelID)
    }

    func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }

    /// Reads through a library function that takes the actor as its isolation.
    func firstTripName() throws -> String? { try firstModel(Trip.self)?.name }

    func name(of id: PersistentIdentifier) -> String? { self[id: id, as: Trip.self]?.name }
}

/// A library function in the style of real SwiftData code: it runs on whichever model actor calls it.
func firstModel<T: PersistentModel>(_ type: T.Type, isolation: isolated (any ModelActor) = #isolation) throws -> T? {
    var descriptor = FetchDescriptor<T>()
    descriptor.fetchLimit = 1
    return try isolation.modelContext.fetch(descriptor).first
}

@ModelActor
public actor PublicReader {
    public func tripCount() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
}

/// An executor that counts the jobs it runs, to see that an actor really runs on its model executor.
final class CountingExecutor: SerialModelExecutor, @unchecked Sendable {
    let modelContext: ModelContext
    let jobs = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "CountingExecutor")

    init(modelContext: ModelContext) { self.modelContext = modelContext }

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}

/// An executor that is not serial: jobs it is given would run at once on a concurrent queue.
final class ConcurrentExecutor: ModelExecutor, @unchecked Sendable {
    let modelContext: ModelContext
    init(modelContext: ModelContext) { self.modelContext = modelContext }

    /// Strata never calls this for an actor: it runs the actor through a serial adaptor.
    func enqueue(_ job: consuming ExecutorJob) {
        Issue.record("a job was enqueued on an executor that is not serial")
        let job = UnownedJob(job)
        DispatchQueue.global().async { job.runSynchronously(on: MainActor.sharedUnownedExecutor) }
    }
}

/// A model actor on an executor that is not serial; it must still run one job at a time.
actor ActorOnConcurrentExecutor: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: any ModelExecutor

    init(modelContainer: ModelContainer) {
        self.modelContainer = modelContainer
        self.modelExecutor = ConcurrentExecutor(modelContext: ModelContext(modelContainer))
    }

    func insert(_ name: String) {
        let start = Date(timeIntervalSince1970: 0)
        modelContext.insert(Trip(name: name, destination: "", startDate: start, endDate: start))
    }

    func save() throws { try modelContext.save() }
}

/// A model actor written by hand, on an executor of its own.
actor CountedActor: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: any ModelExecutor
    let counter: CountingExecutor

    init(modelContainer: ModelContainer) {
        self.modelContainer = modelContainer
        let executor = CountingExecutor(modelContext: ModelContext(modelContainer))
        self.counter = executor
        self.modelExecutor = executor
    }

    func insert(_ name: String) throws {
        let start = Date(timeIntervalSince1970: 0)
        modelContext.insert(Trip(name: name, destination: "", startDate: start, endDate: start))
        try modelContext.save()
    }
}

@Suite struct ModelActorConcurrencyTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-actors-\(UUID())")

    /// Four actors write 1,000 trips with 9 items each (10,000 models per actor) at once.
    func writeConcurrently(into container: ModelContainer, savingEvery: Int) async throws {
        let writers = (0..<4).map { _ in TripWriter(modelContainer: container) }
        let ids = try await withThrowingTaskGroup(of: [PersistentIdentifier].self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask { try await writer.add(trips: 1_000, itemsEach: 9, writer: index, savingEvery: savingEvery) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(ids).count == 4_000, "two trips got one identifier")
        #expect(try await writers[0].count() == 4_000)

        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<BucketListItem>()) == 36_000)
        let trips = try reader.fetch(FetchDescriptor<Trip>())
        #expect(trips.count == 4_000)
        for trip in trips {
            let items = trip.bucketList
            guard items.count == 9, items.allSatisfy({ $0.trip === trip && $0.title.hasPrefix(trip.name + "-") }) else {
                Issue.record("\(trip.name) has \(items.count) items, or items of another trip")
                return
            }
        }
        #expect(try reader.fetchCount(FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.trip == nil })) == 0)
    }

    @Test func fourActorsWriteToOneSQLiteStoreAtOnce() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(url: folder.appendingPathComponent("actors.store")))
        try await writeConcurrently(into: container, savingEvery: 100)
    }

    @Test func fourActorsWriteToOneJSONStoreAtOnce() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = try ModelContainer(
            for: Trip.self, configurations: StrataJSON.JSONStoreConfiguration(name: "actors", url: folder.appendingPathComponent("actors.json")))
        try await writeConcurrently(into: container, savingEvery: 500)
    }

    @Test func aRepositoryIsCalledThroughItsAsyncProtocol() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration(name: "repository"))
        let repository: any TripRepository = TripWriter(modelContainer: container)
        let ids = try await repository.add(trips: 3, itemsEach: 1, writer: 7, savingEvery: 10)
        #expect(try await repository.count() == 3)
        #expect(try await PublicReader(modelContainer: container).tripCount() == 3)

        // Identifiers cross actors; each actor resolves them in its own context.
        let other = TripWriter(modelContainer: container)
        #expect(await other.name(of: ids[1]) == "w7-1")
        #expect(try await other.firstTripName()?.hasPrefix("w7-") == true)
    }

    @Test func anActorRunsOnItsModelExecutor() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration(name: "executor"))
        let actor = CountedActor(modelContainer: container)
        try await actor.insert("Kyoto")
        try await actor.insert("Lima")
        #expect(actor.counter.jobs.load(ordering: .relaxed) >= 2)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 2)
    }

    @Test func anActorOnAnExecutorThatIsNotSerialStillRunsOneJobAtATime() async throws {
        let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration(name: "not-serial"))
        let actor = ActorOnConcurrentExecutor(modelContainer: container)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 { group.addTask { await actor.insert("trip \(index)") } }
        }
        try await actor.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 200)
    }
}
