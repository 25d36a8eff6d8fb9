import Foundation
import StrataCore

extension SQLiteStore {
    /// The snapshots matching the request, filtered, sorted and windowed in SQL; for a lookup
    /// by identifier, the rows of those identifiers, in the requested order.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` for an entity
    ///   the store does not hold, ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   for what SQL cannot express, ``SQLiteStoreError``, or ``SQLiteStoreError/corruptValue(table:column:expected:)``.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let table = try table(for: T.self)
        let wanted = Set(request.propertyNamesToFetch)
        let columns = wanted.isEmpty ? table.columns : table.columns.filter { wanted.contains($0.name) }
        let reader = SnapshotReader(store: self, table: table, columns: columns, partial: !wanted.isEmpty, wanted: wanted)
        if let identifiers = request.identifiers {
            let keys = requestedKeys(identifiers, in: table)
            let snapshots = try read { connection in
                var byKey: [Int64: DefaultSnapshot] = [:]
                for chunk in chunks(of: keys, on: connection) {
                    let query = try compiler.lookup(
                        entity: table.entityName, columns: [qualified(SQLiteSchemaMapping.primaryKey)] + columns.map { qualified($0.name) },
                        keys: chunk)
                    for snapshot in try reader.read(query, on: connection) {
                        if let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self) { byKey[key] = snapshot }
                    }
                }
                return keys.compactMap { byKey[$0] }
            }
            return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
        }
        let filter = try request.filter
        let sort = try request.sortKeys
        let query = try compiler.select(
            entity: table.entityName,
            columns: [qualified(SQLiteSchemaMapping.primaryKey)] + columns.map { qualified($0.name) },
            filter: filter, sort: sort, limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
        let snapshots = try read { connection in try reader.read(query, on: connection) }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    /// The number of rows matching the request.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        let table = try table(for: T.self)
        if let identifiers = request.identifiers { return try heldKeys(identifiers, in: table).count }
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
        if let identifiers = request.identifiers {
            return try heldKeys(identifiers, in: table).map {
                try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: $0)
            }
        }
        let query = try compiler.identifiers(
            entity: table.entityName, filter: try request.filter, sort: try request.sortKeys,
            limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
        return try read { connection in
            let statement = try connection.cached(query.sql)
            try statement.bind(query.bindings)
            defer { statement.reset() }
            let template = try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: 0)
            var identifiers: [PersistentIdentifier] = []
            while try statement.step() { identifiers.append(template.replacingPrimaryKey(statement.int64(0))) }
            return identifiers
        }
    }

    /// Deletes the rows the request selects, with their join rows and external files.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no SQL form,
    ///   ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store, or ``SQLiteStoreError``.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let table = try table(for: T.self)
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        let filter = try request.filter
        var writer = SaveWriter(store: self)
        try write { connection in
            try connection.transaction {
                try writer.deleteRows(of: table, matching: filter, on: connection)
                _ = try writer.recordHistory(author: request.editingState.author, on: connection)
            }
        }
        for reference in writer.filesToRemove { externalStorage?.remove(reference) }
    }

    /// The SQL of the fetch and SQLite's query plan for it.
    ///
    /// - Throws: ``SQLiteStoreError`` when the plan cannot be read.
    public func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String {
        let table = try table(for: T.self)
        if let identifiers = request.identifiers {
            let keys = requestedKeys(identifiers, in: table)
            let query = try compiler.lookup(
                entity: table.entityName, columns: [qualified(SQLiteSchemaMapping.primaryKey)] + table.columns.map { qualified($0.name) },
                keys: keys.prefix(SQLiteQueryCompiler.lookupChunkSize))
            let plan = try read { connection in try SQLiteStatement.queryPlan(for: query.sql, bindings: query.bindings, on: connection) }
            return (["SQL: \(query.sql)", "lookup of \(keys.count) key(s) in chunks of at most \(SQLiteQueryCompiler.lookupChunkSize)"]
                + plan.map { "plan: \($0)" }).joined(separator: "\n")
        }
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

    /// The keys of `identifiers` that can name rows of `table` (this store's, of this entity), each once, in order.
    func requestedKeys(_ identifiers: [PersistentIdentifier], in table: SQLiteSchemaMapping.Table) -> [Int64] {
        var seen = Set<Int64>()
        return identifiers.compactMap { id in
            guard id.storeIdentifier == identifier, id.entityName == table.entityName, let key = id.primaryKey(as: Int64.self),
                seen.insert(key).inserted
            else { return nil }
            return key
        }
    }

    /// The keys of `identifiers` that have a row in `table`, in the requested order.
    ///
    /// - Throws: ``SQLiteStoreError``.
    func heldKeys(_ identifiers: [PersistentIdentifier], in table: SQLiteSchemaMapping.Table) throws -> [Int64] {
        let keys = requestedKeys(identifiers, in: table)
        guard !keys.isEmpty else { return [] }
        let held = try read { connection in
            var held = Set<Int64>()
            for chunk in chunks(of: keys, on: connection) {
                let query = try compiler.lookup(entity: table.entityName, columns: [qualified(SQLiteSchemaMapping.primaryKey)], keys: chunk)
                let statement = try connection.cached(query.sql)
                try statement.bind(query.bindings)
                defer { statement.reset() }
                while try statement.step() { held.insert(statement.int64(0)) }
            }
            return held
        }
        return keys.filter { held.contains($0) }
    }

    /// `keys` cut into slices that fit one lookup statement on `connection`.
    func chunks(of keys: [Int64], on connection: SQLiteConnection) -> [ArraySlice<Int64>] {
        var size = SQLiteQueryCompiler.lookupChunkSize
        while size > 1 && size > connection.variableLimit { size /= 2 }
        return keys.chunks(of: size)
    }
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
        let names = partial ? partialNames() : table.propertyNames
        // Per column, once: where its value goes and how to decode it; the row loop then
        // touches no strings or dictionaries. A full row puts each column at its slot.
        let positions = partial ? Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) }) : [:]
        let columnPositions = partial ? columns.map { positions[$0.name] } : columns.map { Optional($0.slot) }
        let kinds = columns.map(\.kind)
        let external = columns.map(\.externalStorage)
        let identifier = store.identifier
        let template = try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: 0)
        let count = names.count
        var snapshots: [DefaultSnapshot] = []
        // One pass: each row becomes its snapshot as it is stepped, its values written into
        // a new buffer in place (copying a template row cost more than the row's own reads).
        while try statement.step() {
            let values = try [PersistentValue](unsafeUninitializedCapacity: count) { buffer, initialized in
                for slot in 0..<count { buffer.initializeElement(at: slot, to: .null) }
                initialized = count
                for index in columnPositions.indices {
                    guard let position = columnPositions[index] else { continue }
                    let column = Int32(index + 1)
                    if !external[index], let value = statement.value(at: column, kind: kinds[index]) {
                        buffer[position] = value
                        continue
                    }
                    var stored = statement.column(column)
                    if external[index] { stored = try store.resolvingExternalReference(stored) }
                    buffer[position] = try SQLiteValueCodec.decode(
                        stored, kind: kinds[index], destination: columns[index].destination,
                        storeIdentifier: identifier, table: table.tableName, column: columns[index].name)
                }
            }
            snapshots.append(DefaultSnapshot(persistentIdentifier: template.replacingPrimaryKey(statement.int64(0)), propertyNames: names, values: values))
        }
        try loadToMany(into: &snapshots, positions: partial ? positions : nil, on: connection)
        return snapshots
    }

    private func partialNames() -> [String] {
        table.propertyNames.filter { wanted.contains($0) }
    }

    /// `positions` maps names to positions in a partial row; `nil` for full rows, in slot order.
    private func loadToMany(into snapshots: inout [DefaultSnapshot], positions: [String: Int]?, on connection: SQLiteConnection) throws {
        // Only entities with to-many relationships read anything more.
        guard !snapshots.isEmpty, table.properties.contains(where: { if case .column = $0 { false } else if case .crossStoreList = $0 { false } else { true } })
        else { return }
        let keys = snapshots.map { $0.persistentIdentifier.primaryKey(as: Int64.self) ?? 0 }
        let positions = positions ?? table.slotsByName
        let rowOf = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let keyList = "[" + keys.map(String.init).joined(separator: ",") + "]"
        for (slot, property) in table.properties.enumerated() {
            let name = table.propertyNames[slot]
            guard let position = positions[name] else { continue }
            let query: SQLiteQuery
            let destination: String
            switch property {
            case .column, .crossStoreList:
                continue
            case .inverseColumn(let target, let column):
                destination = target
                query = store.compiler.inverseMembers(destination: target, column: column, keys: keyList)
            case .joinTable(let join, let owner, let member, let target):
                destination = target
                query = store.compiler.joinMembers(join: join, owner: owner, member: member, keys: keyList)
            }
            var lists = [[PersistentIdentifier]](repeating: [], count: keys.count)
            let template = try PersistentIdentifier.identifier(for: store.identifier, entityName: destination, primaryKey: 0)
            let statement = try connection.cached(query.sql)
            try statement.bind(query.bindings)
            while try statement.step() {
                guard let row = rowOf[statement.int64(0)] else { continue }
                lists[row].append(template.replacingPrimaryKey(statement.int64(1)))
            }
            statement.reset()
            for row in snapshots.indices { snapshots[row][index: position] = .identifiers(lists[row]) }
        }
    }
}
