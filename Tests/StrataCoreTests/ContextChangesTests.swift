import Foundation
import Strata
import StrataMemory
import Testing

/// What one context sees of another's saves.
@Suite struct ContextChangesTests {
    let container: ModelContainer
    let day = Date(timeIntervalSince1970: 1_750_000_000)

    init() throws {
        container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration(name: "changes"))
    }

    func insertTrip(_ name: String) throws -> PersistentIdentifier {
        let writer = ModelContext(container)
        let trip = Trip(name: name, destination: "Norway", startDate: day, endDate: day.addingTimeInterval(86_400))
        writer.insert(trip)
        try writer.save()
        return trip.persistentModelID
    }

    @Test func aHeldModelIsRefreshedInPlaceAndItsObserversAreTold() throws {
        let id = try insertTrip("Oslo")
        let reader = ModelContext(container)
        let held = try #require(reader.model(for: id) as? Trip)
        #expect(held.name == "Oslo")
        let fired = Locked(0)
        withObservationTracking { _ = held.name } onChange: { fired.withLock { $0 += 1 } }

        let writer = ModelContext(container)
        let other = try #require(writer.model(for: id) as? Trip)
        other.name = "Bergen"
        try writer.save()
        reader.processPendingChanges()
        #expect(held.name == "Bergen")
        #expect(fired.withLock { $0 } == 1, "the refresh did not tell the model's observers")
    }

    @Test func aModelWithUnsavedEditsKeepsThem() throws {
        let id = try insertTrip("Oslo")
        let reader = ModelContext(container)
        let held = try #require(reader.model(for: id) as? Trip)
        held.destination = "Finnmark"

        let writer = ModelContext(container)
        (writer.model(for: id) as? Trip)?.destination = "Lofoten"
        try writer.save()
        _ = try reader.fetch(FetchDescriptor<Trip>())
        #expect(held.destination == "Finnmark")
        try reader.save()
        #expect((ModelContext(container).model(for: id) as? Trip)?.destination == "Finnmark")
    }

    @Test func aModelDeletedElsewhereReadsAsDeletedAndLeavesTheContext() throws {
        let id = try insertTrip("Oslo")
        let reader = ModelContext(container)
        let held = try #require(reader.model(for: id) as? Trip)
        let writer = ModelContext(container)
        writer.delete(writer.model(for: id) as! Trip)
        try writer.save()
        reader.processPendingChanges()
        #expect(held.isDeleted)
        #expect((reader.registeredModel(for: id) as Trip?) == nil)
    }

    @Test func eraseTellsEachContextThatEveryIdentifierIsInvalid() throws {
        let id = try insertTrip("Oslo")
        let reader = ModelContext(container)
        _ = reader.model(for: id)
        let received = Locked<[PersistentIdentifier]?>(nil)
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: reader, queue: nil) { note in
            let ids = note.userInfo?[ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue] as? [PersistentIdentifier]
            received.withLock { $0 = ids }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try container.erase()
        reader.processPendingChanges()
        #expect(received.withLock { $0 } == [id])
        #expect(try reader.fetchCount(FetchDescriptor<Trip>()) == 0)
    }
}
