import Foundation
import Strata
import Testing

@Suite struct ModelValueTests {
    @Test func detachedModelKeepsEveryAttributeValue() {
        let specimen = Specimen()
        #expect(specimen.int == -1)
        #expect(specimen.int8 == .min)
        #expect(specimen.int16 == .max)
        #expect(specimen.int32 == -32)
        #expect(specimen.int64 == .min)
        #expect(specimen.uint == .max)
        #expect(specimen.uint8 == .max)
        #expect(specimen.uint16 == 16)
        #expect(specimen.uint32 == .max)
        #expect(specimen.uint64 == .max)
        #expect(specimen.double == 2.5)
        #expect(specimen.float == 1.25)
        #expect(specimen.bool)
        #expect(specimen.string == "Zürich")
        #expect(specimen.date == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(specimen.data == Data([0, 1, 2, 255]))
        #expect(specimen.uuid.uuidString == "3E1B2B7C-6F6B-4C47-9F43-4D1F2B0B9A10")
        #expect(specimen.url.absoluteString == "https://example.com/a?b=c")
        #expect(specimen.decimal == Decimal(string: "12345.6789"))
        #expect(specimen.priority == .high)
        #expect(specimen.mood == .excited)
        #expect(specimen.transport == .flight(number: "LX 318", seats: 2))
        #expect(specimen.address.location?.latitude == 47.37)
        #expect(specimen.tags == ["lake", "old town"])
        #expect(specimen.scores == ["food": 5, "weather": 3])
        #expect(specimen.stops == [Coordinates(latitude: 1, longitude: 2)])
    }

    @Test func optionalsStartNilAndKeepAssignedValues() {
        let specimen = Specimen()
        #expect(specimen.optionalInt == nil)
        #expect(specimen.optionalString == nil)
        #expect(specimen.optionalDate == nil)
        #expect(specimen.optionalUUID == nil)
        #expect(specimen.optionalPriority == nil)
        #expect(specimen.optionalTransport == nil)
        #expect(specimen.optionalAddress == nil)
        #expect(specimen.optionalTags == nil)

        specimen.optionalInt = 0
        specimen.optionalString = ""
        specimen.optionalPriority = .low
        specimen.optionalTransport = .walk
        specimen.optionalAddress = Address(street: "x", postcode: "y", location: nil)
        specimen.optionalTags = []
        #expect(specimen.optionalInt == 0)
        #expect(specimen.optionalString == "")
        #expect(specimen.optionalPriority == .low)
        #expect(specimen.optionalTransport == .walk)
        #expect(specimen.optionalAddress?.location == nil)
        #expect(specimen.optionalTags == [])

        specimen.optionalString = nil
        specimen.optionalTransport = nil
        #expect(specimen.optionalString == nil)
        #expect(specimen.optionalTransport == nil)
    }

    @Test func valuesAreStoredInTheirPersistentForm() {
        let specimen = Specimen()
        let data = specimen.persistentBackingData
        #expect(data.value(at: 0).attribute == .int(-1))
        #expect(data.value(at: 9).attribute == .int(-1))  // UInt64.max by bit pattern
        #expect(data.value(at: 11).attribute == .double(1.25))
        #expect(data.value(at: 19).attribute == .int(2))  // Priority.high raw value
        #expect(data.value(at: 20).attribute == .string("excited"))
        guard case .codable(let json)? = data.value(at: 22).attribute else {
            Issue.record("a Codable struct is stored as JSON")
            return
        }
        #expect(String(decoding: json, as: UTF8.self).contains("\"street\":\"Bahnhofstrasse 1\""))
        #expect(data.value(at: 26).attribute == .null)
    }

    @Test func relationshipsKeepTheirModelsOnDetachedObjects() {
        let trip = Trip(name: "Zürich", destination: "Switzerland", startDate: .now, endDate: .now)
        let item = BucketListItem(title: "Lake", details: "Swim", hasReservation: false, isInPlan: true)
        let stay = LivingAccommodation(address: "Seestrasse", placeName: "Hotel", hasReservation: true)
        trip.bucketList.append(item)
        trip.livingAccommodation = stay
        item.trip = trip
        #expect(trip.bucketList.count == 1)
        #expect(trip.bucketList.first === item)
        #expect(trip.livingAccommodation === stay)
        #expect(item.trip === trip)
        trip.livingAccommodation = nil
        #expect(trip.livingAccommodation == nil)
    }

    @Test func transientPropertiesAreNotPersisted() {
        let specimen = Specimen()
        specimen.viewCount = 3
        #expect(specimen.viewCount == 3)
        #expect(!Specimen.schemaMetadata.map(\.name).contains("viewCount"))
        #expect(!Specimen.schemaMetadata.map(\.name).contains("summary"))
    }

    @Test func modelsCompareByIdentityAndHaveTemporaryIdentifiers() {
        let first = Trip(name: "A", destination: "B", startDate: .now, endDate: .now)
        let second = Trip(name: "A", destination: "B", startDate: .now, endDate: .now)
        #expect(first == first)
        #expect(first != second)
        #expect(first.persistentModelID.isTemporary)
        #expect(first.persistentModelID.entityName == "Trip")
        #expect(first.persistentModelID == first.id)
        #expect(first.persistentModelID != second.persistentModelID)
        #expect(!first.hasChanges)
        #expect(!first.isDeleted)
    }
}

extension BackingValue {
    /// The stored attribute value, for assertions.
    var attribute: PersistentValue? {
        if case .attribute(let value) = self { return value }
        return nil
    }
}
