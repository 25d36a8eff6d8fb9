import Foundation
import StrataCore

extension SQLiteStore {
    /// The snapshots matching the request, filtered, sorted and windowed in SQL.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   for what SQL cannot express, ``SQLiteError``, or ``SQLiteStoreError/corruptValue(table:column:expected:)``.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let table = try table(for: T.self)
        let filter = try request.filter
        let sort = try request.sortKeys
        let wanted = Set(request.propertyNamesToFetch)
        let columns = wanted.isEmpty ? table.columns : table.columns.filter { wanted.contains($0.name) }
        let query = try compiler.select(
            entity: table.entityName,
            columns: [qualified(SQLiteSchemaMapping.primaryKey)] + columns.map { qualified($0.name) },
            filter: filter, sort: sort, limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
        let snapshots = try read { connection in
            try SnapshotReader(store: self, table: table, columns: columns, partial: !wanted.isEmpty, wanted: wanted)
                .read(query, on: connection)
        }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    /// The number of rows matching the request.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        let table = try table(for: T.self)
        let query = try compiler.count(
            entity: table.entityName, filter: try request.filter, limit: request.descriptor.fetchLimit,
            offset: request.descriptor.fetchOffset)
        return try read { connection in
            let statement = try connection.cached(query.sql)
            try statement.bind(query.bindings)
            defer { statement.reset() }
            return try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    /// The identifiers of the rows matching the request, in order.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        let table = try table(for: T.self)
        let query = try compiler.identifiers(
            entity: table.entityName, filter: try request.filter, sort: try request.sortKeys,
            limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
        return try read { connection in
            let statement = try connection.cached(query.sql)
            try statement.bind(query.bindings)
            defer { statement.reset() }
            var identifiers: [PersistentIdentifier] = []
            while try statement.step() {
                identifiers.append(try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: statement.int64(0)))
            }
            return identifiers
        }
    }

    /// Deletes the rows the request selects, with their join rows and external files.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no SQL form,
    ///   ``SQLiteStoreError/readOnly(path:)``, or ``SQLiteError``.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        guard configuration.allowsSave else { throw SQLiteStoreError.readOnly(path: path) }
        let table = try table(for: T.self)
        let keysQuery = try compiler.identifiers(entity: table.entityName, filter: try request.filter, sort: [], limit: nil, offset: nil)
        let deleted: [DefaultSnapshot] = try read { connection in
            let statement = try connection.prepare(keysQuery.sql)
            try statement.bind(keysQuery.bindings)
            var snapshots: [DefaultSnapshot] = []
            while try statement.step() {
                let id = try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: statement.int64(0))
                snapshots.append(DefaultSnapshot(persistentIdentifier: id, propertyNames: [], values: []))
            }
            return snapshots
        }
        guard !deleted.isEmpty else { return }
        var writer = SaveWriter(store: self)
        try write { connection in
            try SQLiteMetadata.transaction(connection) {
                try writer.apply(inserted: [], updated: [], deleted: deleted, on: connection)
            }
        }
        for reference in writer.filesToRemove { externalStorage?.remove(reference) }
    }

    /// The SQL of the fetch and SQLite's query plan for it.
    ///
    /// - Throws: ``SQLiteError`` when the plan cannot be read.
    public func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String {
        let table = try table(for: T.self)
        guard let filter = try? request.filter else { return "SQLite cannot express the filter; the core filters in memory" }
        let sort = (try? request.sortKeys) ?? []
        let query: SQLiteQuery
        do {
            query = try compiler.select(
                entity: table.entityName,
                columns: [qualified(SQLiteSchemaMapping.primaryKey)] + table.columns.map { qualified($0.name) },
                filter: filter, sort: sort, limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
        } catch {
            return "SQLite cannot express this fetch (\(error)); the core finishes it in memory"
        }
        let plan = try read { connection in try SQLiteStatement.queryPlan(for: query.sql, bindings: query.bindings, on: connection) }
        var lines = ["SQL: \(query.sql)"]
        if (try? request.sortKeys) == nil { lines.append("sort: in memory (SQLite cannot express it)") }
        lines.append(contentsOf: plan.map { "plan: \($0)" })
        return lines.joined(separator: "\n")
    }

    func table<T: PersistentModel>(for type: T.Type) throws -> SQLiteSchemaMapping.Table {
        guard let table = mapping.tables[Schema.entityName(for: T.self)] else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the SQLite store \(path) holds no entity \(Schema.entityName(for: T.self))")
        }
        return table
    }

    func qualified(_ column: String) -> String { "t0." + SQLIdentifier.quote(column) }
}

