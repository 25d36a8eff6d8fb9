import Foundation
import StrataCore

extension SQLiteStore {
    /// Writes one save in one transaction: inserts (with new `_pk`s), updates, deletes and
    /// the join-table rows of to-many relationships. All of it commits or none does.
    ///
    /// An updated snapshot may list only the changed properties (``DataStorePartialUpdating``):
    /// its `UPDATE` sets only their columns, and only listed to-many relationships rewrite
    /// their join rows.
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store,
    ///   ``SwiftDataError/modelValidationFailure`` when an update or delete names a model
    ///   the store does not hold or a trigger skipped an inserted row,
    ///   ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` for a model of an
    ///   entity it does not hold, or ``SQLiteStoreError`` (for example a
    ///   UNIQUE index violation, ``SQLiteStoreError/ResultCode/constraint``); nothing is written then.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        if request.inserted.isEmpty && request.updated.isEmpty && request.deleted.isEmpty {
            return DataStoreSaveChangesResult(for: identifier)
        }
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        var writer = SaveWriter(store: self)
        let token: DefaultHistoryToken?
        do {
            token = try write { connection in
                try connection.transaction {
                    try writer.apply(inserted: request.inserted, updated: request.updated, deleted: request.deleted, on: connection)
                    return try writer.recordHistory(author: request.editingState.author, on: connection)
                }
            }
        } catch {
            for reference in writer.filesWritten { externalStorage?.remove(reference) }
            throw error
        }
        for reference in writer.filesToRemove { externalStorage?.remove(reference) }
        return DataStoreSaveChangesResult(for: identifier, request: request, insertedIdentifiers: writer.insertedIdentifiers, historyToken: token)
    }
}

/// The work of one save on the writer connection; statement text comes from ``SQLiteWriteStatements``.
struct SaveWriter {
    let store: SQLiteStore
    /// The permanent identifier of each insert, in the order of the save's inserts.
    private(set) var insertedIdentifiers: [PersistentIdentifier] = []
    /// The save's inserts, whose temporary identifiers pair with ``insertedIdentifiers`` in
    /// order: the array the request holds, not a copy of its identifiers (3.2 MB of fresh
    /// memory at 100,000 inserts, each page faulted in as it was first written).
    private var insertedSnapshots: [DefaultSnapshot] = []
    /// Temporary identifiers to permanent ones, made when a row first refers to an insert of
    /// this save (a relationship), and kept up to date from then on: a save of models
    /// without relationships never hashes an identifier.
    private var remapped: [PersistentIdentifier: PersistentIdentifier]?
    var filesWritten: [String] = []
    var filesToRemove: [String] = []
    private var fixups: [(table: SQLiteSchemaMapping.Table, key: Int64, column: Int, target: PersistentIdentifier)] = []
    /// Fixups found while binding an insert, before its `_pk` was known.
    private var pendingFixups: [(column: Int, target: PersistentIdentifier)] = []
    /// Prepared INSERTs by entity and UPDATEs by entity and column set, for this save: a save
    /// of many rows neither looks up nor re-hashes the SQL text per row.
    private var insertStatements: [String: SQLiteStatement] = [:]
    /// The table and insert statement of the last row written: a save's rows come in runs
    /// of one entity, and this spares a lookup by name per row.
    private var lastTable: SQLiteSchemaMapping.Table?
    private var lastInsert: (entityName: String, statement: SQLiteStatement)?
    private var updateStatements: [UpdateShape: SQLiteStatement] = [:]
    private var lastUpdate: (shape: UpdateShape, statement: SQLiteStatement)?
    /// Per UPDATE shape this save met, the statement that updates a chunk of rows, or `nil`
    /// for a shape that goes row by row (`SQLiteStore+RowChunks.swift`).
    var updateChunks: [UpdateShape: RowChunk?] = [:]
    /// Per entity this save inserted into, the statement that inserts a chunk of rows, or
    /// `nil` for an entity whose rows go one by one.
    var insertChunks: [String: RowChunk?] = [:]
    /// The save's changes, for its history row.
    private var history = HistoryRecorder()
    private let recordsHistory: Bool

