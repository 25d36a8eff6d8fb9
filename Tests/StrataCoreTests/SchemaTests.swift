import Foundation
import Strata
import Testing

enum TripsSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 2, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self, Leg.self] }

    @Model
    final class Journey {
        @Attribute(.unique) var code: String
        @Relationship(deleteRule: .cascade) var legs: [Leg]? = []
        init(code: String) { self.code = code }
    }

    @Model
    final class Leg {
        var from: String
        var journey: Journey?
        init(from: String) { self.from = from }
    }
}

/// Two relationships to the same type: no inverse can be inferred.
@Model final class Person {
    var name: String
    var mentor: Person?
    var friends: [Person] = []
    init(name: String) { self.name = name }
}

/// A model with an explicit index of each kind.
@Model final class Place {
    #Index<Place>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
    var name: String
    var latitude: Double
    var longitude: Double
    init(name: String, latitude: Double, longitude: Double) {
        self.name = name
        self.latitude = latitude
        self.longitude = longitude
    }
}

@Suite struct SchemaTests {
    @Test func attributeKindsFollowTheDeclaredTypes() throws {
        let entity = try #require(Schema([Specimen.self]).entity(for: Specimen.self))
        let kinds = Dictionary(uniqueKeysWithValues: entity.storedProperties.compactMap { $0 as? Schema.Attribute }.map { ($0.name, $0.persistentValueKind) })
        #expect(kinds["int"] == .int)
        #expect(kinds["uint64"] == .int)
        #expect(kinds["float"] == .double)
        #expect(kinds["decimal"] == .decimal)
        #expect(kinds["url"] == .url)
        #expect(kinds["priority"] == .int)
        #expect(kinds["mood"] == .string)
        #expect(kinds["transport"] == .codable)
        #expect(kinds["address"] == .codable)
        #expect(kinds["tags"] == .codable)
        #expect(kinds["optionalPriority"] == .int)
        #expect(entity.attributesByName["optionalPriority"]?.isOptional == true)
        #expect(entity.attributesByName["priority"]?.isOptional == false)
        #expect(entity.attributesByName["optionalTags"].map { $0.valueType == [String]?.self } == true)
        #expect(entity.attributesByName["viewCount"] == nil)
    }

    @Test func codableStructsBecomeCompositeAttributesWithTheirMembers() throws {
        let entity = try #require(Schema([Specimen.self]).entity(for: Specimen.self))
        let address = try #require(entity.attributesByName["address"] as? Schema.CompositeAttribute)
        #expect(address.properties.map(\.name) == ["street", "postcode", "location"])
        #expect(address.properties.last?.isOptional == true)
        #expect(!(entity.attributesByName["tags"] is Schema.CompositeAttribute))
    }

    @Test func versionedSchemaUsesItsModelsAndVersion() throws {
        let schema = Schema(versionedSchema: TripsSchemaV1.self)
        #expect(schema.version == Schema.Version(1, 2, 0))
        #expect(schema.entities.map(\.name) == ["Journey", "Leg"])
        let journey = try #require(schema.entity(for: TripsSchemaV1.Journey.self))
        #expect(journey.uniquenessConstraints == [["code"]])
        #expect(journey.attributesByName["code"]?.isUnique == true)
        let legs = try #require(journey.relationshipsByName["legs"])
        #expect(legs.deleteRule == .cascade)
        #expect(legs.isOptional)
        #expect(legs.inverseName == "journey")
        #expect(schema.entity(for: TripsSchemaV1.Leg.self)?.relationshipsByName["journey"]?.inverseName == "legs")
    }

    @Test func ambiguousRelationshipsGetNoInferredInverse() throws {
        let person = try #require(Schema([Person.self]).entity(for: Person.self))
        #expect(person.relationshipsByName["mentor"]?.inverseName == nil)
        #expect(person.relationshipsByName["friends"]?.inverseName == nil)
    }

    @Test func indexKindsAreKept() throws {
        let place = try #require(Schema([Place.self]).entity(for: Place.self))
        #expect(place.indices == [["name"], ["latitude", "longitude"]])
        #expect(place.indexKinds == [.binary, .rtree])
    }

    @Test func schemaRoundTripsThroughJSON() throws {
        let schema = Schema([Trip.self], version: Schema.Version(2, 0, 1))
        let data = try JSONEncoder().encode(schema)
        let decoded = try JSONDecoder().decode(Schema.self, from: data)
        #expect(decoded == schema)
        #expect(decoded.version == Schema.Version(2, 0, 1))
        #expect(decoded.entitiesByName["Trip"]?.uniquenessConstraints == [["name", "startDate", "endDate"]])
        #expect(decoded.entitiesByName["Trip"]?.relationshipsByName["bucketList"]?.inverseName == "trip")
        #expect(decoded.entitiesByName["Trip"]?.attributesByName["startDate"].map { $0.valueType == Date.self } == true)
    }

    @Test func schemaSavesToAndLoadsFromAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-schema-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let schema = Schema([Trip.self])
        try schema.save(to: url)
        #expect(try Schema.load(from: url) == schema)
    }

    @Test func versionsCompareSemantically() {
        #expect(Schema.Version(1, 2, 3) < Schema.Version(1, 10, 0))
        #expect(Schema.Version(2, 0, 0) > Schema.Version(1, 99, 99))
        #expect(Schema.Version(1, 0, 0).description == "1.0.0")
    }

    @Test func explicitEntitiesMakeASchema() {
        let entity = Schema.Entity("Note", properties: [Schema.Attribute(name: "text", valueType: String.self)])
        let schema = Schema(entity)
        #expect(schema.entitiesByName["Note"]?.attributesByName["text"]?.persistentValueKind == .string)
        #expect(Schema().entities.isEmpty)
    }
}

