import Foundation
import Strata
@_spi(StoreTesting) @testable import StrataCore
import Testing

@testable import StrataSQLite

/// Inserts that go a chunk of rows per statement: their keys, and tables whose triggers keep
/// their rows going one by one.
@Suite struct SQLiteRowChunkTests {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-chunks-\(UUID()).store")

    func openStore() throws -> SQLiteStore {
        try SQLiteStore(ModelConfiguration("chunks", schema: Schema([Picture.self, Album.self]), url: url), migrationPlan: nil)
    }

    func snapshots<T: PersistentModel>(_ models: [T]) -> [DefaultSnapshot] {
        var related: [PersistentIdentifier: any BackingData] = [:]
        return models.map { DefaultSnapshot(from: $0.persistentBackingData, relatedBackingDatas: &related) }
    }

    func insert(_ snapshots: [DefaultSnapshot], into store: SQLiteStore) throws -> [PersistentIdentifier] {
        let result = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots, updated: [], deleted: []))
        return try snapshots.map { try #require(result.remappedIdentifiers[$0.persistentIdentifier]) }
    }

    /// How many times the statement that inserts a chunk of pictures ran on the writer.
    func chunkInsertRuns(in store: SQLiteStore) throws -> Int {
        let table = try #require(store.mapping.tables["Picture"])
        return try store.write { try $0.cached(store.statements.batchInsert(table, rows: SaveWriter.chunkRows)).timesRun }
    }

    func captions(in store: SQLiteStore) throws -> [Int64: String] {
        let request = DataStoreFetchRequest<Picture>(
            editingState: EditingState(), descriptor: FetchDescriptor<Picture>(), filter: .success(nil), sort: .success([]))
        var captions: [Int64: String] = [:]
        for snapshot in try store.fetch(request).fetchedSnapshots {
            guard case .string(let caption) = snapshot["caption"], let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self) else {
                Issue.record("unexpected row \(snapshot)")
                continue
            }
            captions[key] = caption
        }
        return captions
    }

    @Test func anInsertStatementOfManyRowsListsEveryColumn() throws {
        let store = try openStore()
        let table = try #require(store.mapping.tables["Picture"])
        #expect(store.statements.batchInsert(table, rows: 2) == #"INSERT INTO "Picture" ("caption") VALUES (?), (?)"#)
    }

    @Test func insertsInChunksTakeTheKeysAfterTheHighestAsRowByRowInsertsDo() throws {
        let store = try openStore()
        // Keys 1...5, then the highest goes: the next insert takes 5 again, as SQLite gives it.
        let first = try insert(snapshots((0..<5).map { Picture(caption: "first \($0)") }), into: store)
        _ = try store.save(
            DataStoreSaveChangesRequest(
                editingState: EditingState(), inserted: [], updated: [],
                deleted: [DefaultSnapshot(persistentIdentifier: first[4], propertyNames: [], values: [])]))
        // Two chunks and a remainder row by row, with an album (other columns) between them.
        let count = SaveWriter.chunkRows * 2 + 30
        let texts = (0..<count).map { ["", "é\u{0}ü \($0)", String(repeating: "🌍", count: $0 % 5), "plain \($0)"][$0 % 4] }
        let pictures = snapshots(texts.map { Picture(caption: $0) })
        let album = snapshots([Album(title: "between")])
        let ids = try insert(Array(pictures[..<150]) + album + Array(pictures[150...]), into: store)

        var expected = Dictionary(uniqueKeysWithValues: first.prefix(4).enumerated().map { (try! #require($1.primaryKey(as: Int64.self)), "first \($0)") })
        let pictureIDs = Array(ids[..<150]) + Array(ids[151...])
        for (id, text) in zip(pictureIDs, texts) { expected[try #require(id.primaryKey(as: Int64.self))] = text }
        #expect(try pictureIDs.map { try #require($0.primaryKey(as: Int64.self)) } == Array(5..<Int64(5 + count)))
        #expect(try captions(in: store) == expected)

        #expect(
            try chunkInsertRuns(in: store) == 2,
            "the inserts ran row by row")
    }

    @Test func insertsNearTheLargestKeyGoRowByRowAndReadBack() throws {
        let store = try openStore()
        // A row an app wrote with a key near the largest: the keys a chunk would take run out.
        try store.write { try $0.execute("INSERT INTO \"Picture\" (\"_pk\", \"caption\") VALUES (\(Int64.max - 10), 'high')") }
        let texts = (0..<SaveWriter.chunkRows).map { "caption \($0)" }
        let ids = try insert(snapshots(texts.map { Picture(caption: $0) }), into: store)
        let keys = try ids.map { try #require($0.primaryKey(as: Int64.self)) }
        #expect(Set(keys).count == texts.count)
        var expected = Dictionary(uniqueKeysWithValues: zip(keys, texts))
        expected[Int64.max - 10] = "high"
        #expect(try captions(in: store) == expected)
        #expect(try chunkInsertRuns(in: store) == 0)
    }

    @Test func aTableWithATriggerInsertsRowByRowAndTheRefusedRowIsNamed() throws {
        let store = try openStore()
        // The table named in another case, as SQL allows: SQLite keeps the name as written.
        try store.write { connection in
            try connection.execute(
                "CREATE TRIGGER refuse BEFORE INSERT ON picture WHEN NEW.\"caption\" = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        let texts = (0..<SaveWriter.chunkRows).map { $0 == 70 ? "refused" : "caption \($0)" }
        let error = #expect(throws: SQLiteStoreError.self) { _ = try insert(snapshots(texts.map { Picture(caption: $0) }), into: store) }
        #expect(error?.resultCode == .constraint)
        #expect(error?.sql == #"INSERT INTO "Picture" ("caption") VALUES (?1)"#, "the error is not the refused row's own statement")
        #expect(try captions(in: store).isEmpty, "a failed save wrote rows")
        #expect(try chunkInsertRuns(in: store) == 0)
    }

    @Test func anInsertThatATriggerSkipsFailsTheSave() throws {
        let store = try openStore()
        try store.write { connection in
            try connection.execute(
                "CREATE TRIGGER skip BEFORE INSERT ON \"Picture\" WHEN NEW.\"caption\" = 'skipped' BEGIN SELECT RAISE(IGNORE); END")
        }
        // Without a row, the last rowid would be another row's: the kept one's.
        let error = #expect(throws: SwiftDataError.self) {
            _ = try insert(snapshots(["kept", "skipped"].map { Picture(caption: $0) }), into: store)
        }
        #expect(error?.code == SwiftDataError.modelValidationFailure.code)
        #expect(try captions(in: store).isEmpty, "a failed save wrote rows")
    }
}