    struct UpdateShape: Hashable {
        let entityName: String
        let columns: [Int]
    }

    init(store: SQLiteStore) {
        self.store = store
        recordsHistory = store.configuration.historyRetention.isEnabled
    }

    /// Writes the history row of the changes applied so far, inside the save's transaction.
    ///
    /// - Throws: ``SQLiteStoreError``; the transaction then rolls back.
    func recordHistory(author: String?, on connection: SQLiteConnection) throws -> DefaultHistoryToken? {
        try SQLiteHistory.record(
            history, author: author, storeIdentifier: store.identifier, retention: store.configuration.historyRetention, on: connection)
    }

    mutating func apply(
        inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot], on connection: SQLiteConnection
    ) throws {
        var joinWrites: [(SQLiteSchemaMapping.Table, Int64, SnapshotColumns)] = []
        insertedIdentifiers.reserveCapacity(insertedIdentifiers.count + inserted.count)
        if insertedSnapshots.isEmpty { insertedSnapshots = inserted } else { insertedSnapshots += inserted }
        try applyInserts(inserted, joinWrites: &joinWrites, on: connection)
        for fixup in fixups {
            guard let target = permanent(of: fixup.target), let targetKey = target.primaryKey(as: Int64.self) else { continue }
            let statement = try connection.cached(store.statements.update(fixup.table, columns: [fixup.column]))
            try statement.bind([.integer(targetKey), .integer(fixup.key)])
            try statement.run()
        }
        try applyUpdates(updated, joinWrites: &joinWrites, on: connection)
        for (table, key, listed) in joinWrites { try writeJoinRows(listed, table: table, key: key, on: connection) }
        // Deletes go a table at a time, in the order each table first appears.
        var deletes: [(table: SQLiteSchemaMapping.Table, keys: [Int64], seen: Set<Int64>)] = []
        for snapshot in deleted {
            let table = try table(of: snapshot)
            let key = try heldKey(of: snapshot)
            let index: Int
            if let existing = deletes.lastIndex(where: { $0.table.entityName == table.entityName }) {
                index = existing
            } else {
                deletes.append((table, [], []))
                index = deletes.count - 1
            }
            if deletes[index].seen.insert(key).inserted { deletes[index].keys.append(key) }
        }
        for (table, keys, _) in deletes { try deleteRows(of: table, .keys(keys), on: connection) }
    }

    /// Inserts the rows of `inserted`, runs of one entity a chunk at a time where they can
    /// go so; notes the join rows to write once every row has its key.
    private mutating func applyInserts(
        _ inserted: [DefaultSnapshot], joinWrites: inout [(SQLiteSchemaMapping.Table, Int64, SnapshotColumns)], on connection: SQLiteConnection
    ) throws {
        // Per run of rows of one table: its permanent identifiers' template, whether it has
        // join rows to write after every insert (a row's table and columns were kept for them),
        // and the statement for a chunk of its rows, if any.
        var current: (entityName: String, template: PersistentIdentifier, hasJoinRows: Bool, chunk: RowChunk?)?
        var insertListing: (entityName: String, names: [String], listing: SnapshotColumns.Listing)?
        var index = inserted.startIndex
        var noChunkBefore = index
        while index < inserted.endIndex {
            let snapshot = inserted[index]
            let table = try table(of: snapshot)
            if current?.entityName != table.entityName {
                current = (
                    table.entityName,
                    try PersistentIdentifier.identifier(for: store.identifier, entityName: table.entityName, primaryKey: 0),
                    table.hasJoinTables, try insertChunk(into: table, on: connection)
                )
            }
            // Inserts list every property, mostly in one shared array of names: the columns
            // they fill are worked out once per list, not once per row.
            if insertListing?.entityName != table.entityName || insertListing?.names != snapshot.propertyNames {
                insertListing = (table.entityName, snapshot.propertyNames, SnapshotColumns.Listing(snapshot.propertyNames, table: table))
            }
            // A run of rows of one entity goes a chunk at a time where it can.
            var keys: Range<Int64>?
            if index >= noChunkBefore, let chunk = current!.chunk {
                let run = sameShapeRun(of: inserted, from: index, upTo: chunk.rows)
                if run == chunk.rows {
                    keys = try insert(inserted[index..<(index + run)], into: table, listing: insertListing!.listing, chunk: chunk, on: connection)
                }
                if keys == nil { noChunkBefore = index + run }
            }
            // By position, not by element: binding each snapshot copied it (three retains and
            // releases a row) where a chunk's rows need none of it. What every row of the run
            // shares is read once: `current!.template` copied the whole tuple, and
            // `table.entityName` the name, for each row (about 100 instructions).
            let (template, hasJoinRows, entityName) = (current!.template, current!.hasJoinRows, table.entityName)
            if let keys, !hasJoinRows {
                // A chunk without join rows needs only its keys: its rows go into the history
                // as one run, and no row's columns are listed. Row by row, the empty listing
                // was destroyed and the history extended for each (about 250 instructions).
                for (offset, key) in keys.enumerated() {
                    let permanent = template.replacingPrimaryKey(key)
                    insertedIdentifiers.append(permanent)
                    remapped?[inserted[index + offset].persistentIdentifier] = permanent
                }
                if recordsHistory { history.insert(entityName, keys: keys) }
                index += keys.count
                continue
            }
            for offset in 0..<(keys?.count ?? 1) {
                let listed =
                    keys == nil || hasJoinRows
                    ? SnapshotColumns(inserted[index + offset], table: table, listing: insertListing!.listing) : nil
                let key = try keys.map { $0.lowerBound + Int64(offset) } ?? insert(listed!, into: table, on: connection)
                let permanent = template.replacingPrimaryKey(key)
                insertedIdentifiers.append(permanent)
                remapped?[inserted[index + offset].persistentIdentifier] = permanent
                if hasJoinRows { joinWrites.append((table, key, listed!)) }
                if recordsHistory { history.insert(entityName, key: key) }
            }
            index += keys?.count ?? 1
        }
    }

    /// Updates the rows of `updated`, runs that set the same columns a chunk at a time where
    /// they can go so; notes the join rows to rewrite.
    private mutating func applyUpdates(
        _ updated: [DefaultSnapshot], joinWrites: inout [(SQLiteSchemaMapping.Table, Int64, SnapshotColumns)], on connection: SQLiteConnection
    ) throws {
        // The columns a partial snapshot lists, worked out once per distinct list of names:
        // the updates of one save mostly change the same properties.
        // With them, the statement for a chunk of rows that set the same columns, if any.
        var listing: (entityName: String, names: [String], listing: SnapshotColumns.Listing, hasJoinRows: Bool, chunk: RowChunk?)?
        var index = updated.startIndex
        var noChunkBefore = index
        var chunkKeys: [Int64] = []  // the keys of the rows a chunk updated, in order
        while index < updated.endIndex {
            let snapshot = updated[index]
            let table = try table(of: snapshot)
            if listing?.entityName != table.entityName || listing?.names != snapshot.propertyNames {
                let columns = SnapshotColumns.Listing(snapshot.propertyNames, table: table)
                listing = (
                    table.entityName, snapshot.propertyNames, columns, table.hasJoinTables,
                    try updateChunk(columns: columns.columns, in: table, on: connection)
                )
            }
            // A run of rows that set the same columns goes a chunk at a time where it can.
            var rows = 1
            if index >= noChunkBefore, let chunk = listing!.chunk {
                let run = sameShapeRun(of: updated, from: index, upTo: chunk.rows)
                if run == chunk.rows {
                    try update(
                        updated[index..<(index + run)], in: table, listing: listing!.listing, chunk: chunk, keys: &chunkKeys,
                        on: connection)
                    rows = run
                } else {
                    noChunkBefore = index + run
                }
            }
            // Read in place, as in `run(_:of:…)`; what the rows share read once, as in `applyInserts`.
            let (hasJoinRows, entityName) = (listing!.hasJoinRows, table.entityName)
            if rows > 1, !hasJoinRows {
                // A chunk's rows list the same properties (`sameShapeRun`): recorded in one step.
                if recordsHistory { history.update(entityName, keys: chunkKeys[...], properties: updated[index].propertyNames) }
                index += rows
                continue
            }
            try updated.withUnsafeBufferPointer { updated in
                for position in index..<(index + rows) {
                    let key = rows == 1 ? try heldKey(of: updated[position]) : chunkKeys[position - index]
                    if rows == 1 || hasJoinRows {
                        let listed = SnapshotColumns(updated[position], table: table, listing: listing!.listing)
                        if rows == 1 { try update(listed, in: table, key: key, on: connection) }
                        if hasJoinRows { joinWrites.append((table, key, listed)) }
                    }
                    if recordsHistory { history.update(entityName, key: key, properties: updated[position].propertyNames) }
                }
            }
            index += rows
        }
    }

    /// The permanent identifier this save gave the insert with the temporary identifier `temporary`.
    private mutating func permanent(of temporary: PersistentIdentifier) -> PersistentIdentifier? {
        if remapped == nil {
            // The inserts written so far: `insertedIdentifiers` grows as they are.
            remapped = Dictionary(
                zip(insertedSnapshots.lazy.map(\.persistentIdentifier), insertedIdentifiers), uniquingKeysWith: { _, last in last })
        }
        return remapped![temporary]
    }

    private mutating func table(of snapshot: DefaultSnapshot) throws -> SQLiteSchemaMapping.Table {
        if let lastTable, lastTable.entityName == snapshot.persistentIdentifier.entityName { return lastTable }
        guard let table = store.mapping.tables[snapshot.persistentIdentifier.entityName] else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the SQLite store \(store.path) holds no entity \(snapshot.persistentIdentifier.entityName)")
        }
        lastTable = table
        return table
    }

    /// The `_pk` of a model this store gave an identifier to.
    func heldKey(of snapshot: DefaultSnapshot) throws -> Int64 {
        guard let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self, inStore: store.identifier) else {
            throw missingModel(snapshot.persistentIdentifier)
        }
        return key
    }

    /// The error of an insert that SQLite ran without writing every row.
    func skippedRows(_ written: Int, of count: Int, in table: SQLiteSchemaMapping.Table) -> SwiftDataError {
        SwiftDataError.modelValidationFailure.with(
            details: "the SQLite store \(store.path) wrote \(written) of \(count) new rows of \(table.entityName) (a trigger skipped rows); nothing was saved")
    }

    private func missingModel(_ id: PersistentIdentifier) -> SwiftDataError {
        SwiftDataError.modelValidationFailure.with(details: "the SQLite store \(store.path) holds no model \(id); nothing was saved")
    }

    /// Binds the values of `columns` (indices into `table.columns`) to the statement's
    /// parameters `?1`, `?2`, ..., then `trailingKey` (an UPDATE's `_pk`) after them, and runs
    /// the statement once. A reference to a model inserted later in this save is bound as NULL
    /// and fixed up once that model has a key.
    ///
    /// No array of values is built per row, and text is bound without SQLite's copy of it: each
    /// string's bytes are lent to SQLite while the closure that lends them is open, the next
    /// column is bound inside it, and the statement runs and forgets its bindings innermost,
    /// before any closure returns. SQLite's copy (a malloc and a memcpy) was the dearest part
    /// of binding a row.
    private mutating func bindAndRun(
        _ listed: SnapshotColumns, columns: [Int], table: SQLiteSchemaMapping.Table, key: Int64?, trailingKey: Int64?,
        statement: SQLiteStatement, from position: Int = 0, lent: Bool = false
    ) throws {
        guard position < columns.count else {
            if let trailingKey { try statement.bind(.integer(trailingKey), at: Int32(position + 1)) }
            defer { if lent { statement.clearBindings() } }
            try statement.run()
            return
        }
        let parameter = Int32(position + 1)
        func bindRest(lent: Bool) throws {
            try bindAndRun(
                listed, columns: columns, table: table, key: key, trailingKey: trailingKey, statement: statement, from: position + 1,
                lent: lent)
        }
        func lend(_ text: String) throws {
            var text = text
            try text.withUTF8 { bytes in
                try statement.bindLent(bytes, at: parameter)
                try bindRest(lent: true)
            }
        }
        // Strings and numbers, most of what rows hold, bind straight from the snapshot's value;
        // identifiers, data (which may go to external storage) and the rest go through `boundValue`.
        let value = listed.value(ofColumn: columns[position]) ?? .null
        if case .string(let text) = value { return try lend(text) }
        if try SQLiteValueCodec.bindNumeric(value, to: statement, at: parameter) { return try bindRest(lent: lent) }
        let bound = try boundValue(value, column: columns[position], table: table, key: key)
        if case .text(let text) = bound { return try lend(text) }
        try statement.bind(bound, at: parameter)
        try bindRest(lent: lent)
    }

    /// What `value`, listed for column `index`, is bound as.
    mutating func boundValue(_ value: PersistentValue, column index: Int, table: SQLiteSchemaMapping.Table, key: Int64?) throws -> SQLiteValue {
        if case .identifier(let target) = value, target.isTemporary {
            if let permanent = permanent(of: target) {
                return SQLiteValueCodec.encode(.identifier(permanent), storeIdentifier: store.identifier)
            }
            if let key { fixups.append((table, key, index, target)) } else { pendingFixups.append((index, target)) }
            return .null
        }
        if table.hasExternalStorage, table.columns[index].externalStorage, case .data(let bytes) = value, bytes.count >= ExternalStorage.threshold,
            let storage = store.externalStorage
        {
            let reference = try storage.store(bytes)
            filesWritten.append(reference)
            return .text(reference)
        }
        return SQLiteValueCodec.encode(value, storeIdentifier: store.identifier)
    }

    private mutating func insert(_ listed: SnapshotColumns, into table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> Int64 {
        pendingFixups = []
        // Every parameter is bound again below, so a reused statement is rewound without
        // clearing its bindings.
        let statement: SQLiteStatement
        if let lastInsert, lastInsert.entityName == table.entityName {
            lastInsert.statement.rewind()
            statement = lastInsert.statement
        } else if let cached = insertStatements[table.entityName] {
            cached.rewind()
            statement = cached
        } else {
            statement = try connection.cached(try statements(of: table).insert)
            insertStatements[table.entityName] = statement
        }
        lastInsert = (table.entityName, statement)
        try bindAndRun(listed, columns: table.everyColumn, table: table, key: nil, trailingKey: nil, statement: statement)
        // A trigger may skip the row (`RAISE(IGNORE)`); the last rowid would then be another row's.
        guard connection.changes > 0 else { throw skippedRows(0, of: 1, in: table) }
        let key = connection.lastInsertRowID
        for pending in pendingFixups { fixups.append((table, key, pending.column, pending.target)) }
        pendingFixups = []
        return key
    }

    /// Sets the listed columns of row `key`; a row that does not exist throws.
    mutating func update(_ listed: SnapshotColumns, in table: SQLiteSchemaMapping.Table, key: Int64, on connection: SQLiteConnection) throws {
        let columns = listed.columns
        guard !columns.isEmpty else {
            // Nothing of the row itself changed (only to-many relationships, or nothing): it must still exist.
            let statement = try connection.cached(try statements(of: table).exists)
            try statement.bind([.integer(key)])
            defer { statement.reset() }
            guard try statement.step() else { throw missingModel(listed.snapshot.persistentIdentifier) }
            return
        }
        try collectExternalFiles(of: key, in: table, columns: columns, on: connection)
        // Every parameter is bound again below, so a reused statement is rewound without
        // clearing its bindings.
        let statement: SQLiteStatement
        if let lastUpdate, lastUpdate.shape.entityName == table.entityName, lastUpdate.shape.columns == columns {
            // The updates of a save mostly change the same columns: compared, not hashed.
            lastUpdate.statement.rewind()
            statement = lastUpdate.statement
        } else {
            let shape = UpdateShape(entityName: table.entityName, columns: columns)
            if let cached = updateStatements[shape] {
                cached.rewind()
                statement = cached
            } else {
                statement = try connection.cached(store.statements.update(table, columns: columns))
                updateStatements[shape] = statement
            }
            lastUpdate = (shape, statement)
        }
        try bindAndRun(listed, columns: columns, table: table, key: key, trailingKey: key, statement: statement)
        guard connection.changes > 0 else { throw missingModel(listed.snapshot.persistentIdentifier) }
    }

    /// The keys of the rows a delete removed: every key of a range when they ran without a
    /// gap (no array of them is made), or the keys read one by one.
    enum DeletedKeys {
        /// Every key from the lowest to the highest.
        case range(ClosedRange<Int64>)
        /// These keys, in the order they were read or listed.
        case list([Int64])

        /// No key.
        static let none = DeletedKeys.list([])

        /// Calls `body` with each key, in order.
        func forEach(_ body: (Int64) throws -> Void) rethrows {
            switch self {
            case .range(let keys): for key in keys { try body(key) }
            case .list(let keys): for key in keys { try body(key) }
            }
        }

        /// The identifiers of the keys, in the order they were listed, made from `template`
        /// (an identifier of the table's entity) straight into the array's storage.
        func identifiers(from template: PersistentIdentifier) -> [PersistentIdentifier] {
            switch self {
            case .range(let keys): template.replacingPrimaryKeys(keys)
            case .list(let keys): template.replacingPrimaryKeys(keys)
            }
        }
    }

    /// The keys another connection read as committed were not the rows a delete removed;
    /// the caller rolls the transaction back and deletes again, reading the keys first.
    struct CommittedKeysDisagree: Error {}

    /// Which rows of a table a delete removes.
    enum DeletedRows {
        /// The rows a filter selects; every row for `nil`.
        case matching(FilterExpression?)
        /// The rows of these keys, each listed once; every one must exist.
        case keys([Int64])
    }

    /// Deletes rows of `table` with their join rows and external files, in one statement per
    /// table rather than one per row, and returns the keys of the deleted rows when it read
    /// them.
    ///
    /// The keys of the deleted rows are read first, with their `.preserveValueOnDeletion`
    /// and external-storage columns, when the history, the external files or `listing` need
    /// them or a listed key must be checked; history records the deletes in the order of the
    /// listed keys. When every row goes and only the keys are needed, a table whose keys run
    /// without a gap is not read at all: its lowest and highest key tell them, with the count
    /// of rows the delete removed when `committedKeys` is given, or else the row count read
    /// first (from the b-tree's pages, not its rows). When the keys have gaps, they come from
    /// `committedKeys` after the delete, or are read before it.
    ///
    /// - Parameter committedKeys: Reads the keys of a table's rows as last committed, apart
    ///   from this transaction (on another connection), or returns `nil` when it cannot. Give
    ///   it only when this transaction changed nothing before this delete, so that what was
    ///   committed is what the delete saw.
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the filter has no SQL form,
    ///   ``SwiftDataError/modelValidationFailure`` when a listed key has no row,
    ///   ``CommittedKeysDisagree`` when `committedKeys` did not list what the delete removed
    ///   (the caller rolls back and deletes again without it), or ``SQLiteStoreError``; the
    ///   caller's transaction then rolls back.
    @discardableResult
    mutating func deleteRows(
        of table: SQLiteSchemaMapping.Table, _ rows: DeletedRows, listing: Bool = false,
        committedKeys: ((SQLiteSchemaMapping.Table) throws -> [Int64]?)? = nil, on connection: SQLiteConnection
    ) throws -> DeletedKeys {
        let preserved = recordsHistory ? store.preservedColumns[table.entityName] ?? [] : []
        let external = store.externalStorage == nil ? [] : table.columns.filter(\.externalStorage)
        let selection: SQLiteQuery
        let delete: SQLiteQuery
        let listed: [Int64]?
        var deleted: [Int64] = []
        switch rows {
        case .matching(let filter):
            selection = try store.compiler.keys(entity: table.entityName, filter: filter)
            delete = try store.compiler.delete(entity: table.entityName, filter: filter)
            listed = nil
        case .keys(let keys):
            guard !keys.isEmpty else { return .none }
            selection = store.compiler.keys(keys)
            delete = try store.compiler.delete(entity: table.entityName, within: selection)
            listed = keys
        }
        /// The keys with the preserved and external-storage columns of the rows `rows` selects,
        /// built only when the rows are read.
        func select() throws -> SQLiteQuery {
            let columns = ([SQLiteSchemaMapping.primaryKey] + (preserved + external).map(\.name)).map(store.qualified)
            return switch rows {
            case .matching(let filter):
                try store.compiler.select(entity: table.entityName, columns: columns, filter: filter, sort: [], limit: nil, offset: nil)
            case .keys: try store.compiler.select(entity: table.entityName, columns: columns, within: selection)
            }
        }
        if case .matching(nil) = rows, recordsHistory || listing, preserved.isEmpty, external.isEmpty, let committedKeys {
            // Delete first, then tell from the count removed whether the keys had a gap.
            let bounds = try keyRange(of: table, on: connection)
            try remove(table, selection: selection, delete: delete, on: connection)
            let removed = connection.changes
            let keys: DeletedKeys
            if let bounds, bounds.isEveryKey(of: Int64(removed)) {
                keys = .range(bounds)
            } else if bounds == nil, removed == 0 {
                keys = .none
            } else if let listed = try committedKeys(table), listed.count == removed, listed.min() == bounds?.lowerBound,
                listed.max() == bounds?.upperBound
            {
                keys = .list(listed)
            } else {
                throw CommittedKeysDisagree()
            }
            if recordsHistory {
                keys.forEach { history.delete(table.entityName, key: $0, tombstone: [:]) }
            }
            return keys
        } else if case .matching(nil) = rows, recordsHistory || listing, preserved.isEmpty, external.isEmpty,
            let keys = try gaplessKeys(of: table, on: connection)
        {
            if recordsHistory {
                for key in keys { history.delete(table.entityName, key: key, tombstone: [:]) }
            }
            try remove(table, selection: selection, delete: delete, on: connection)
            return .range(keys)
        } else if recordsHistory || listing || !external.isEmpty || listed != nil {
            let select = try select()
            let statement = try connection.prepare(select.sql)
            try statement.bind(select.bindings)
            var tombstones: [Int64: [String: PersistentValue]] = [:]
            while try statement.step() {
                let key = statement.int64(0)
                let tombstone = recordsHistory ? try tombstone(preserved, in: table, from: statement, at: 1) : [:]
                if listed == nil {
                    if recordsHistory { history.delete(table.entityName, key: key, tombstone: tombstone) }
                    deleted.append(key)
                } else {
                    tombstones[key] = tombstone
                }
                for index in external.indices {
                    if case .text(let reference) = statement.column(Int32(1 + preserved.count + index)),
                        reference.hasPrefix(ExternalStorage.referencePrefix)
                    {
                        filesToRemove.append(reference)
                    }
                }
            }
            if let listed {
                for key in listed {
                    guard let tombstone = tombstones[key] else {
                        throw missingModel(try PersistentIdentifier.identifier(for: store.identifier, entityName: table.entityName, primaryKey: key))
                    }
                    if recordsHistory { history.delete(table.entityName, key: key, tombstone: tombstone) }
                }
                deleted = listed
            }
        }
        try remove(table, selection: selection, delete: delete, on: connection)
        return .list(deleted)
    }

    /// Clears the join rows of the rows `selection` selects, then runs `delete`.
    private func remove(
        _ table: SQLiteSchemaMapping.Table, selection: SQLiteQuery, delete: SQLiteQuery, on connection: SQLiteConnection
    ) throws {
        for property in table.properties {
            guard case .joinTable(let name, let owner, _, _) = property, let join = store.statements.joinSide(name, owner: owner) else { continue }
            let query = SQLiteQuery(sql: join.clearOwners + "(") + selection + ")"
            let statement = try connection.prepare(query.sql)
            try statement.bind(query.bindings)
            try statement.run()
        }
        let statement = try connection.prepare(delete.sql)
        try statement.bind(delete.bindings)
        try statement.run()
    }

    /// The keys of every row of `table` when they run without a gap, `nil` when they do
    /// not or there is no row: the lowest and highest key (each one step down the b-tree)
    /// and the row count (SQLite counts the cells of each page of the smallest index,
    /// without reading rows).
    private func gaplessKeys(of table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> ClosedRange<Int64>? {
        guard let sql = store.statements.table(table.entityName)?.keyBounds else { return nil }
        let statement = try connection.cached(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let count = statement.int64(2)
        let lowest = statement.int64(0)
        let highest = statement.int64(1)
        guard highest >= lowest, (lowest...highest).isEveryKey(of: count) else { return nil }
        return lowest...highest
    }

    /// The lowest and highest key of `table`, each one step down the b-tree; `nil` when it has no row.
    private func keyRange(of table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> ClosedRange<Int64>? {
        let statement = try connection.cached(try statements(of: table).keyRange)
        defer { statement.reset() }
        guard try statement.step(), case .integer(let lowest) = statement.column(0), case .integer(let highest) = statement.column(1),
            highest >= lowest
        else { return nil }
        return lowest...highest
    }

    /// The values of `columns`, read from the current row of `statement` starting at column `first`.
    private func tombstone(
        _ columns: [SQLiteSchemaMapping.Column], in table: SQLiteSchemaMapping.Table, from statement: SQLiteStatement, at first: Int
    ) throws -> [String: PersistentValue] {
        var values: [String: PersistentValue] = [:]
        for (index, column) in columns.enumerated() {
            var stored = statement.column(Int32(first + index))
            if column.externalStorage { stored = try store.resolvingExternalReference(stored) }
            values[column.name] = try SQLiteValueCodec.decode(
                stored, kind: column.kind, destination: column.destination, storeIdentifier: store.identifier, table: table.tableName,
                column: column.name)
        }
        return values
    }

    /// Notes the external files that `columns` of row `key` refer to now, to remove after the commit.
    private mutating func collectExternalFiles(
        of key: Int64, in table: SQLiteSchemaMapping.Table, columns: [Int], on connection: SQLiteConnection
    ) throws {
        guard table.hasExternalStorage, store.externalStorage != nil, columns.contains(where: { table.columns[$0].externalStorage }) else { return }
        let sql = try statements(of: table).selectExternal
        for index in columns {
            guard let select = sql[table.columns[index].name] else { continue }
            let statement = try connection.cached(select)
            try statement.bind([.integer(key)])
            defer { statement.reset() }
            if try statement.step(), case .text(let reference) = statement.column(0), reference.hasPrefix(ExternalStorage.referencePrefix) {
                filesToRemove.append(reference)
            }
        }
    }

    /// Rewrites the join rows of the to-many relationships the snapshot lists.
    private mutating func writeJoinRows(_ listed: SnapshotColumns, table: SQLiteSchemaMapping.Table, key: Int64, on connection: SQLiteConnection) throws {
        for (slot, property) in table.properties.enumerated() {
            guard case .joinTable(let name, let owner, _, _) = property,
                case .identifiers(let ids) = listed.value(ofProperty: slot),
                let join = store.statements.joinSide(name, owner: owner)
            else { continue }
            let clear = try connection.cached(join.clear)
            try clear.bind([.integer(key)])
            try clear.run()
            let insert = try connection.cached(join.insert)
            for id in ids {
                let target = permanent(of: id) ?? id
                guard let memberKey = target.primaryKey(as: Int64.self, inStore: store.identifier) else { continue }
                insert.reset()
                try insert.bind([.integer(key), .integer(memberKey)])
                try insert.run()
            }
        }
    }

    func statements(of table: SQLiteSchemaMapping.Table) throws -> SQLiteWriteStatements.Table {
        guard let statements = store.statements.table(table.entityName) else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the SQLite store \(store.path) holds no entity \(table.entityName)")
        }
        return statements
    }
}

extension ClosedRange<Int64> {
    /// Whether `count` distinct keys between these bounds are every key of them, compared
    /// without overflow (the bounds may span more keys than an `Int64` counts).
    func isEveryKey(of count: Int64) -> Bool {
        count > 0 && upperBound.subtractingReportingOverflow(lowerBound) == (count - 1, false)
    }
}
