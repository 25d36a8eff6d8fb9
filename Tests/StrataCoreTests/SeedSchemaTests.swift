import Foundation
import Strata
import Testing

@Suite struct SeedSchemaTests {
    let schema = Schema([Trip.self])

    @Test func schemaOfTripPullsInEveryRelatedModel() {
        #expect(schema.entities.map(\.name) == ["Trip", "BucketListItem", "LivingAccommodation"])
        #expect(schema.entity(for: BucketListItem.self)?.name == "BucketListItem")
        #expect(Schema.entityName(for: LivingAccommodation.self) == "LivingAccommodation")
    }

    @Test func tripAttributesHaveTheirTypesOptionsAndOrder() throws {
        let trip = try #require(schema.entity(for: Trip.self))
        #expect(trip.storedProperties.map(\.name) == ["name", "destination", "startDate", "endDate", "bucketList", "livingAccommodation"])
        let name = try #require(trip.attributesByName["name"])
        #expect(ObjectIdentifier(name.valueType) == ObjectIdentifier(String.self))
        #expect(name.persistentValueKind == .string)
        #expect(!name.isOptional)
        #expect(name.options == [.preserveValueOnDeletion])
        #expect(trip.attributesByName["destination"]?.options == [])
        #expect(trip.attributesByName["startDate"]?.persistentValueKind == .date)
        #expect(trip.attributesByName["endDate"]?.options == [.preserveValueOnDeletion])
        #expect(trip.attributes.count == 4)
    }

    @Test func relationshipsHaveDestinationsInversesAndDeleteRules() throws {
        let trip = try #require(schema.entity(for: Trip.self))
        let bucketList = try #require(trip.relationshipsByName["bucketList"])
        #expect(bucketList.destination == "BucketListItem")
        #expect(!bucketList.isToOneRelationship)
        #expect(!bucketList.isOptional)
        #expect(bucketList.inverseName == "trip")
        #expect(bucketList.inverseKeyPath == \BucketListItem.trip)
        #expect(bucketList.deleteRule == .nullify)

        let accommodation = try #require(trip.relationshipsByName["livingAccommodation"])
        #expect(accommodation.destination == "LivingAccommodation")
        #expect(accommodation.isToOneRelationship)
        #expect(accommodation.isOptional)
        #expect(accommodation.inverseName == "trip")

        let itemTrip = try #require(schema.entity(for: BucketListItem.self)?.relationshipsByName["trip"])
        #expect(itemTrip.destination == "Trip")
        #expect(itemTrip.isToOneRelationship)
        #expect(itemTrip.inverseName == "bucketList")
        #expect(itemTrip.keypath == \BucketListItem.trip)
    }

    @Test func uniqueAndIndexDeclarationsBecomePropertyNames() throws {
        let trip = try #require(schema.entity(for: Trip.self))
        #expect(trip.uniquenessConstraints == [["name", "startDate", "endDate"]])
        #expect(trip.indices == [["name"], ["startDate"], ["endDate"], ["name", "startDate", "endDate"]])
        #expect(trip.indexKinds == [.binary, .binary, .binary, .binary])
        #expect(schema.entity(for: BucketListItem.self)?.uniquenessConstraints == [])
    }

    @Test func seedSchemaIsValid() throws {
        try schema.validate()
    }

    @Test func schemaMetadataListsPersistedPropertiesWithKeyPathsAndDefaults() {
        let metadata = Trip.schemaMetadata
        #expect(metadata.map(\.name) == ["name", "destination", "startDate", "endDate", "bucketList", "livingAccommodation"])
        #expect(metadata[0].keypath == \Trip.name)
        #expect(metadata[0].metadata is Schema.Attribute)
        #expect((metadata[4].defaultValue as? [BucketListItem])?.isEmpty == true)
        #expect(metadata[5].defaultValue == nil)
    }
}
