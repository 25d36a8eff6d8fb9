import Foundation
import StrataCore

extension SQLiteStore {
    /// The snapshots matching the request, filtered, sorted and windowed in SQL; for a lookup
    /// by identifier, the rows of those identifiers, in the requested order.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` for an entity
    ///   the store does not hold, ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   for what SQL cannot express, ``SQLiteStoreError``, or ``SwiftDataError/modelValidationFailure`` naming the row, the entity and the property of a value that cannot be of its property's kind.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try read { connection in try fetch(request, on: connection) }
    }

    private func fetch<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, on connection: SQLiteConnection
    ) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let (snapshots, related) = try rows(request, on: connection)
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots, relatedSnapshots: related.byIdentifier)
    }

    /// The snapshots ``fetch(_:)`` returns, with the related snapshots as read.
    private func rows<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, on connection: SQLiteConnection
    ) throws -> (snapshots: [DefaultSnapshot], related: RelatedSnapshots) {
        let table = try table(for: T.self)
        let (reader, selection) = reader(for: request, of: table)
        var related = RelatedSnapshots()
        if let identifiers = request.identifiers {
            let keys = table.keys(of: identifiers, storeIdentifier: identifier)
            var byKey: [Int64: DefaultSnapshot] = [:]
            for chunk in chunks(of: keys, on: connection) {
                let query = try compiler.lookup(entity: table.entityName, columns: selection, keys: chunk)
                for snapshot in try reader.read(query, on: connection, related: &related) {
                    if let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self) { byKey[key] = snapshot }
                }
            }
            return (keys.compactMap { byKey[$0] }, related)
        }
        let query = try selectQuery(request, of: table, selection: selection)
        return (try reader.read(query, on: connection, related: &related), related)
    }

    /// Hands each row's snapshot to `body` as it is stepped, when nothing is read after the
    /// rows; a lookup by identifier, or an entity with to-many relationships (loaded for all
    /// rows at once after them), is read whole first, as ``fetch(_:)`` reads it.
    ///
    /// - Throws: As ``fetch(_:)``, or the error `body` threw.
    public func fetch<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (DefaultSnapshot) throws -> Void
    ) throws -> [PersistentIdentifier: DefaultSnapshot] {
        try read { connection in try fetch(request, each: { try body($0) }, on: connection).byIdentifier }
    }

    /// As ``fetch(_:each:)``, with the external change count as of the fetch's read: the
    /// writer is asked only when the reading connection's data version moved since it last
    /// asked (see ``externalChangeCount(asOfLastReadOn:)``).
    ///
    /// - Throws: As ``fetch(_:each:)``.
    public func fetchWithExternalChangeCount<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (DefaultSnapshot) throws -> Void
    ) throws -> (relatedSnapshots: [PersistentIdentifier: DefaultSnapshot], externalChangeCount: Int64?) {
        let (related, count) = try fetchRelatedInOrder(request) { try body($0) }
        return (related.byIdentifier, count)
    }

    /// As ``fetchWithExternalChangeCount(_:each:)``, with the destinations of prefetched
    /// to-many relationships listed in the order their owners name them (see
    /// `RelatedSnapshots`): read by owner key, then by their own key.
    ///
    /// - Throws: As ``fetch(_:each:)``.
    package func fetchRelatedInOrder<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (inout DefaultSnapshot) throws -> Void
    ) throws -> (related: RelatedSnapshots, externalChangeCount: Int64?) {
        try read { connection in
            let related = try fetch(request, each: body, on: connection)
            return (related, externalChangeCount(asOfLastReadOn: connection))
        }
    }

    private func fetch<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (inout DefaultSnapshot) throws -> Void, on connection: SQLiteConnection
    ) throws -> RelatedSnapshots {
        let table = try table(for: T.self)
        guard request.identifiers == nil, !table.hasToManyProperties else {
            var (snapshots, related) = try rows(request, on: connection)
            // Each snapshot lent in place, in order: handed from a for-in loop, each was a copy
            // (a retain and a release of each of its arrays).
            for index in snapshots.indices { try body(&snapshots[index]) }
            return related
        }
        let (reader, selection) = reader(for: request, of: table)
        let query = try selectQuery(request, of: table, selection: selection)
        try reader.read(query, on: connection, each: body)
        return RelatedSnapshots()
    }

    /// The reader of `request`'s rows of `table` and the columns it selects: the key, then
    /// the columns of every property or of the properties the request asks for.
    private func reader<T: PersistentModel>(for request: DataStoreFetchRequest<T>, of table: SQLiteSchemaMapping.Table) -> (SnapshotReader, [String]) {
        let wanted = Set(request.propertyNamesToFetch)
        let columns = wanted.isEmpty ? table.columns : table.columns.filter { wanted.contains($0.name) }
        var reader = SnapshotReader(store: self, table: table, columns: columns, partial: !wanted.isEmpty, wanted: wanted)
        if wanted.isEmpty { reader.prefetching = prefetchedRelationships(of: table, request.descriptor.relationshipKeyPathsForPrefetching.asAnyKeyPaths) }
        let selection = wanted.isEmpty ? table.wholeRowSelection : [qualified(SQLiteSchemaMapping.primaryKey)] + columns.map { qualified($0.name) }
        return (reader, selection)
    }

    /// The `SELECT` of `request`'s filter, sort and window over `table`.
    private func selectQuery<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, of table: SQLiteSchemaMapping.Table, selection: [String]
    ) throws -> SQLiteQuery {
        try compiler.select(
            entity: table.entityName, columns: selection, filter: try request.filter, sort: try request.sortKeys,
            limit: request.descriptor.fetchLimit, offset: request.descriptor.fetchOffset)
    }

    /// The names of the to-many relationships of `table` that `keyPaths` prefetches and that
    /// the destination keeps as a to-one column: the reader loads their rows whole.
    private func prefetchedRelationships(of table: SQLiteSchemaMapping.Table, _ keyPaths: [AnyKeyPath]) -> Set<String> {
        guard !keyPaths.isEmpty, let entity = schema.entitiesByName[table.entityName] else { return [] }
        var names: Set<String> = []
        for (slot, property) in table.properties.enumerated() {
            guard case .inverseColumn = property, let relationship = entity.relationshipsByName[table.propertyNames[slot]],
                let keyPath = relationship.keypath, keyPaths.contains(keyPath)
            else { continue }
            names.insert(relationship.name)
        }
        return names
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
        _ = try deleteRows(request, of: try table(for: T.self), listing: false)
    }

    /// Deletes the rows the request selects, with their join rows and external files, and
    /// returns their identifiers, read in the delete's transaction.
    ///
    /// When every row goes and the table's keys run without a gap, no row is read to list them.
    /// - Throws: As ``delete(_:)``.
    public func deleteListing<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws -> [PersistentIdentifier] {
        let table = try table(for: T.self)
        let keys = try deleteRows(request, of: table, listing: true)
        let template = try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: 0)
        return keys.identifiers(from: template)
    }

    private func deleteRows<T: PersistentModel>(
        _ request: DataStoreBatchDeleteRequest<T>, of table: SQLiteSchemaMapping.Table, listing: Bool
    ) throws -> SaveWriter.DeletedKeys {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        let filter = try request.filter
        // The delete is the transaction's first change, so a reader sees what it deletes.
        func delete(readingCommittedKeys: Bool) throws -> (SaveWriter.DeletedKeys, SaveWriter) {
            var writer = SaveWriter(store: self)
            let committed: ((SQLiteSchemaMapping.Table) throws -> [Int64]?)? =
                readingCommittedKeys ? { table in try? self.committedKeys(of: table) } : nil
            let keys: SaveWriter.DeletedKeys = try write { connection in
                try connection.transaction {
                    let keys = try writer.deleteRows(of: table, .matching(filter), listing: listing, committedKeys: committed, on: connection)
                    _ = try writer.recordHistory(author: request.editingState.author, on: connection)
                    return keys
                }
            }
            return (keys, writer)
        }
        let (keys, writer): (SaveWriter.DeletedKeys, SaveWriter)
        do {
            (keys, writer) = try delete(readingCommittedKeys: readsBesideWrites)
        } catch is SaveWriter.CommittedKeysDisagree {
            (keys, writer) = try delete(readingCommittedKeys: false)
        }
        for reference in writer.filesToRemove { externalStorage?.remove(reference) }
        return keys
    }

    /// The keys of `table`'s rows as last committed, read on a reader connection while the
    /// writer's transaction is open; `nil` when the reader still holds an earlier read. (The
    /// caller deletes again the old way when the reader fails.)
    private func committedKeys(of table: SQLiteSchemaMapping.Table) throws -> [Int64]? {
        guard let sql = statements.table(table.entityName)?.keys else { return nil }
        return try read { connection in
            guard !connection.isReading else { return nil }
            let statement = try connection.cached(sql)
            defer { statement.reset() }
            var keys: [Int64] = []
            while try statement.step() { keys.append(statement.int64(0)) }
            return keys
        }
    }

    /// The SQL of the fetch and SQLite's query plan for it.
    ///
    /// - Throws: ``SQLiteStoreError`` when the plan cannot be read.
    public func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String {
        let table = try table(for: T.self)
        if let identifiers = request.identifiers {
            let keys = table.keys(of: identifiers, storeIdentifier: identifier)
            let query = try compiler.lookup(
                entity: table.entityName, columns: [qualified(SQLiteSchemaMapping.primaryKey)] + table.columns.map { qualified($0.name) },
                keys: keys.prefix(SQLiteQueryCompiler.lookupChunkSize))
            let plan = try read { connection in try SQLiteStatement.queryPlan(for: query.sql, bindings: query.bindings, on: connection) }
            return (["SQL: \(query.sql)", "lookup of \(keys.count) key(s) in chunks of at most \(SQLiteQueryCompiler.lookupChunkSize)"]
                + plan.map { "plan: \($0)" }).joined(separator: "\n")
        }
        // `try?` would read a fetch without a predicate (a `nil` filter) as one SQLite cannot express.
        let filter: FilterExpression?
        do { filter = try request.filter } catch { return "SQLite cannot express the filter; the core filters in memory" }
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
        if let table = tablesByType[ObjectIdentifier(T.self)] { return table }
        guard let table = mapping.tables[Schema.entityName(for: T.self)] else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the SQLite store \(path) holds no entity \(Schema.entityName(for: T.self))")
        }
        return table
    }

    func qualified(_ column: String) -> String { "t0." + SQLIdentifier.quote(column) }

    /// The keys of `identifiers` that have a row in `table`, in the requested order.
    ///
    /// - Throws: ``SQLiteStoreError``.
    func heldKeys(_ identifiers: [PersistentIdentifier], in table: SQLiteSchemaMapping.Table) throws -> [Int64] {
        let keys = table.keys(of: identifiers, storeIdentifier: identifier)
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
    /// The to-many relationships, by name, whose destination rows are read whole with their
    /// identifiers and handed back as related snapshots: those a fetch prefetches that the
    /// destination keeps as a to-one column. One query then loads both, where the core
    /// would otherwise look every destination up by key.
    var prefetching: Set<String> = []

    /// The snapshots of the rows `query` selects (their key first, then `columns`), with
    /// their to-many relationships; the destination rows of `prefetching` go into `related`.
    ///
    /// - Throws: ``SQLiteStoreError``, or ``SwiftDataError/modelValidationFailure`` naming the row, the entity and the property of a value that cannot be of its property's kind.
    func read(
        _ query: SQLiteQuery, on connection: SQLiteConnection, related: inout RelatedSnapshots
    ) throws -> [DefaultSnapshot] {
        let statement = try connection.cached(query.sql)
        try statement.bind(query.bindings)
        defer { statement.reset() }
        var snapshots = try rows(of: statement)
        try loadToMany(into: &snapshots, positions: partial ? positionsByName() : nil, related: &related, on: connection)
        return snapshots
    }

    /// Hands `body` the snapshot of each row `query` selects, as it is stepped.
    ///
    /// - Precondition: The table has no to-many relationship (see ``SQLiteSchemaMapping/Table/hasToManyProperties``):
    ///   their lists are loaded after the rows.
    /// - Throws: As ``read(_:on:related:)``, or the error `body` threw.
    func read(_ query: SQLiteQuery, on connection: SQLiteConnection, each body: (inout DefaultSnapshot) throws -> Void) throws {
        let statement = try connection.cached(query.sql)
        try statement.bind(query.bindings)
        defer { statement.reset() }
        var kept: [DefaultSnapshot]? = nil
        try forEachRow(of: statement, keeping: &kept, body)
    }

    /// Steps `statement` to its end, making each row's snapshot from its key in the first
    /// column and the values of `columns` after it.
    private func rows(of statement: SQLiteStatement) throws -> [DefaultSnapshot] {
        var kept: [DefaultSnapshot]? = []
        try forEachRow(of: statement, keeping: &kept) { _ in }
        return kept ?? []
    }

    /// Steps `statement` to its end, calling `body` with each row's snapshot, made from its
    /// key in the first column and the values of `columns` after it, or, when `kept` is an
    /// array, appending the snapshot to it instead.
    ///
    /// Appended here, each snapshot moves into the array: a closure that appended the one it
    /// was lent copied it (three retains and releases a row). `body` is lent one snapshot that
    /// each row reuses (``DefaultSnapshot/reuse(for:values:)``): a model takes its values
    /// without retaining them again, and the names are not retained and released per row.
    private func forEachRow(
        of statement: SQLiteStatement, keeping kept: inout [DefaultSnapshot]?,
        _ body: (inout DefaultSnapshot) throws -> Void
    ) throws {
        let names = partial ? partialNames() : table.propertyNames
        // Per column, once: how to decode it, and per position in a row, the column read into
        // it (`nil` leaves it null); the row loop then touches no strings or dictionaries. A
        // whole row's are the table's own, each column at its slot.
        let kinds = partial ? columns.map(\.kind) : table.columnKinds
        let external = partial ? columns.map(\.externalStorage) : table.columnsExternallyStored
        let count = names.count
        let columnAtPosition = partial ? partialColumnAtPosition(names) : table.columnAtSlot
        let identifier = store.identifier
        let template = try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: 0)
        // For each to-one column, an identifier of its destination: a key read is then put
        // into it, where decoding it looked the destination's identifier scope up (a lock and
        // the hash of two strings, about 400 instructions a row and relationship).
        // Made only for rows that have such a column: a plain loop, as `map` over the indices
        // cost a fetch of one row about 900 instructions.
        var destinations: [PersistentIdentifier?] = []
        if kinds.contains(.identifier) {
            destinations.reserveCapacity(kinds.count)
            for index in 0..<kinds.count {
                guard kinds[index] == .identifier, !external[index], let destination = columns[index].destination else {
                    destinations.append(nil)
                    continue
                }
                destinations.append(try? PersistentIdentifier.identifier(for: identifier, entityName: destination, primaryKey: 0))
            }
        }
        // The snapshot lent to `body`, each row's in turn.
        var handed = DefaultSnapshot(reusedFor: names, as: template)
        // Per position, the column read into it and how, in one buffer the row loop walks
        // in order (three arrays looked up by index cost a bounds check each per column). On
        // the stack: a fetch of one row (a lookup) would pay more for an array than it saves.
        try withUnsafeTemporaryAllocation(of: RowStep.self, capacity: count) { steps in
            for position in 0..<count {
                let step = steps.baseAddress! + position
                if let index = columnAtPosition[position] {
                    step.initialize(to: RowStep(column: 1 &+ Int32(truncatingIfNeeded: index), index: index, kind: kinds[index], isInline: !external[index]))
                } else {
                    step.initialize(to: RowStep(column: -1, index: 0, kind: .int, isInline: false))
                }
            }
            // One pass: each row becomes its snapshot as it is stepped, its values appended in
            // position order to an array reserved at the row's size. The standard library's
            // uninitialized-capacity initializer is not inlined and looked up the array's
            // storage class for every row; reserving is specialized (about 300 instructions less).
            // From the second row on, a row's values are found from its first column's, at the
            // spacing measured then (see `SQLiteStatement.columnValueSpacing()`); the first is
            // read a column at a time, so a fetch of one row (a lookup) measures nothing.
            var spacing: Int? = nil
            var rowsRead = 0
            while try statement.step() {
                if rowsRead == 1 { spacing = statement.columnValueSpacing() }
                rowsRead &+= 1
                let row = statement.cells(spacedBy: spacing)
                var values: [PersistentValue] = []
                values.reserveCapacity(count)
                for step in steps {
                    guard step.column >= 0 else {
                        values.append(.null)
                        continue
                    }
                    if step.isInline, let value = row.value(at: step.column, kind: step.kind) {
                        values.append(value)
                        continue
                    }
                    let index = step.index
                    if !destinations.isEmpty, let destination = destinations[index],
                        let value = row.identifier(at: step.column, as: destination)
                    {
                        values.append(value)
                        continue
                    }
                    var stored = statement.column(step.column)
                    if !step.isInline { stored = try store.resolvingExternalReference(stored) }
                    do {
                        values.append(
                            try SQLiteValueCodec.decode(
                                stored, kind: step.kind, destination: columns[index].destination,
                                storeIdentifier: identifier, table: table.tableName, column: columns[index].name))
                    } catch SQLiteStoreError.corruptValue {
                        throw Self.damaged(
                            row: template.replacingPrimaryKey(row.int64(0)), entity: table.entityName,
                            property: columns[index].name, stored: stored, kind: step.kind)
                    }
                }
                let id = template.replacingPrimaryKey(row.int64(0))
                if kept != nil {
                    kept!.append(DefaultSnapshot(persistentIdentifier: id, propertyNames: names, values: consume values))
                } else {
                    handed.reuse(for: id, values: consume values)
                    try body(&handed)
                }
            }
        }
    }

    /// How ``forEachRow(of:keeping:_:)`` reads one position of a row.
    private struct RowStep {
        /// The result column, or -1 for a position the row leaves null.
        let column: Int32
        /// The column's index in ``columns``.
        let index: Int
        /// The kind of value the column holds.
        let kind: PersistentValue.Kind
        /// Whether the column holds the value itself, not a reference to an external file.
        let isInline: Bool
    }

    /// The error for a column whose value cannot be a value of its property's kind: the
    /// same typed error the core gives for a value that does not fit the model, naming the row.
    private static func damaged(
        row: PersistentIdentifier, entity: String, property: String, stored: SQLiteValue, kind: PersistentValue.Kind
    ) -> SwiftDataError {
        let found: String
        switch stored {
        case .null: found = "NULL"
        case .integer: found = "an INTEGER"
        case .real: found = "a REAL"
        case .text: found = "a TEXT value that is not a \(kind.rawValue)"
        case .blob: found = "a BLOB"
        }
        return SwiftDataError.modelValidationFailure.with(
            details: "\(row) cannot be read: \(entity).\(property) holds \(found), but is \(kind.rawValue). Fetch the row's identifiers, or the other properties through propertiesToFetch, to read past it")
    }

    /// For each position of a partial row whose property names are `names` (the caller's
    /// ``partialNames()``), the index in ``columns`` of the column read into it.
    private func partialColumnAtPosition(_ names: [String]) -> [Int?] {
        let positions = Self.positions(of: names)
        var columnAtPosition = [Int?](repeating: nil, count: names.count)
        for (index, column) in columns.enumerated() {
            if let position = positions[column.name] { columnAtPosition[position] = index }
        }
        return columnAtPosition
    }

    private func positionsByName() -> [String: Int] {
        Self.positions(of: partialNames())
    }

    private static func positions(of names: [String]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
    }

    private func partialNames() -> [String] {
        table.propertyNames.filter { wanted.contains($0) }
    }

    /// `positions` maps names to positions in a partial row; `nil` for full rows, in slot order.
    private func loadToMany(
        into snapshots: inout [DefaultSnapshot], positions: [String: Int]?, related: inout RelatedSnapshots,
        on connection: SQLiteConnection
    ) throws {
        // Only entities with to-many relationships read anything more.
        guard !snapshots.isEmpty, table.hasToManyProperties else { return }
        let keys = snapshots.map { $0.persistentIdentifier.primaryKey(as: Int64.self) ?? 0 }
        let positions = positions ?? table.slotsByName
        let owners: OwnerRows
        do {
            owners = try OwnerRows(keys)
        } catch {
            // A primary key is unique unless the file's b-tree is damaged.
            throw SQLiteStoreError.sqlite(
                .corrupt, message: "the table \(table.tableName) returned the row \(error.key) twice; the database file is damaged",
                sql: nil, path: store.configuration.url.path)
        }
        for (slot, property) in table.properties.enumerated() {
            let name = table.propertyNames[slot]
            guard let position = positions[name] else { continue }
            let query: SQLiteQuery
            let destination: String
            switch property {
            case .column, .crossStoreList:
                continue
            case .inverseColumn(let target, let column):
                if prefetching.contains(name), let lists = try prefetch(target, through: column, owners: owners, related: &related, on: connection) {
                    for row in snapshots.indices { snapshots[row][index: position] = .identifiers(lists[row]) }
                    continue
                }
                destination = target
                query = store.compiler.inverseMembers(destination: target, column: column, keys: owners.keys)
            case .joinTable(let join, let owner, let member, let target):
                destination = target
                query = store.compiler.joinMembers(join: join, owner: owner, member: member, keys: owners.keys)
            }
            var lists = [[PersistentIdentifier]](repeating: [], count: keys.count)
            let template = try PersistentIdentifier.identifier(for: store.identifier, entityName: destination, primaryKey: 0)
            let statement = try connection.cached(query.sql)
            try statement.bind(query.bindings)
            while try statement.step() {
                guard let owner = statement.integer(0), let row = owners.row(of: owner) else { continue }
                lists[row].append(template.replacingPrimaryKey(statement.int64(1)))
            }
            statement.reset()
            for row in snapshots.indices { snapshots[row][index: position] = .identifiers(lists[row]) }
        }
    }

    /// Reads the whole rows of `target` whose to-one `column` holds the key of one of
    /// `owners`, in key order: their snapshots are listed in `related` in the order of their
    /// owners' keys, then their own (the order of the lists, for owners read in key order),
    /// and their identifiers are returned as each owner's list. `nil` when the store has no
    /// table for `target`, or `column` is not one of its to-one columns.
    private func prefetch(
        _ target: String, through column: String, owners: OwnerRows,
        related: inout RelatedSnapshots, on connection: SQLiteConnection
    ) throws -> [[PersistentIdentifier]]? {
        guard let destination = store.mapping.tables[target],
            let ownerSlot = destination.columns.first(where: { $0.name == column && $0.kind == .identifier })?.slot
        else { return nil }
        let reader = SnapshotReader(store: store, table: destination, columns: destination.columns, partial: false, wanted: [])
        let query = store.compiler.inverseRows(
            destination: target, column: column, columns: [SQLiteSchemaMapping.primaryKey] + destination.columns.map(\.name), keys: owners.keys)
        let statement = try connection.cached(query.sql)
        try statement.bind(query.bindings)
        defer { statement.reset() }
        var members = try reader.rows(of: statement)
        statement.reset()
        // Each member's owner row, -1 for none (half the memory of an array of optionals),
        // from the member's own to-one value: selecting the owner column a second time and
        // reading it as each row was stepped cost two calls into SQLite and an append per
        // member (about 215 instructions), and grew the array by doubling.
        let ownerOfMember = members.map { member in
            guard case .identifier(let owner) = member.values[ownerSlot], let key = owner.primaryKey(as: Int64.self) else { return -1 }
            return owners.row(of: key) ?? -1
        }
        try reader.loadToMany(into: &members, positions: nil, related: &related, on: connection)
        // Each list made at its size: grown by appending, an owner's list of three members
        // was allocated three times.
        var counts = [Int](repeating: 0, count: owners.count)
        var owned = 0
        for owner in ownerOfMember where owner >= 0 {
            counts[owner] += 1
            owned += 1
        }
        var lists = [[PersistentIdentifier]](repeating: [], count: owners.count)
        for (owner, count) in counts.enumerated() where count > 0 { lists[owner].reserveCapacity(count) }
        for (member, owner) in zip(members, ownerOfMember) where owner >= 0 { lists[owner].append(member.persistentIdentifier) }
        if related.listed.isEmpty && owned == members.count {
            // The first relationship's members, each with its owner (the usual case), are the
            // list as read: handed over, not copied (30,000 snapshots wrote 1.4 MB of fresh
            // pages, about 250 page faults, and retained each one's identifier and values).
            related.listed = members
        } else {
            related.listed.reserveCapacity(related.listed.count + owned)
            for (member, owner) in zip(members, ownerOfMember) where owner >= 0 { related.listed.append(member) }
        }
        return lists
    }
}

