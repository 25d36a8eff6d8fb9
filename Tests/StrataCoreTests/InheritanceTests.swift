import Foundation
import StrataJSON
import StrataMemory
@testable import StrataCore
import Testing

// A hierarchy written the way SwiftData apps on OS 26 write one.

@Model class Journey {
    var name: String
    var start: Date
    @Relationship(deleteRule: .cascade, inverse: \Stop.journey) var stops: [Stop] = []

    init(name: String, start: Date) {
        self.name = name
        self.start = start
    }
}

@Model class BusinessJourney: Journey {
    var perDiem: Double = 0
    var company = ""
}

@Model final class LeisureJourney: Journey {
    var reason: String
    init(name: String, start: Date, reason: String) {
        self.reason = reason
        super.init(name: name, start: start)
    }
}

@Model final class Stop {
    var place: String
    var journey: Journey?
    init(place: String) { self.place = place }
}

/// Two sibling classes that declare one property name with different types.
@Model class Shape { var name = ""; init() {} }
@Model final class Circle: Shape { var size = 0.0 }
@Model final class Label: Shape { var size = "" }

/// A to-many to the root of a hierarchy, without an inverse.
@Model final class Atlas {
    var title = ""
    var journeys: [Journey] = []
    init() {}
}

@Suite struct InheritanceTests {
    let schema = Schema([Journey.self, BusinessJourney.self, LeisureJourney.self])

    @Test func theSchemaRecordsSuperAndSubentities() throws {
        let journey = try #require(schema.entity(for: Journey.self))
        let business = try #require(schema.entity(for: BusinessJourney.self))
        #expect(Set(journey.subentities.map(\.name)) == ["BusinessJourney", "LeisureJourney"])
        #expect(business.superentityName == "Journey" && business.superentity === journey)
        #expect(business.inheritedProperties.map(\.name) == ["name", "start", "stops"])
        #expect(business.storedProperties.map(\.name) == ["name", "start", "stops", "perDiem", "company"])
        #expect(schema.entity(for: Stop.self)?.relationshipsByName["journey"]?.inverseName == "stops")
    }

    @Test func storesSeeOneEntityPerHierarchy() throws {
        let storage = schema.storageSchema
        #expect(storage.entities.map(\.name).sorted() == ["Journey", "Stop"])
        let journey = try #require(storage.entitiesByName["Journey"])
        #expect(journey.storedPropertyNames == ["name", "start", "stops", "perDiem", "company", "reason", Schema.entityDiscriminator])
        #expect(journey.attributesByName["reason"]?.isOptional == true, "a subclass's attribute must be optional in storage")
        #expect(journey.indices.contains([Schema.entityDiscriminator]))
        #expect(Schema([Stop.self]).storage == nil, "a schema without inheritance must be its own storage schema")
    }

    /// A to-many read takes the stored collection as it is when it is of the property's
    /// type, and otherwise converts it: an array of a subclass reads as one of its
    /// superclass, and an array holding another class does not pass for the subclass's.
    @Test func aStoredCollectionReadsAsThePropertysTypeOrIsConverted() {
        let leisure = LeisureJourney(name: "Coast", start: .now, reason: "sea")
        let business = BusinessJourney(name: "Fair", start: .now)
        #expect(_collection([leisure] as any RelationshipCollection, as: [LeisureJourney].self)?.map(\.name) == ["Coast"])
        #expect(_collection([leisure] as any RelationshipCollection, as: [Journey].self)?.map(\.name) == ["Coast"])
        #expect(_collection([business] as [Journey] as any RelationshipCollection, as: [LeisureJourney].self) == nil)
    }

    @Test func aSubclassListedAloneBringsItsSuperclass() {
        #expect(Schema([LeisureJourney.self]).entities.map(\.name).contains("Journey"))
    }

    @Test func siblingsCannotStoreOneNameAsTwoTypes() {
        #expect(throws: SwiftDataError.modelValidationFailure) { try Schema([Shape.self, Circle.self, Label.self]).validate() }
    }

