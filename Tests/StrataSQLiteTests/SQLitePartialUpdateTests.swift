import Foundation
import Strata
@_spi(StoreTesting) @testable import StrataCore
import Testing

@testable import StrataSQLite

/// What is SQLiteStore's own about partial updates: the UPDATE text, and external files.
@Suite struct SQLitePartialUpdateTests {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-partial-\(UUID()).store")

    func lookup<T: PersistentModel>(_ type: T.Type, _ identifiers: [PersistentIdentifier]) -> DataStoreFetchRequest<T> {
        DataStoreFetchRequest(
            editingState: EditingState(), descriptor: FetchDescriptor<T>(), filter: .success(nil), sort: .success([]),
            identifiers: identifiers)
    }

    func openStore() throws -> SQLiteStore {
        try SQLiteStore(ModelConfiguration("partial", schema: Schema([Sample.self]), url: url), migrationPlan: nil)
    }

    func insertSample(into store: SQLiteStore, photo: Data) throws -> PersistentIdentifier {
        let sample = Sample(flag: true, when: Date(timeIntervalSinceReferenceDate: 1), uuid: UUID(), amount: 1, tags: [])
        sample.photo = photo
        var related: [PersistentIdentifier: any BackingData] = [:]
        let snapshot = DefaultSnapshot(from: sample.persistentBackingData, relatedBackingDatas: &related)
        let result = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [snapshot], updated: [], deleted: []))
        return try #require(result.remappedIdentifiers[snapshot.persistentIdentifier])
    }

    func update(_ store: SQLiteStore, _ id: PersistentIdentifier, _ values: [String: PersistentValue]) throws {
        let change = DefaultSnapshot(persistentIdentifier: id, values: values)
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: [change], deleted: []))
    }

    func externalFiles() throws -> [String] {
        let folder = url.path + ".external"
        guard FileManager.default.fileExists(atPath: folder) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test func anUpdateStatementSetsOnlyTheListedColumnsInTableOrder() throws {
        let store = try openStore()
        let table = try #require(store.mapping.tables["Sample"])
        let names = table.columns.map(\.name)
        let flag = try #require(names.firstIndex(of: "flag"))
        let link = try #require(names.firstIndex(of: "link"))
        #expect(store.statements.update(table, columns: [flag, link])
            == #"UPDATE "Sample" SET "flag" = ?1, "link" = ?2 WHERE "_pk" = ?3"#)
        #expect(store.statements.update(table, columns: [link]) == #"UPDATE "Sample" SET "link" = ?1 WHERE "_pk" = ?2"#)
    }

    @Test func updatesOfOneShapeRunAsOneStatementPerChunkOfRows() throws {
        let store = try openStore()
        let table = try #require(store.mapping.tables["Sample"])
        let names = table.columns.map(\.name)
        let flag = try #require(names.firstIndex(of: "flag"))
        let link = try #require(names.firstIndex(of: "link"))
        #expect(store.statements.batchUpdate(table, columns: [flag, link], rows: 2)
            == #"UPDATE "Sample" SET "flag" = "_strata_values".column2, "link" = "_strata_values".column3 FROM (VALUES (?, ?, ?), (?, ?, ?)) AS "_strata_values" WHERE "Sample"."_pk" = "_strata_values".column1"#)
    }

    /// The values one update of many rows sets, different in every row and column.
    func changedValues(_ index: Int) -> [String: PersistentValue] {
        [
            "flag": .bool(index % 3 == 0),
            "when": .date(Date(timeIntervalSinceReferenceDate: Double(index) * 1.5 - 40)),
            "uuid": .uuid(UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!),
            "amount": .decimal(Decimal(index) / 8),
            "link": index % 5 == 0 ? .null : .url(URL(string: "https://example.com/\(index)/é")!),
            "tags": .codable(Data("[\"\(index)\",\"\"]".utf8)),
        ]
    }

    @Test func updatesOfManyRowsSetEachRowsOwnValues() throws {
        let store = try SQLiteStore(ModelConfiguration("partial", schema: Schema([Sample.self, Picture.self]), url: url), migrationPlan: nil)
        // Two full chunks and a remainder that runs row by row, and rows the save leaves alone.
        let count = SaveWriter.chunkRows * 2 + 44
        var ids: [PersistentIdentifier] = []
        for _ in 0..<(count + 3) { ids.append(try insertSample(into: store, photo: Data([1]))) }
        var captions: [String] = []
        var pictures: [DefaultSnapshot] = []
        for index in 0..<(SaveWriter.chunkRows + 1) {
            let picture = Picture(caption: "")
            var related: [PersistentIdentifier: any BackingData] = [:]
            pictures.append(DefaultSnapshot(from: picture.persistentBackingData, relatedBackingDatas: &related))
            captions.append(["", "é\u{0}ü \(index)", String(repeating: "🌍", count: index % 7), "plain \(index)"][index % 4])
        }
        let inserted = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: pictures, updated: [], deleted: []))
        let pictureIDs = try pictures.map { try #require(inserted.remappedIdentifiers[$0.persistentIdentifier]) }
        let untouched = try store.fetch(lookup(Sample.self, Array(ids.suffix(3)))).fetchedSnapshots.map(\.values)

        // Two shapes, one after the other: every column of each Sample row, then the captions.
        let changes = ids.prefix(count).enumerated().map { index, id in DefaultSnapshot(persistentIdentifier: id, values: changedValues(index)) }
            + zip(pictureIDs, captions).map { DefaultSnapshot(persistentIdentifier: $0, values: ["caption": .string($1)]) }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: changes, deleted: []))

        let stored = try store.fetch(lookup(Sample.self, ids)).fetchedSnapshots
        #expect(stored.map(\.persistentIdentifier) == ids)
        for (index, snapshot) in stored.prefix(count).enumerated() {
            for (name, value) in changedValues(index) {
                #expect(snapshot[name] == value, "row \(index), \(name)")
            }
            #expect(snapshot["photo"] == .data(Data([1])), "row \(index) lost a column the update did not list")
        }
        #expect(stored.suffix(3).map(\.values) == untouched, "rows the save did not list changed")
        #expect(try store.fetch(lookup(Picture.self, pictureIDs)).fetchedSnapshots.map { $0["caption"] } == captions.map { .string($0) })

        // Each shape's chunk statement ran once per full chunk.
        for (entity, columns, chunks) in [("Sample", changes[0].propertyNames, 2), ("Picture", ["caption"], 1)] {
            let table = try #require(store.mapping.tables[entity])
            let indices = columns.compactMap { name in table.columns.firstIndex { $0.name == name } }.sorted()
            let sql = store.statements.batchUpdate(table, columns: indices, rows: SaveWriter.chunkRows)
            #expect(try store.write { try $0.cached(sql).timesRun } == chunks, "\(entity) rows ran row by row")
        }
    }

    @Test func aChunkHoldsRowsOfOneEntityOnlyWhenAnotherListsTheSameProperties() throws {
        let schema = Schema([Album.self, Picture.self, DiskTrip.self, DiskItem.self, DiskStay.self])
        let store = try SQLiteStore(ModelConfiguration("partial", schema: schema, url: url), migrationPlan: nil)
        func insert<T: PersistentModel>(_ models: [T]) throws -> [PersistentIdentifier] {
            var related: [PersistentIdentifier: any BackingData] = [:]
            let snapshots = models.map { DefaultSnapshot(from: $0.persistentBackingData, relatedBackingDatas: &related) }
            let result = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots, updated: [], deleted: []))
            return try snapshots.map { try #require(result.remappedIdentifiers[$0.persistentIdentifier]) }
        }
        let albums = try insert((0..<200).map { Album(title: "album \($0)") })
        let items = try insert((0..<200).map { DiskItem(title: "item \($0)", isInPlan: false) })
        // Album keys and item keys overlap: a chunk that ran on past the albums would set
        // album rows with the items' keys.
        let changed = Array(albums.prefix(100)) + Array(items.suffix(50))
        let changes = changed.map { DefaultSnapshot(persistentIdentifier: $0, values: ["title": .string("new \($0)")]) }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: changes, deleted: []))

        let storedAlbums = try store.fetch(lookup(Album.self, albums)).fetchedSnapshots.map { $0["title"] }
        #expect(storedAlbums == albums.enumerated().map { .string($0 < 100 ? "new \($1)" : "album \($0)") })
        let storedItems = try store.fetch(lookup(DiskItem.self, items)).fetchedSnapshots.map { $0["title"] }
        #expect(storedItems == items.enumerated().map { .string($0 >= 150 ? "new \($1)" : "item \($0)") })
    }

    @Test func aRowMissingFromAChunkFailsTheSaveAndNothingIsWritten() throws {
        let store = try openStore()
        var ids: [PersistentIdentifier] = []
        for _ in 0..<(SaveWriter.chunkRows + 5) { ids.append(try insertSample(into: store, photo: Data([1]))) }
        let gone = ids[40]
        _ = try store.save(
            DataStoreSaveChangesRequest(
                editingState: EditingState(), inserted: [], updated: [],
                deleted: [DefaultSnapshot(persistentIdentifier: gone, propertyNames: [], values: [])]))
        let changes = ids.map { DefaultSnapshot(persistentIdentifier: $0, values: ["flag": .bool(false), "amount": .decimal(7)]) }
        let error = #expect(throws: SwiftDataError.self) {
            _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: changes, deleted: []))
        }
        #expect(error?.code == SwiftDataError.modelValidationFailure.code)
        #expect(String(describing: error).contains("\(gone)"), "the error does not name the missing model: \(String(describing: error))")
        let stored = try store.fetch(lookup(Sample.self, ids)).fetchedSnapshots
        #expect(stored.count == ids.count - 1)
        #expect(stored.allSatisfy { $0["flag"] == .bool(true) && $0["amount"] == .decimal(1) }, "a failed save wrote rows")
    }

    @Test func aTableWithATriggerUpdatesRowByRowAndTheRefusedRowIsNamed() throws {
        let store = try openStore()
        var ids: [PersistentIdentifier] = []
        for _ in 0..<SaveWriter.chunkRows { ids.append(try insertSample(into: store, photo: Data([1]))) }
        let refused = try #require(ids[70].primaryKey(as: Int64.self))
        // A trigger an app added refuses one row's new value.
        try store.write { connection in
            try connection.execute(
                "CREATE TRIGGER refuse BEFORE UPDATE OF \"amount\" ON \"Sample\" WHEN NEW.\"_pk\" = \(refused) BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        let changes = ids.map { DefaultSnapshot(persistentIdentifier: $0, values: ["amount": .decimal(9)]) }
        let error = #expect(throws: SQLiteStoreError.self) {
            _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: changes, deleted: []))
        }
        #expect(error?.resultCode == .constraint)
        #expect(error?.sql == #"UPDATE "Sample" SET "amount" = ?1 WHERE "_pk" = ?2"#, "the error is not the refused row's own statement")
        let stored = try store.fetch(lookup(Sample.self, ids)).fetchedSnapshots
        #expect(stored.allSatisfy { $0["amount"] == .decimal(1) }, "a failed save wrote rows")
        let table = try #require(store.mapping.tables["Sample"])
        let amount = try #require(table.columns.firstIndex { $0.name == "amount" })
        #expect(try store.write { try $0.cached(store.statements.batchUpdate(table, columns: [amount], rows: SaveWriter.chunkRows)).timesRun } == 0)
    }

    @Test func aPartialUpdateKeepsTheExternalFileOfAnUnlistedDataColumn() throws {
        let store = try openStore()
        let photo = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let id = try insertSample(into: store, photo: photo)
        let files = try externalFiles()
        #expect(files.count == 1)

        try update(store, id, ["flag": .bool(false)])
        #expect(try externalFiles() == files, "an update that did not list the data column touched its file")
        let request = lookup(Sample.self, [id])
        let stored = try #require(try store.fetch(request).fetchedSnapshots.first)
        #expect(stored["photo"] == .data(photo))
        #expect(stored["flag"] == .bool(false))

        let replacement = Data(repeating: 9, count: 150_000)
        try update(store, id, ["photo": .data(replacement)])
        let after = try externalFiles()
        #expect(after.count == 1 && after != files, "listing the data column did not replace its file")
        #expect(try store.fetch(request).fetchedSnapshots.first?["photo"] == .data(replacement))

        try update(store, id, ["photo": .null])
        #expect(try externalFiles().isEmpty, "clearing the data column left its file behind")
    }

    @Test func aLookupByIdentifierLargerThanOneStatementKeepsTheRequestedOrder() throws {
        let store = try openStore()
        var ids: [PersistentIdentifier] = []
        for _ in 0..<3 { ids.append(try insertSample(into: store, photo: Data([1]))) }
        let storeIdentifier = try #require(ids[0].storeIdentifier)
        let absent = try (0..<(SQLiteQueryCompiler.lookupChunkSize + 10)).map {
            try PersistentIdentifier.identifier(for: storeIdentifier, entityName: "Sample", primaryKey: Int64(10_000 + $0))
        }
        let asked = [ids[2]] + absent + [ids[0], ids[2], ids[1]]
        let request = lookup(Sample.self, asked)
        #expect(try store.fetch(request).fetchedSnapshots.map(\.persistentIdentifier) == [ids[2], ids[0], ids[1]])
        #expect(try store.fetchIdentifiers(request) == [ids[2], ids[0], ids[1]])
        #expect(try store.fetchCount(request) == 3)
        #expect(try store.explain(request).contains(#"WHERE t0."_pk" IN (?"#))
    }
}
