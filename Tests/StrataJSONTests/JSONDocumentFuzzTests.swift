import Foundation
import StrataCore
import StrataTesting
import Testing

@testable import StrataJSON

/// Loading mutated documents: every input either opens, or fails with a typed error that
/// leaves the file as it was; reading an opened one fetches or fails with a typed error;
/// none traps.
@Suite struct JSONDocumentFuzzTests {
    /// Inputs per run: 3,000, or `STRATA_FUZZ_INPUTS` (`make soak` sets 100,000).
    static var inputs: Int { ProcessInfo.processInfo.environment["STRATA_FUZZ_INPUTS"].flatMap(Int.init) ?? 3_000 }

    static let schema = Schema([Trip.self, BucketListItem.self, LivingAccommodation.self, Sample.self])

    /// A document with relationships, every attribute kind and history.
    static func seedDocument(in folder: TemporaryFolder) throws -> Data {
        let url = folder.file("seed.json")
        let container = try ModelContainer(for: schema, configurations: JSONStoreConfiguration(schema: schema, url: url))
        let context = ModelContext(container)
        let day = Date(timeIntervalSinceReferenceDate: 780_000_000)
        for index in 0..<3 {
            let trip = Trip(name: "Trip \(index)", destination: "Zürich \u{0}\u{FEFF}", startDate: day, endDate: day + 86_400)
            trip.bucketList = [BucketListItem(title: "Swim", hasReservation: index % 2 == 0)]
            trip.livingAccommodation = LivingAccommodation(placeName: "Seerose")
            context.insert(trip)
            let sample = Sample(label: "s\(index)")
            sample.ratio = [Double.nan, -0.0, .infinity][index]
            sample.unsigned = .max
            sample.note = index == 0 ? nil : "note"
            context.insert(sample)
        }
        try context.save()
        try context.delete(model: Trip.self, where: #Predicate { $0.name == "Trip 2" })
        try context.save()
        return try Data(contentsOf: url)
    }

    /// `bytes` with one to four random edits: bytes replaced, ranges deleted or repeated,
    /// JSON tokens inserted, or the end cut off.
    static func mutate(_ bytes: Data, _ random: inout SeededGenerator) -> Data {
        var data = [UInt8](bytes)
        let tokens = ["null", "-1", "1e999", "-0", "NaN", "\"", "{", "}", "[", "]", ",", ":", "true", "\"\\u0000\"", "18446744073709551616", "\"\\ud800\"", "{}", "[]", "\"x\""]
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !data.isEmpty else { break }
            let at = Int.random(in: 0..<data.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: data[at] = UInt8.random(in: 0...255, using: &random)
            case 1: data.removeSubrange(at..<min(data.count, at + Int.random(in: 1...16, using: &random)))
            case 2: data.insert(contentsOf: data[at..<min(data.count, at + Int.random(in: 1...32, using: &random))], at: at)
            case 3: data.insert(contentsOf: Array(tokens.randomElement(using: &random)!.utf8), at: at)
            case 4: data.removeSubrange(at...)
            default: data[at] = [UInt8(ascii: "0"), UInt8(ascii: "9"), UInt8(ascii: "\""), UInt8(ascii: "-"), 0x80, 0xFF].randomElement(using: &random)!
            }
        }
        return Data(data)
    }

    /// What a parsed document reads as: its recorded schema and its contents, written back
    /// as text (the writer is deterministic, so equal text is equal contents). A document
    /// without a store identifier is given a new one; the text names it `STORE`.
    static func reading(_ document: JSONDocument) throws -> String {
        let layouts = schema.entities.map(JSONEntityLayout.init)
        let recorded = try JSONStoreFormat.recordedSchema(document)
        let contents = try JSONStoreFormat.read(document, layouts: layouts)
        let text = try JSONStoreFormat.write(contents, layouts: layouts, schema: recorded ?? schema, file: document.file)
        return try text.withSerialized { String(decoding: $0, as: UTF8.self) }.replacingOccurrences(of: contents.storeIdentifier, with: "STORE")
    }

    /// Reading a document record by record (``JSONDocument/parseByOutline(_:file:)``) must
    /// give what reading it whole gives, and never accept a document the whole parse refuses.
    @Test func readingByOutlineAgreesWithReadingWhole() throws {
        let folder = try TemporaryFolder()
        let seed = try Self.seedDocument(in: folder)
        let seedDocument = try #require(JSONDocument.parseByOutline(Array(seed), file: "seed"), "the store's own document must outline")
        #expect(try Self.reading(seedDocument) == Self.reading(JSONDocument.parse(Array(seed), file: "seed")))
        var random = SeededGenerator(seed: 0x0D7E)
        var outlined = 0
        for input in 0..<Self.inputs {
            let bytes = Array(Self.mutate(seed, &random))
            guard let document = JSONDocument.parseByOutline(bytes, file: "fuzz"), let byOutline = try? Self.reading(document) else { continue }
            outlined += 1
            let whole: String
            do {
                whole = try Self.reading(try JSONDocument.parse(bytes, file: "fuzz"))
            } catch {
                Issue.record("input \(input): read by its outline, refused whole: \(error)")
                continue
            }
            // Compared as a Bool: a failure printing both texts would bury the input's number.
            let agree = byOutline == whole
            #expect(agree, "input \(input): reading by outline and whole differ")
        }
        #expect(outlined > Self.inputs / 50, "only \(outlined) inputs read by their outline")
    }

