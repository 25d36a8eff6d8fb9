import Foundation
import StrataCore
import Testing

@testable import StrataJSON

/// The file format: what a save writes, and what a hand-edited file reads as.
@Suite struct JSONStoreFormatTests {
    /// A container on one JSON document holding the trip models.
    static func container(_ url: URL, _ types: any PersistentModel.Type...) throws -> ModelContainer {
        let schema = Schema(types)
        return try ModelContainer(for: schema, configurations: JSONStoreConfiguration(schema: schema, url: url))
    }

    static func text(_ url: URL) throws -> String {
        String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    @Test func aSmallGraphIsWrittenAsDocumented() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("trips.json")
        let context = ModelContext(try Self.container(url, Trip.self))
        let trip = Trip(
            name: "Kyoto", destination: "Japan",
            startDate: Date(timeIntervalSince1970: 1_714_557_600.25), endDate: Date(timeIntervalSince1970: 1_715_162_400))
        let temple = BucketListItem(title: "Kiyomizu-dera", hasReservation: false)
        let garden = BucketListItem(title: "Ryōan-ji \"rock\" garden", hasReservation: true)
        trip.bucketList = [temple, garden]
        trip.livingAccommodation = LivingAccommodation(placeName: "Ryokan / Inn")
        context.insert(trip)
        try context.save()

        func key(_ model: some PersistentModel) -> String { String(model.persistentModelID.primaryKey(as: Int64.self)!) }
        let store = try #require(trip.persistentModelID.storeIdentifier)
        let expected = """
            {
              "format": "strata-json",
              "formatVersion": 1,
              "schemaVersion": "1.0.0",
              "storeIdentifier": "\(store)",
              "nextKey": 5,
              "entities": {
                "BucketListItem": [
                  {
                    "id": "\(key(temple))",
                    "title": "Kiyomizu-dera",
                    "hasReservation": false,
                    "trip": "\(key(trip))"
                  },
                  {
                    "id": "\(key(garden))",
                    "title": "Ryōan-ji \\"rock\\" garden",
                    "hasReservation": true,
                    "trip": "\(key(trip))"
                  }
                ],
                "LivingAccommodation": [
                  {
                    "id": "\(key(trip.livingAccommodation!))",
                    "placeName": "Ryokan / Inn",
                    "trip": "\(key(trip))"
                  }
                ],
                "Trip": [
                  {
                    "id": "\(key(trip))",
                    "name": "Kyoto",
                    "destination": "Japan",
                    "startDate": "2024-05-01T10:00:00.250Z",
                    "endDate": "2024-05-08T10:00:00Z",
                    "bucketList": [
                      "\(key(temple))",
                      "\(key(garden))"
                    ],
                    "livingAccommodation": "\(key(trip.livingAccommodation!))"
                  }
                ]
              }
            }

            """
        // Then the save's history (JSONStoreHistoryTests checks it), and last the schema the
        // document was written with, which is the container's.
        let text = try Self.text(url)
        let historyStart = try #require(text.range(of: ",\n  \"history\": "))
        let schemaStart = try #require(text.range(of: ",\n  \"schema\": "))
        #expect(historyStart.lowerBound < schemaStart.lowerBound)
        #expect(String(text[..<historyStart.lowerBound]) + "\n}\n" == expected)
        let recorded = try JSONDecoder().decode(Schema.self, from: Data(String(text[schemaStart.upperBound...].dropLast(3)).utf8))
        #expect(recorded.hasSameStructure(as: Schema([Trip.self])))
    }

    /// A file written by hand: integer and string keys, dates with offsets and without
    /// fractions, a missing optional, and members and entities the schema does not know.
    static let handWritten = """
        {
          "format": "strata-json",
          "formatVersion": 1,
          "comment": {"by": "a person", "tools": ["vi"]},
          "entities": {
            "Trip": [
              {"id": 7, "name": "Lisbon", "destination": "Portugal",
               "startDate": "2024-06-01T09:30:00+02:00", "endDate": "2024-06-05T18:00:00.5Z",
               "bucketList": ["8", 9], "colour": "blue"}
            ],
            "BucketListItem": [
              {"id": "8", "title": "Tram 28", "hasReservation": false, "trip": "7"},
              {"id": "9", "title": "Belém", "hasReservation": true, "trip": 7}
            ],
            "Postcard": [{"id": "1", "text": "Wish you were here"}]
          }
        }
        """