/// Turns result rows into snapshots, loading to-many identifiers with one query per relationship.
struct SnapshotReader {
    let store: SQLiteStore
    let table: SQLiteSchemaMapping.Table
    let columns: [SQLiteSchemaMapping.Column]
    let partial: Bool
    let wanted: Set<String>

    func read(_ query: SQLiteQuery, on connection: SQLiteConnection) throws -> [DefaultSnapshot] {
        let statement = try connection.cached(query.sql)
        try statement.bind(query.bindings)
        defer { statement.reset() }
        var keys: [Int64] = []
        var rows: [[PersistentValue]] = []
        let names = partial ? partialNames() : table.propertyNames
        let positions = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        while try statement.step() {
            let key = statement.int64(0)
            var values = [PersistentValue](repeating: .null, count: names.count)
            for (index, column) in columns.enumerated() {
                var stored = statement.column(Int32(index + 1))
                if column.externalStorage, case .text(let reference) = stored, reference.hasPrefix(ExternalStorage.referencePrefix),
                    let storage = store.externalStorage
                {
                    stored = .blob(try storage.load(reference))
                }
                guard let position = positions[column.name] else { continue }
                values[position] = try SQLiteValueCodec.decode(
                    stored, kind: column.kind, destination: column.destination, storeIdentifier: store.identifier,
                    table: table.tableName, column: column.name)
            }
            keys.append(key)
            rows.append(values)
        }
        try loadToMany(into: &rows, keys: keys, positions: positions, on: connection)
        var snapshots: [DefaultSnapshot] = []
        snapshots.reserveCapacity(rows.count)
        for (key, values) in zip(keys, rows) {
            let id = try PersistentIdentifier.identifier(for: store.identifier, entityName: table.entityName, primaryKey: key)
            snapshots.append(DefaultSnapshot(persistentIdentifier: id, propertyNames: names, values: values))
        }
        return snapshots
    }

    private func partialNames() -> [String] {
        table.propertyNames.filter { wanted.contains($0) }
    }

    private func loadToMany(into rows: inout [[PersistentValue]], keys: [Int64], positions: [String: Int], on connection: SQLiteConnection) throws {
        guard !keys.isEmpty else { return }
        let rowOf = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let keyList = "[" + keys.map(String.init).joined(separator: ",") + "]"
        for (slot, property) in table.properties.enumerated() {
            let name = table.propertyNames[slot]
            guard let position = positions[name] else { continue }
            let sql: String
            let destination: String
            switch property {
            case .column, .crossStoreList:
                continue
            case .inverseColumn(let target, let column):
                destination = target
                sql = "SELECT \(SQLIdentifier.quote(column)), \(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) FROM \(SQLIdentifier.quote(target)) WHERE \(SQLIdentifier.quote(column)) IN (SELECT value FROM json_each(?1)) ORDER BY \(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey))"
            case .joinTable(let join, let owner, let member, let target):
                destination = target
                sql = "SELECT \(SQLIdentifier.quote(owner)), \(SQLIdentifier.quote(member)) FROM \(SQLIdentifier.quote(join)) WHERE \(SQLIdentifier.quote(owner)) IN (SELECT value FROM json_each(?1)) ORDER BY rowid"
            }
            var lists = [[PersistentIdentifier]](repeating: [], count: keys.count)
            let statement = try connection.cached(sql)
            try statement.bind([.text(keyList)])
            while try statement.step() {
                guard let row = rowOf[statement.int64(0)] else { continue }
                lists[row].append(try PersistentIdentifier.identifier(for: store.identifier, entityName: destination, primaryKey: statement.int64(1)))
            }
            statement.reset()
            for row in rows.indices { rows[row][position] = .identifiers(lists[row]) }
        }
    }
}