    /// A record or member nested near json-c's depth limit: read by its outline only when
    /// the whole parse reads it too.
    @Test func readingByOutlineRefusesNoDepthTheWholeParseAllows() throws {
        var outlinedRecords = 0
        var outlinedMembers = 0
        for depth in 500...515 {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let texts = [
                #"{"format": "strata-json", "entities": {"Trip": [{"id": "1", "deep": \#(nested)}]}}"#,
                #"{"format": "strata-json", "deep": \#(nested), "entities": {}}"#,
            ]
            for (kind, text) in texts.enumerated() {
                let bytes = Array(text.utf8)
                let wholeParses = (try? JSONDocument.parse(bytes, file: "deep")) != nil
                guard let document = JSONDocument.parseByOutline(bytes, file: "deep") else { continue }
                let records = document.rootNode.member("entities")?.member("Trip") ?? JSONNode(pointer: nil)
                guard (try? document.forEachRecord(ofEntity: "Trip", in: records) { _, _ in }) != nil else { continue }
                #expect(wholeParses, "nested \(depth) deep: read by outline, refused whole")
                if kind == 0 { outlinedRecords += 1 } else { outlinedMembers += 1 }
            }
        }
        // Both readings must reach the limit, or the loop proves little.
        #expect(outlinedRecords > 0 && outlinedRecords < 16 && outlinedMembers > 0 && outlinedMembers < 16, "\(outlinedRecords), \(outlinedMembers)")
    }

    /// The records of an entity the schema dropped are not kept, but a document parsed by
    /// its outline still parses them: a broken one fails the reading, as it fails the whole parse.
    @Test func readingByOutlineParsesTheRecordsOfADroppedEntity() throws {
        let layouts = Self.schema.entities.map(JSONEntityLayout.init)
        var change = JSONStoreFormat.SchemaChange()
        change.retiredEntities = ["Old"]
        func text(_ old: String) -> [UInt8] {
            Array(#"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [], "Old": [\#(old)]}}"#.utf8)
        }
        let sound = text(#"{"id": "1", "x": true}"#)
        let byOutline = try #require(JSONDocument.parseByOutline(sound, file: "old"))
        #expect(try JSONStoreFormat.read(byOutline, layouts: layouts, change: change).unknownEntities.isEmpty)

        let broken = text(#"{"id": "1", "x": tru}"#)
        #expect(throws: JSONStoreError.self) { try JSONDocument.parse(broken, file: "old") }
        let brokenByOutline = try #require(JSONDocument.parseByOutline(broken, file: "old"), "the outline steps over values unread")
        #expect(throws: (any Error).self) { try JSONStoreFormat.read(brokenByOutline, layouts: layouts, change: change) }
    }

    @Test func mutatedDocumentsOpenOrFailWithATypedErrorAndStayUntouched() throws {
        let folder = try TemporaryFolder()
        let seed = try Self.seedDocument(in: folder)
        let url = folder.file("fuzz.json")
        var random = SeededGenerator(seed: 0x5EED)
        var opened = 0
        var refused = 0
        for input in 0..<Self.inputs {
            let bytes = Self.mutate(seed, &random)
            try bytes.write(to: url)
            let container: ModelContainer
            do {
                container = try ModelContainer(for: Self.schema, configurations: JSONStoreConfiguration(schema: Self.schema, url: url))
            } catch is JSONStoreError, is SwiftDataError, is DataStoreError {
                refused += 1
                #expect(try Data(contentsOf: url) == bytes, "input \(input): a refused document changed")
                continue
            } catch {
                Issue.record("input \(input): an untyped error \(type(of: error)): \(error)")
                continue
            }
            // A document that opens may have been migrated to the app's schema (its stored
            // schema is part of it); a damaged value in it then fails the fetch that reads it.
            opened += 1
            do {
                let context = ModelContext(container)
                for trip in try context.fetch(FetchDescriptor<Trip>()) {
                    _ = (trip.name, trip.bucketList.map(\.title), trip.livingAccommodation?.placeName)
                }
                for sample in try context.fetch(FetchDescriptor<Sample>()) { _ = (sample.ratio, sample.note, sample.tags) }
                _ = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            } catch is JSONStoreError, is SwiftDataError, is DataStoreError {
                continue
            } catch {
                Issue.record("input \(input): an untyped error \(type(of: error)) reading an opened document: \(error)")
            }
        }
        // The mutations must reach both outcomes, or the test proves little.
        #expect(opened > Self.inputs / 50 && refused > Self.inputs / 2, "opened \(opened), refused \(refused)")
    }
}