    @Test func appCodeSavesAndFetchesAHierarchy() throws {
        let container = try ModelContainer(for: schema, configurations: [MemoryStoreConfiguration()])
        let context = ModelContext(container)
        let trip = BusinessJourney(name: "Summit", start: .distantPast)
        trip.perDiem = 120
        trip.stops.append(Stop(place: "Lyon"))
        context.insert(trip)
        context.insert(LeisureJourney(name: "Coast", start: .now, reason: "sun"))
        context.insert(Journey(name: "Errand", start: .now))
        try context.save()

        let reader = ModelContext(container)
        let all = try reader.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map { String(describing: type(of: $0)) } == ["LeisureJourney", "Journey", "BusinessJourney"])
        let business = try #require(all.last as? BusinessJourney)
        #expect(business.perDiem == 120 && business.company == "" && business.stops.map(\.place) == ["Lyon"])
        #expect(business.stops.first?.journey === business)
        #expect(business.persistentModelID.entityName == "Journey", "identifiers carry the hierarchy's root entity")
        let stop = try #require(try reader.fetch(FetchDescriptor<Stop>()).first)
        #expect(stop.journey is BusinessJourney, "a to-one to the root class lost the subclass")

        let expensive = #Predicate<Journey> { $0 is BusinessJourney }
        #expect(try reader.fetchCount(FetchDescriptor(predicate: expensive)) == 1)
        #expect(try reader.fetch(FetchDescriptor<LeisureJourney>(predicate: #Predicate { $0.name == "Coast" })).first?.reason == "sun")
        let plan = reader.explain(FetchDescriptor<LeisureJourney>())
        #expect(plan.contains("_entity"), "a subclass's fetch does not test the stored class in the store:\n\(plan)")
    }

    /// A to-many to the root class, read from its fault in another context, holds each
    /// member as the class it was saved as, in order.
    @Test func aToManyToTheRootClassKeepsEachMembersClass() throws {
        let container = try ModelContainer(for: Schema([Atlas.self, Journey.self, BusinessJourney.self, LeisureJourney.self]), configurations: [MemoryStoreConfiguration()])
        let context = ModelContext(container)
        let atlas = Atlas()
        let business = BusinessJourney(name: "Summit", start: .distantPast)
        business.perDiem = 80
        atlas.journeys = [business, Journey(name: "Errand", start: .now), LeisureJourney(name: "Coast", start: .now, reason: "sun")]
        context.insert(atlas)
        try context.save()

        let reader = ModelContext(container)
        let read = try #require(try reader.fetch(FetchDescriptor<Atlas>()).first)
        #expect(read.journeys.map { String(describing: type(of: $0)) } == ["BusinessJourney", "Journey", "LeisureJourney"])
        #expect((read.journeys.first as? BusinessJourney)?.perDiem == 80 && (read.journeys.last as? LeisureJourney)?.reason == "sun")
    }

    @Test func aModelsInheritedPropertyIsObserved() throws {
        let trip = BusinessJourney(name: "Summit", start: .now)
        let changes = Locked(0)
        withObservationTracking { _ = trip.company } onChange: { changes.withLock { $0 += 1 } }
        trip.company = "Acme"
        #expect(changes.withLock { $0 } == 1, "a subclass's own property was not observed")
        withObservationTracking { _ = trip.name } onChange: { changes.withLock { $0 += 1 } }
        trip.name = "Summit 2"
        #expect(changes.withLock { $0 } == 2, "an inherited property was not observed on a subclass")
    }

    @Test func aHierarchyLivesInOneConfiguration() throws {
        // Naming the root places the whole hierarchy with it.
        let journeys = MemoryStoreConfiguration(name: "journeys", schema: Schema([Journey.self, Stop.self]))
        let container = try ModelContainer(for: schema, configurations: [journeys])
        let context = ModelContext(container)
        context.insert(LeisureJourney(name: "Coast", start: .now, reason: "sun"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<LeisureJourney>()) == 1)

        let split = [
            MemoryStoreConfiguration(name: "a", schema: Schema([Journey.self, Stop.self])),
            MemoryStoreConfiguration(name: "b", schema: Schema([LeisureJourney.self])),
        ]
        #expect(throws: SwiftDataError.duplicateConfiguration) { _ = try ModelContainer(for: schema, configurations: split) }
    }

    @Test func theJSONDocumentHoldsOneArrayPerHierarchy() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-inheritance-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(name: "journeys", fileURL: url)])
        let context = ModelContext(container)
        context.insert(LeisureJourney(name: "Coast", start: .now, reason: "sun"))
        context.insert(BusinessJourney(name: "Summit", start: .now))
        try context.save()
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("\"_entity\""))
        #expect(!text.contains("\"LeisureJourney\" :") && !text.contains("\"LeisureJourney\":"), "a subclass got an array of its own")
        let reopened = try ModelContainer(for: schema, configurations: [JSONStoreConfiguration(name: "journeys", fileURL: url)])
        let names = try ModelContext(reopened).fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.name)])).map { "\(type(of: $0))" }
        #expect(names == ["LeisureJourney", "BusinessJourney"])
    }
}
