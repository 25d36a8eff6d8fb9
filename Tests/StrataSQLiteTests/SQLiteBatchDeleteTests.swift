import Foundation
import Strata
@_spi(StoreTesting) @testable import StrataCore
import Testing

@testable import StrataSQLite

/// A delete of every row that lists what it deleted: the keys come from the count the DELETE
/// removed when they run without a gap, and from a reader of the committed rows when not.
@Suite struct SQLiteBatchDeleteTests {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-batch-delete-\(UUID()).store")

    func openStore(inMemory: Bool = false) throws -> SQLiteStore {
        let schema = Schema([Picture.self, Album.self])
        let configuration =
            inMemory ? ModelConfiguration("batch-delete", schema: schema, isStoredInMemoryOnly: true) : ModelConfiguration("batch-delete", schema: schema, url: url)
        return try SQLiteStore(configuration, migrationPlan: nil)
    }

    /// Inserts `count` pictures and returns their identifiers.
    func insertPictures(_ count: Int, into store: SQLiteStore) throws -> [PersistentIdentifier] {
        var related: [PersistentIdentifier: any BackingData] = [:]
        let snapshots = (0..<count).map { DefaultSnapshot(from: Picture(caption: "picture \($0)").persistentBackingData, relatedBackingDatas: &related) }
        let result = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: snapshots, updated: [], deleted: []))
        return try snapshots.map { try #require(result.remappedIdentifiers[$0.persistentIdentifier]) }
    }

    func deletePictures(_ ids: [PersistentIdentifier], from store: SQLiteStore) throws {
        let snapshots = ids.map { DefaultSnapshot(persistentIdentifier: $0, propertyNames: [], values: []) }
        _ = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [], updated: [], deleted: snapshots))
    }

    func deleteEveryPicture(from store: SQLiteStore) throws -> [PersistentIdentifier] {
        try store.deleteListing(
            DataStoreBatchDeleteRequest<Picture>(editingState: EditingState(), predicate: nil, includeSubclasses: true, filter: .success(nil)))
    }

    func pictureCount(in store: SQLiteStore) throws -> Int64 {
        try store.write { connection in
            let statement = try connection.prepare(#"SELECT count(*) FROM "Picture""#)
            _ = try statement.step()
            return statement.int64(0)
        }
    }

    /// How many times the statement that counts the rows before a delete ran on the writer.
    func countsBeforeDeleting(in store: SQLiteStore) throws -> Int {
        let table = try #require(store.statements.table("Picture"))
        return try store.write { try $0.cached(table.keyBounds).timesRun }
    }

    @Test func aDeleteOfEveryRowListsItsKeysWithoutCountingTheRowsFirst() throws {
        let store = try openStore()
        #expect(store.readsBesideWrites, "a store file in WAL mode reads the committed rows beside a write")
        let ids = try insertPictures(20, into: store)
        #expect(Set(try deleteEveryPicture(from: store)) == Set(ids))

        // Gaps at the start, inside and at the end: a reader lists the keys that were committed.
        let again = try insertPictures(20, into: store)
        try deletePictures([again[0], again[7], again[8], again[19]], from: store)
        let left = again.enumerated().filter { ![0, 7, 8, 19].contains($0.offset) }.map(\.element)
        let listed = try deleteEveryPicture(from: store)
        #expect(listed.count == left.count)
        #expect(Set(listed) == Set(left))
        #expect(try pictureCount(in: store) == 0)
        #expect(try deleteEveryPicture(from: store).isEmpty)
        #expect(try countsBeforeDeleting(in: store) == 0, "the rows were counted before the delete")
    }

    @Test func aStoreInMemoryCountsTheRowsFirstAndListsTheSame() throws {
        // An in-memory store reads on its writer, so no reader sees the committed rows.
        let store = try openStore(inMemory: true)
        #expect(!store.readsBesideWrites)
        let ids = try insertPictures(12, into: store)
        try deletePictures([ids[3]], from: store)
        let listed = try deleteEveryPicture(from: store)
        #expect(Set(listed) == Set(ids).subtracting([ids[3]]))
        #expect(listed.count == 11)
        #expect(try pictureCount(in: store) == 0)
        #expect(try countsBeforeDeleting(in: store) > 0)
    }

    @Test func committedKeysThatDisagreeWithTheDeleteRollItBack() throws {
        let store = try openStore()
        let ids = try insertPictures(10, into: store)
        try deletePictures([ids[4]], from: store)
        let table = try #require(store.mapping.tables["Picture"])
        let keys = try ids.map { try #require($0.primaryKey(as: Int64.self)) }
        // A read of another state: one key missing, or as many keys with another highest.
        for wrong in [keys.filter { $0 != keys[4] && $0 != keys[5] }, keys.filter { $0 != keys[4] && $0 != keys[9] } + [99]] {
            var writer = SaveWriter(store: store)
            #expect(throws: SaveWriter.CommittedKeysDisagree.self) {
                try store.write { connection in
                    try connection.transaction {
                        try writer.deleteRows(of: table, .matching(nil), listing: true, committedKeys: { _ in wrong }, on: connection)
                    }
                }
            }
            #expect(try pictureCount(in: store) == 9, "a delete whose keys were not known was kept")
        }
        // A reader that cannot tell (it still holds an earlier read) is not taken for an empty table.
        var unread = SaveWriter(store: store)
        #expect(throws: SaveWriter.CommittedKeysDisagree.self) {
            try store.write { connection in
                try connection.transaction {
                    try unread.deleteRows(of: table, .matching(nil), listing: true, committedKeys: { _ in nil }, on: connection)
                }
            }
        }
        #expect(try pictureCount(in: store) == 9)
        // The store deletes again, counting the rows first.
        #expect(Set(try deleteEveryPicture(from: store)) == Set(ids).subtracting([ids[4]]))
    }

    @Test func aConnectionWithAStepOrATransactionOpenIsReading() throws {
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2)")
        #expect(!connection.isReading)
        let statement = try connection.prepare("SELECT x FROM t")
        #expect(try statement.step())
        #expect(connection.isReading, "a statement between rows holds its read")
        statement.reset()
        #expect(!connection.isReading)
        try connection.execute("BEGIN")
        #expect(connection.isReading)
        try connection.execute("COMMIT")
        #expect(!connection.isReading)
    }
}
