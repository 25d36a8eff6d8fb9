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