    @Test func aHandWrittenFileIsReadBack() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("trips.json")
        try Data(Self.handWritten.utf8).write(to: url)
        let context = ModelContext(try Self.container(url, Trip.self))

        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "Lisbon")
        #expect(trip.startDate == Date(timeIntervalSince1970: 1_717_227_000))
        #expect(trip.endDate == Date(timeIntervalSince1970: 1_717_610_400.5))
        #expect(trip.bucketList.map(\.title) == ["Tram 28", "Belém"])
        #expect(trip.livingAccommodation == nil)
        #expect(trip.persistentModelID.primaryKey(as: Int64.self) == 7)
        #expect(try context.fetch(FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.hasReservation })).first?.trip === trip)

        // New models get keys above every key in the file.
        context.insert(BucketListItem(title: "Pastéis", hasReservation: false))
        try context.save()
        let keys = try context.fetchIdentifiers(FetchDescriptor<BucketListItem>()).compactMap { $0.primaryKey(as: Int64.self) }
        #expect(keys.sorted() == [8, 9, 10])
    }

    @Test func unknownMembersAndEntitiesAreKeptAfterASave() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("trips.json")
        try Data(Self.handWritten.utf8).write(to: url)
        let context = ModelContext(try Self.container(url, Trip.self))
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        trip.name = "Lisboa"
        try context.save()

        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let comment = try #require(root["comment"] as? [String: Any])
        #expect(comment["by"] as? String == "a person")
        #expect(comment["tools"] as? [String] == ["vi"])
        let entities = try #require(root["entities"] as? [String: Any])
        let postcards = try #require(entities["Postcard"] as? [[String: Any]])
        #expect(postcards.first?["text"] as? String == "Wish you were here")
        let trips = try #require(entities["Trip"] as? [[String: Any]])
        #expect(trips.first?["name"] as? String == "Lisboa")
        #expect(trips.first?["colour"] as? String == "blue")
        #expect(trips.first?["id"] as? String == "7")
        #expect(root["storeIdentifier"] is String)
        #expect(root["nextKey"] as? Int == 10)

        // And they survive a second store reading the rewritten file.
        let again = ModelContext(try Self.container(url, Trip.self))
        #expect(try again.fetch(FetchDescriptor<Trip>()).first?.name == "Lisboa")
        #expect(try Self.text(url).contains("\"colour\": \"blue\""))
    }

    @Test func datesKeepTheirFractionalSecondsExactly() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("dates.json")
        let dates: [(Date, String)] = [
            (Date(timeIntervalSince1970: 1_714_557_600.25), "2024-05-01T10:00:00.250Z"),
            (Date(timeIntervalSince1970: 1_700_000_000.123456), "2023-11-14T22:13:20.123456Z"),
            (Date(timeIntervalSinceReferenceDate: 0), "2001-01-01T00:00:00Z"),
            (Date(timeIntervalSinceReferenceDate: -0.25), "2000-12-31T23:59:59.750Z"),
            (Date(timeIntervalSinceReferenceDate: -1.25), "2000-12-31T23:59:58.750Z"),
            (Date.distantPast, "0000-12-30T00:00:00Z"),
            (Date.distantFuture, "4001-01-01T00:00:00Z"),
        ]
        let context = ModelContext(try Self.container(url, Trip.self))
        for (index, (date, _)) in dates.enumerated() {
            context.insert(Trip(name: "\(index)", destination: "", startDate: date, endDate: date))
        }
        try context.save()
        let text = try Self.text(url)
        for (_, written) in dates {
            #expect(text.contains("\"startDate\": \"\(written)\""), "\(written) is not in the file")
        }
        let reread = try ModelContext(Self.container(url, Trip.self)).fetch(FetchDescriptor<Trip>())
        for (index, (date, _)) in dates.enumerated() {
            let trip = try #require(reread.first { $0.name == "\(index)" })
            #expect(trip.startDate.timeIntervalSinceReferenceDate == date.timeIntervalSinceReferenceDate)
        }
    }

    @Test func numbersDecimalsDataAndCodableValuesUseTheirDocumentedNotation() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("samples.json")
        let context = ModelContext(try Self.container(url, Sample.self))
        let sample = Sample(label: "extremes")
        sample.count = .min
        sample.unsigned = .max
        sample.ratio = 0.1
        sample.flag = true
        sample.blob = Data([0, 1, 2, 253, 254, 255])
        sample.amount = Decimal(string: "12345678901234567890.123456789")!
        sample.token = UUID(uuidString: "3E1B2B7C-6F6B-4C47-9F43-4D1F2B0B9A10")!
        sample.link = URL(string: "https://example.com/a/b?c=d")!
        sample.place = Coordinates(latitude: 47.37, longitude: -8.54)
        sample.tags = ["lake", "old town"]
        let large = Sample(label: "large")
        large.count = .max
        large.ratio = .greatestFiniteMagnitude
        let special = Sample(label: "special")
        special.ratio = .infinity
        for model in [sample, large, special] { context.insert(model) }
        try context.save()

        let text = try Self.text(url)
        for fragment in [
            "\"count\": -9223372036854775808", "\"count\": 9223372036854775807", "\"unsigned\": 18446744073709551615",
            "\"ratio\": 0.1,", "\"ratio\": 1.7976931348623157e+308", "\"ratio\": \"+Infinity\"", "\"flag\": true",
            "\"blob\": \"AAEC/f7/\"", "\"amount\": \"12345678901234567890.123456789\"",
            "\"token\": \"3E1B2B7C-6F6B-4C47-9F43-4D1F2B0B9A10\"", "\"link\": \"https://example.com/a/b?c=d\"",
            "\"latitude\": 47.37", "\"note\": null",
        ] {
            #expect(text.contains(fragment), "the file lacks \(fragment)")
        }

        let reread = try ModelContext(Self.container(url, Sample.self)).fetch(FetchDescriptor<Sample>())
        let read = try #require(reread.first { $0.label == "extremes" })
        #expect(read.count == .min)
        #expect(read.unsigned == .max)
        #expect(read.ratio == 0.1)
        #expect(read.blob == sample.blob)
        #expect(read.amount == sample.amount)
        #expect(read.token == sample.token)
        #expect(read.link == sample.link)
        #expect(read.place == sample.place)
        #expect(read.tags == ["lake", "old town"])
        #expect(read.note == nil)
        #expect(reread.first { $0.label == "large" }?.count == .max)
        #expect(reread.first { $0.label == "large" }?.ratio == .greatestFiniteMagnitude)
        #expect(reread.first { $0.label == "special" }?.ratio == .infinity)
    }

    @Test func aMissingAttributeReadsAsNilOrItsDeclaredDefault() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("settings.json")
        try Data(#"{"format": "strata-json", "formatVersion": 1, "entities": {"Setting": [{"id": "1", "key": "volume"}]}}"#.utf8).write(to: url)
        let setting = try #require(try ModelContext(Self.container(url, Setting.self)).fetch(FetchDescriptor<Setting>()).first)
        #expect(setting.key == "volume")
        #expect(setting.level == 3)
    }

    /// The store reads a record's members in the order it writes them, and by name when a
    /// document holds them in another order (edited by hand, or by another program).
    @Test func membersInAnyOrderReadAsTheirProperties() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("settings.json")
        let records = #"[{"id": "1", "key": "volume", "level": 7}, {"level": 9, "key": "bass", "id": "2"}, {"key": "treble", "extra": true, "id": "3", "level": 4}]"#
        try Data(#"{"format": "strata-json", "formatVersion": 1, "entities": {"Setting": \#(records)}}"#.utf8).write(to: url)
        let settings = try ModelContext(Self.container(url, Setting.self)).fetch(FetchDescriptor<Setting>(sortBy: [SortDescriptor(\.key)]))
        #expect(settings.map(\.key) == ["bass", "treble", "volume"])
        #expect(settings.map(\.level) == [9, 4, 7])
        #expect(settings.map { $0.persistentModelID.primaryKey(as: Int64.self) } == [2, 3, 1])
    }

    @Test func theFirstSaveCreatesMissingFolders() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("a/b/people.json")
        let context = ModelContext(try Self.container(url, Person.self))
        context.insert(Person(name: "Ada", age: 36))
        try context.save()
        #expect(try ModelContext(Self.container(url, Person.self)).fetchCount(FetchDescriptor<Person>()) == 1)
    }
}
