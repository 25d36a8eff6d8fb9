import Foundation
import StrataCore
import StrataSQLite
import Testing

@testable import StrataJSON

/// A JSON configuration beside other stores in one container, as the seed splits Trips and People.
@Suite struct JSONStoreContainerTests {
    @Test func tripsInAnInMemorySQLiteStoreAndPeopleInAJSONDocumentSideBySide() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        func open() throws -> ModelContainer {
            try ModelContainer(
                for: Schema([Trip.self, Person.self]),
                configurations: ModelConfiguration("trips", schema: Schema([Trip.self]), isStoredInMemoryOnly: true),
                JSONStoreConfiguration(name: "people", schema: Schema([Person.self]), url: url))
        }
        let container = try open()
        let context = ModelContext(container)
        context.insert(Trip(name: "Kyoto", destination: "Japan", startDate: .now, endDate: .now))
        context.insert(Person(name: "Ada", age: 36))
        try context.save()

        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Kyoto"])
        #expect(try reader.fetch(FetchDescriptor<Person>()).map(\.name) == ["Ada"])
        let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
        #expect(text.contains("\"Person\""))
        #expect(!text.contains("Kyoto"), "a trip was written to the people document")
        #expect(try folder.entries() == ["people.json"], "the in-memory SQLite store wrote a file")

        // Only the people survive a restart: the trips lived in memory.
        let reopened = ModelContext(try open())
        #expect(try reopened.fetch(FetchDescriptor<Person>()).map(\.name) == ["Ada"])
        #expect(try reopened.fetchCount(FetchDescriptor<Trip>()) == 0)
    }

    /// A save's `didSave` lists every store's inserts, store by store in the container's
    /// order and each store's in the order they were inserted, as their identifiers read
    /// after the save: two SQLite stores (each lists its inserts' identifiers in order), and
    /// SQLite beside a JSON document.
    @Test func didSaveListsTheInsertsOfEveryStore() throws {
        let folder = try TemporaryFolder()
        let layouts: [(String, ModelContainer)] = [
            ("two SQLite stores", try ModelContainer(
                for: Schema([Trip.self, Person.self]),
                configurations: ModelConfiguration("trips", schema: Schema([Trip.self]), isStoredInMemoryOnly: true),
                ModelConfiguration("people", schema: Schema([Person.self]), isStoredInMemoryOnly: true))),
            ("SQLite and JSON", try ModelContainer(
                for: Schema([Trip.self, Person.self]),
                configurations: ModelConfiguration("trips", schema: Schema([Trip.self]), isStoredInMemoryOnly: true),
                JSONStoreConfiguration(name: "people", schema: Schema([Person.self]), url: folder.file("people.json")))),
        ]
        for (layout, container) in layouts {
            let context = ModelContext(container)
            let ada = Person(name: "Ada", age: 36), kyoto = Trip(name: "Kyoto", destination: "Japan", startDate: .now, endDate: .now)
            let bo = Person(name: "Bo", age: 7), lima = Trip(name: "Lima", destination: "Peru", startDate: .now, endDate: .now)
            for model in [ada, kyoto, bo, lima] as [any PersistentModel] { context.insert(model) }
            let received = ReceivedNote()
            let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
                received.userInfo = note.userInfo as? [String: Any]
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            try context.save()
            let listed = received.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]
            let expected = [kyoto.persistentModelID, lima.persistentModelID, ada.persistentModelID, bo.persistentModelID]
            #expect(listed == expected, "\(layout)")
            #expect(listed?.contains(where: \.isTemporary) == false, "\(layout)")
        }
    }

    @Test func tripsInASQLiteFileAndPeopleInAJSONDocumentBothPersist() throws {
        let folder = try TemporaryFolder()
        func open() throws -> ModelContainer {
            try ModelContainer(
                for: Schema([Trip.self, Person.self]),
                configurations: ModelConfiguration(schema: Schema([Trip.self]), url: folder.file("trips.store")),
                JSONStoreConfiguration(schema: Schema([Person.self]), url: folder.file("people.json")))
        }
        let context = ModelContext(try open())
        let trip = Trip(name: "Kyoto", destination: "Japan", startDate: .now, endDate: .now)
        trip.bucketList = [BucketListItem(title: "Temple", hasReservation: false)]
        context.insert(trip)
        context.insert(Person(name: "Ada", age: 36))
        try context.save()

        let reopened = ModelContext(try open())
        #expect(try reopened.fetch(FetchDescriptor<Trip>()).first?.bucketList.map(\.title) == ["Temple"])
        #expect(try reopened.fetch(FetchDescriptor<Person>(predicate: #Predicate { $0.age > 30 })).map(\.name) == ["Ada"])
    }

    @Test func aRelationshipToAnotherStoreIsWrittenAsAnEncodedIdentifier() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("items.json")
        // The items' document holds only BucketListItem; an in-memory SQLite store holds the rest.
        let schema = Schema([Trip.self])
        let itemEntity = try #require(schema.entitiesByName["BucketListItem"])
        let container = try ModelContainer(
            for: schema,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true), JSONStoreConfiguration(name: "items", schema: Schema(itemEntity), url: url))
        let context = ModelContext(container)
        let trip = Trip(name: "Kyoto", destination: "Japan", startDate: .now, endDate: .now)
        trip.bucketList = [BucketListItem(title: "Temple", hasReservation: false)]
        context.insert(trip)
        try context.save()

        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let items = try #require((root["entities"] as? [String: Any])?["BucketListItem"] as? [[String: Any]])
        let reference = try #require(items.first?["trip"] as? [String: Any], "the cross-store reference is not an object")
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONSerialization.data(withJSONObject: reference))
        #expect(decoded == trip.persistentModelID)

        let reader = ModelContext(container)
        let item = try #require(try reader.fetch(FetchDescriptor<BucketListItem>()).first)
        #expect(item.trip?.name == "Kyoto")
        #expect(try reader.fetch(FetchDescriptor<Trip>()).first?.bucketList.map(\.title) == ["Temple"])
    }
}

/// The user info of the last notification an observer received.
private final class ReceivedNote: @unchecked Sendable {
    var userInfo: [String: Any]?
}