@Suite struct PersistentIdentifierTests {
    @Test func storeIdentifiersCarryTheirKey() throws {
        let id = try PersistentIdentifier.identifier(for: "trips.store", entityName: "Trip", primaryKey: Int64(42))
        #expect(!id.isTemporary)
        #expect(id.storeIdentifier == "trips.store")
        #expect(id.entityName == "Trip")
        #expect(id.primaryKey(as: Int64.self) == 42)
        #expect(id.primaryKey(as: Int.self) == 42)
        #expect(id.primaryKey(as: String.self) == nil)
        #expect(id == (try PersistentIdentifier.identifier(for: "trips.store", entityName: "Trip", primaryKey: 42)))
    }

    @Test func identifiersRoundTripThroughJSONAndSort() throws {
        let a = try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: 1)
        let b = try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: 2)
        let c = try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: UUID())
        #expect(a < b)
        #expect([c, b, a].sorted() == [a, b, c])
        let decoded = try JSONDecoder().decode([PersistentIdentifier].self, from: JSONEncoder().encode([a, c]))
        #expect(decoded == [a, c])
    }

    /// An identifier's JSON form is what it was when every key was held inline: identifiers
    /// an app stored keep decoding, whatever the key (UUID and string keys are boxed now).
    @Test func identifiersKeepTheirJSONForm() throws {
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let ids = [
            try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: 42),
            try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: uuid),
            try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: "key"),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(ids), as: UTF8.self)
        let stored = #"[{"id":{"entityName":"Trip","primaryKey":{"int":{"_0":42}},"storeIdentifier":"s"}},"#
            + #"{"id":{"entityName":"Trip","primaryKey":{"uuid":{"_0":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}},"storeIdentifier":"s"}},"#
            + #"{"id":{"entityName":"Trip","primaryKey":{"string":{"_0":"key"}},"storeIdentifier":"s"}}]"#
        #expect(json == stored)
        #expect(try JSONDecoder().decode([PersistentIdentifier].self, from: Data(stored.utf8)) == ids)
    }

    /// Identifiers are equal when store, entity and key are: the same key of another entity
    /// or store is another identifier, in comparisons and as a dictionary key.
    @Test func theSameKeyInAnotherEntityOrStoreIsAnotherIdentifier() throws {
        let trip = try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: 7)
        let item = try PersistentIdentifier.identifier(for: "s", entityName: "Item", primaryKey: 7)
        let elsewhere = try PersistentIdentifier.identifier(for: "t", entityName: "Trip", primaryKey: 7)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(trip))
        #expect(trip != item)
        #expect(trip != elsewhere)
        #expect(decoded == trip)
        #expect(decoded.hashValue == trip.hashValue)
        var names: [PersistentIdentifier: String] = [:]
        for (id, name) in [(trip, "trip"), (item, "item"), (elsewhere, "elsewhere")] { names[id] = name }
        #expect(names.count == 3)
        #expect(names[decoded] == "trip")
        #expect(Set([trip, item, elsewhere, decoded]).count == 3)
    }

    @Test func identifiersOfManyKeysAreWhatReplacingOneKeyMakes() throws {
        // A template with a string key: the identifiers made from it hold integer keys.
        let template = try PersistentIdentifier.identifier(for: "s", entityName: "Trip", primaryKey: "template")
        let keys: [Int64] = [9, -3, 0, Int64.max, 9]
        #expect(template.replacingPrimaryKeys(keys) == keys.map { template.replacingPrimaryKey($0) })
        #expect(template.replacingPrimaryKeys(keys).map { $0.primaryKey(as: Int64.self) } == keys)
        #expect(template.replacingPrimaryKeys(Int64(5)...8) == (5...8).map { template.replacingPrimaryKey($0) })
        #expect(template.replacingPrimaryKeys(Int64.max...Int64.max).map(\.entityName) == ["Trip"])
        #expect(template.replacingPrimaryKeys([]).isEmpty)
    }

    @Test func emptyStoreIdentifierIsRejected() {
        #expect(throws: DataStoreError.unsupportedFeature) {
            try PersistentIdentifier.identifier(for: "", entityName: "Trip", primaryKey: 1)
        }
    }
}

/// Compares metatypes, which have no `==` of their own.
func == (lhs: any Any.Type, rhs: any Any.Type) -> Bool {
    ObjectIdentifier(lhs) == ObjectIdentifier(rhs)
}

@Suite struct SchemaValidationTests {
    func issues(of schema: Schema) -> String {
        do {
            try schema.validate()
            return ""
        } catch let error as SwiftDataError {
            #expect(error == .modelValidationFailure)
            return error.details
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func inverseDeclaredOnBothSidesIsReportedOnce() {
        let details = issues(of: Schema([Shelf.self]))
        #expect(details.contains("the inverse of Shelf.volumes and Volume.shelf is declared on both sides"))
        #expect(!details.contains("the inverse of Volume.shelf and Shelf.volumes"))
    }

    @Test func relationshipMetadataOnAnAttributeIsReported() {
        #expect(issues(of: Schema([Volume.self])).contains("Volume.title is not a relationship but is marked @Relationship"))
    }

    @Test func constraintOnSomethingThatIsNotStoredIsReported() {
        #expect(issues(of: Schema([Volume.self])).contains("#Unique on Volume names a key path that is not a stored property"))
    }

    @Test func handWrittenModelsKeepTheirValues() {
        let shelf = Shelf()
        let volume = Volume()
        volume.title = "Dune"
        shelf.volumes = [volume]
        volume.shelf = shelf
        #expect(shelf.volumes.map(\.title) == ["Dune"])
        #expect(volume.shelf === shelf)
    }
}
