import Foundation
import PostgresNIO
import StrataCore

extension PostgresStore {
    var compiler: PostgresQueryCompiler { PostgresQueryCompiler(mapping: mapping, writer: writer, storeIdentifier: identifier) }

    /// The snapshots matching the request, filtered, sorted and windowed in SQL; for a lookup
    /// by identifier, the rows of those identifiers, in the requested order.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` for an entity
    ///   the store does not hold, ``DataStoreError/preferInMemoryFilter`` or
    ///   ``DataStoreError/preferInMemorySort`` for what SQL cannot express exactly, or ``PostgresStoreError``.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let table = try table(for: T.self)
        let wanted = Set(request.propertyNamesToFetch)
        let reader = PostgresSnapshotReader(store: self, table: table, wanted: wanted)
        let query: PostgresQueryCompiler.Query
        var requested: [Int64]?
        if let identifiers = request.identifiers {
            let keys = table.keys(of: identifiers, storeIdentifier: identifier)
            requested = keys
            query = lookup(reader.selection, in: table, keys: keys)
        } else {
            query = try compiler.select(
                reader.selection, from: table, filter: try request.filter, sort: try request.sortKeys,
                limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
        }
        var snapshots = try pool.withConnection { connection in try reader.read(query, on: connection) }
        if let requested {
            var byKey: [Int64: DefaultSnapshot] = [:]
            for snapshot in snapshots { if let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self) { byKey[key] = snapshot } }
            snapshots = requested.compactMap { byKey[$0] }
        }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    /// The number of rows matching the request.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        if request.identifiers != nil { return try fetchKeys(request).count }
        // Counted by the server: the window, unsorted, in a subquery.
        let matches = try compiler.select(
            ["1"], from: try table(for: T.self), filter: try request.filter, sort: nil, limit: request.descriptor.fetchLimit,
            offset: request.descriptor.fetchOffset)
        let count = try pool.withConnection { connection in
            try pool.query("SELECT count(*) FROM (\(matches.sql)) AS matches", matches.binds, on: connection).first.map { try $0.decode(Int64.self) }
        }
        return Int(count ?? 0)
    }

    /// The identifiers of the rows matching the request, in order.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        let table = try table(for: T.self)
        let template = try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: 0)
        return try fetchKeys(request).map { template.replacingPrimaryKey($0) }
    }

    /// The keys of the rows the request selects, in order.
    private func fetchKeys<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [Int64] {
        let table = try table(for: T.self)
        let key = "t0." + SQLIdentifier.quote(RelationalSchemaMapping.primaryKey)
        if let identifiers = request.identifiers {
            let keys = table.keys(of: identifiers, storeIdentifier: identifier)
            let held = Set(try keysOf(lookup([key], in: table, keys: keys)))
            return keys.filter(held.contains)
        }
        return try keysOf(compiler.select(
            [key], from: table, filter: try request.filter, sort: try request.sortKeys,
            limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset))
    }

    private func keysOf(_ query: PostgresQueryCompiler.Query) throws -> [Int64] {
        try pool.withConnection { connection in
            try pool.query(query.sql, query.binds, on: connection).map { try $0.decode(Int64.self) }
        }
    }

    /// `SELECT <selection> ... WHERE t0._pk = ANY($1)`: the rows of `keys`, in no particular order.
    private func lookup(_ selection: [String], in table: RelationalSchemaMapping.Table, keys: [Int64]) -> PostgresQueryCompiler.Query {
        var query = PostgresQueryCompiler.Query(
            sql: "SELECT \(selection.joined(separator: ", ")) FROM \(writer.qualified(table.tableName)) AS t0 WHERE t0.\(SQLIdentifier.quote(RelationalSchemaMapping.primaryKey)) = ANY($1)")
        query.binds.append(keys)
        return query
    }

    /// The SQL of the fetch and PostgreSQL's `EXPLAIN` of it.
    ///
    /// - Throws: ``PostgresStoreError`` when the plan cannot be read.
    public func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String {
        let table = try table(for: T.self)
        let reader = PostgresSnapshotReader(store: self, table: table, wanted: Set(request.propertyNamesToFetch))
        let query: PostgresQueryCompiler.Query
        var lines: [String] = []
        if let identifiers = request.identifiers {
            query = lookup(reader.selection, in: table, keys: table.keys(of: identifiers, storeIdentifier: identifier))
        } else {
            // `try?` would read a fetch without a predicate (a `nil` filter) as one PostgreSQL cannot express.
            let filter: FilterExpression?
            do { filter = try request.filter } catch { return "PostgreSQL cannot express the filter; the core filters in memory" }
            do {
                query = try compiler.select(
                    reader.selection, from: table, filter: filter, sort: (try? request.sortKeys) ?? [],
                    limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
            } catch {
                return "PostgreSQL cannot express this fetch exactly; the core finishes it in memory"
            }
            if (try? request.sortKeys) == nil { lines.append("sort: in memory (PostgreSQL cannot express it)") }
        }
        let plan = try pool.withConnection { connection in
            try pool.query("EXPLAIN " + query.sql, query.binds, on: connection).map { try $0.decode(String.self) }
        }
        return (["SQL: \(query.sql)"] + lines + plan.map { "plan: \($0)" }).joined(separator: "\n")
    }
}