/// Where each owner of a to-many load sits among the snapshots it fills, by key.
///
/// Keys that run without a gap (``SQLiteQueryCompiler/OwnerKeys/run(_:)``) find their row in
/// an array, by their distance from the first key: a dictionary cost a hash for each owner
/// and again for each member row read back (1.1 M instructions of a prefetch of 6,000
/// members of 2,000 owners).
struct OwnerRows {
    /// The owners' keys, as the load's queries bind them.
    let keys: SQLiteQueryCompiler.OwnerKeys
    /// The number of owners.
    let count: Int
    /// For a run, each key's row, from the run's first key on.
    private var rowsInRun: [Int] = []
    /// For other keys, each key's row.
    private var rowsByKey: [Int64: Int] = [:]

    /// A key that repeats, which a table's primary keys never do unless its file is damaged.
    struct RepeatedKey: Error {
        let key: Int64
    }

    /// The rows of `keys`, in order.
    ///
    /// - Throws: ``RepeatedKey`` for a key that repeats.
    init(_ keys: [Int64]) throws(RepeatedKey) {
        self.keys = SQLiteQueryCompiler.OwnerKeys(keys)
        count = keys.count
        switch self.keys {
        case .run(let run):
            rowsInRun = [Int](repeating: -1, count: keys.count)
            for (row, key) in keys.enumerated() {
                let offset = Int(key &- run.lowerBound)
                // A run holds as many keys as it spans, so a repeated key leaves another out.
                guard rowsInRun[offset] < 0 else { throw RepeatedKey(key: key) }
                rowsInRun[offset] = row
            }
        case .list:
            rowsByKey.reserveCapacity(keys.count)
            for (row, key) in keys.enumerated() where rowsByKey.updateValue(row, forKey: key) != nil { throw RepeatedKey(key: key) }
        }
    }

    /// The row of the owner with `key`, `nil` for a key that is not an owner's.
    func row(of key: Int64) -> Int? {
        switch keys {
        case .run(let run):
            guard run.contains(key) else { return nil }
            return rowsInRun[Int(key &- run.lowerBound)]
        case .list:
            return rowsByKey[key]
        }
    }
}