/// Turns result rows into snapshots, loading to-many identifiers with one query per relationship.
struct PostgresSnapshotReader {
    let store: PostgresStore
    let table: RelationalSchemaMapping.Table
    /// The columns read, in selection order after the key.
    let columns: [RelationalSchemaMapping.Column]
    /// The snapshot's property names, and where each column's value goes among them.
    let names: [String]
    let positions: [Int]
    /// The key and `columns`, as the `SELECT` list names them.
    let selection: [String]

    /// A reader of the properties `wanted` names, or of every property when it is empty.
    init(store: PostgresStore, table: RelationalSchemaMapping.Table, wanted: Set<String>) {
        self.store = store
        self.table = table
        columns = wanted.isEmpty ? table.columns : table.columns.filter { wanted.contains($0.name) }
        names = wanted.isEmpty ? table.propertyNames : table.propertyNames.filter { wanted.contains($0) }
        let position = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        positions = columns.map { position[$0.name]! }
        selection = ["t0." + SQLIdentifier.quote(RelationalSchemaMapping.primaryKey)]
            + columns.map { PostgresValueCodec.selection("t0." + SQLIdentifier.quote($0.name), kind: $0.kind) }
    }

    /// The snapshots of the rows `query` selects (their key first, then `columns`), with their to-many relationships.
    ///
    /// - Throws: ``PostgresStoreError``, or ``SwiftDataError/modelValidationFailure`` naming the
    ///   row, the entity and the property of a value that cannot be of its property's kind.
    func read(_ query: PostgresQueryCompiler.Query, on connection: PostgresConnection) throws -> [DefaultSnapshot] {
        let template = try PersistentIdentifier.identifier(for: store.identifier, entityName: table.entityName, primaryKey: 0)
        var snapshots: [DefaultSnapshot] = []
        for row in try store.pool.query(query.sql, query.binds, on: connection) {
            var cells = row.makeIterator()
            guard let keyCell = cells.next() else { continue }
            let id = template.replacingPrimaryKey(try keyCell.decode(Int64.self))
            var values = [PersistentValue](repeating: .null, count: names.count)
            for (index, column) in columns.enumerated() {
                guard let cell = cells.next() else { break }
                do {
                    values[positions[index]] = try PostgresValueCodec.decode(
                        cell, column: column, storeIdentifier: store.identifier, table: table.tableName)
                } catch PostgresStoreError.corruptValue {
                    throw SwiftDataError.modelValidationFailure.with(
                        details: "\(id) cannot be read: \(table.entityName).\(column.name) holds a value that is not a \(column.kind.rawValue). Fetch the row's identifiers, or the other properties through propertiesToFetch, to read past it")
                }
            }
            snapshots.append(DefaultSnapshot(persistentIdentifier: id, propertyNames: names, values: values))
        }
        try loadToMany(into: &snapshots, on: connection)
        return snapshots
    }

    /// Fills each snapshot's to-many relationships stored in other tables, in member order.
    private func loadToMany(into snapshots: inout [DefaultSnapshot], on connection: PostgresConnection) throws {
        guard !snapshots.isEmpty else { return }
        let keys = snapshots.map { $0.persistentIdentifier.primaryKey(as: Int64.self) ?? 0 }
        var rowOf: [Int64: Int] = [:]
        for (row, key) in keys.enumerated() { rowOf[key] = row }
        let position = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        for (slot, property) in table.properties.enumerated() {
            guard let index = position[table.propertyNames[slot]] else { continue }
            let sql: String
            let destination: String
            switch property {
            case .column, .crossStoreList:
                continue
            case .inverseColumn(let target, let column):
                destination = target
                let owner = SQLIdentifier.quote(column), key = SQLIdentifier.quote(RelationalSchemaMapping.primaryKey)
                sql = "SELECT \(owner), \(key) FROM \(store.writer.qualified(target)) WHERE \(owner) = ANY($1) ORDER BY \(key)"
            case .joinTable(let join, let owner, let member, let target):
                destination = target
                sql = "SELECT \(SQLIdentifier.quote(owner)), \(SQLIdentifier.quote(member)) FROM \(store.writer.qualified(join)) WHERE \(SQLIdentifier.quote(owner)) = ANY($1) ORDER BY \"_order\""
            }
            var binds = PostgresBindings()
            binds.append(keys)
            var lists = [[PersistentIdentifier]](repeating: [], count: keys.count)
            let template = try PersistentIdentifier.identifier(for: store.identifier, entityName: destination, primaryKey: 0)
            for row in try store.pool.query(sql, binds, on: connection) {
                let (owner, member) = try row.decode((Int64, Int64).self)
                guard let row = rowOf[owner] else { continue }
                lists[row].append(template.replacingPrimaryKey(member))
            }
            for row in snapshots.indices { snapshots[row][index: index] = .identifiers(lists[row]) }
        }
    }
}
