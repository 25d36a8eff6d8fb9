internal import CSQLite
import StrataCore

// A run of inserts into one table, or of updates that set the same columns, goes as one
// statement per chunk of rows (`INSERT … VALUES (…), (…)`, `UPDATE … FROM (VALUES …)`)
// rather than one statement per row.
//
// A statement run once per row costs SQLite about 1,500 instructions beside the row's own
// work: its halt frees the registers that held the row's record, and the next run
// allocates them again. A chunk of rows pays that once. Chunks hold only rows that no
// constraint can refuse, so that SQLite keeps no statement journal to undo a chunk midway
// (one spilled to a temporary file, a write per page, made chunked inserts slower than rows
// one by one): plain attribute columns of a table without triggers. An identifier column is
// a foreign key, a unique column is checked by an index, a trigger may refuse or skip a row,
// and an externally stored column writes and removes files row by row.
extension SaveWriter {
    /// A statement that writes `rows` rows at once.
    struct RowChunk {
        let statement: SQLiteStatement
        let rows: Int
    }

    /// The most rows one chunk writes.
    static let chunkRows = 128

    /// The fewest rows a chunk is made for, when the parameter limit allows no more.
    static let fewestChunkRows = 16

    /// `UPDATE … FROM` came with SQLite 3.33.0.
    static let sqliteUpdatesFrom = sqlite3_libversion_number() >= 3_033_000

    /// The chunk statement that sets `columns` of `table`, or `nil` when rows setting them
    /// go one by one. Made once per shape and save.
    mutating func updateChunk(columns: [Int], in table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> RowChunk? {
        guard Self.sqliteUpdatesFrom, !columns.isEmpty else { return nil }
        let shape = UpdateShape(entityName: table.entityName, columns: columns)
        if let known = updateChunks[shape] { return known }
        let chunk = try rowChunk(columns: columns, in: table, on: connection) { rows in
            store.statements.batchUpdate(table, columns: columns, rows: rows)
        }
        updateChunks[shape] = chunk
        return chunk
    }

    /// The chunk statement that inserts rows into `table`, or `nil` when its rows go one by
    /// one. Made once per table and save.
    mutating func insertChunk(into table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> RowChunk? {
        if let known = insertChunks[table.entityName] { return known }
        var chunk: RowChunk?
        if table.uniqueConstraints.isEmpty, !table.columns.isEmpty {
            chunk = try rowChunk(columns: table.everyColumn, in: table, on: connection) { rows in store.statements.batchInsert(table, rows: rows) }
        }
        insertChunks[table.entityName] = chunk
        return chunk
    }

    /// A chunk statement of `sql(rows)` when `columns` are all plain attribute columns of a
    /// table without triggers.
    private func rowChunk(
        columns: [Int], in table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection, sql: (Int) -> String
    ) throws -> RowChunk? {
        let unique = Set(table.uniqueConstraints.joined())
        let plain = columns.allSatisfy { index in
            let column = table.columns[index]
            return column.kind != .identifier && !column.externalStorage && !unique.contains(column.name)
        }
        let rows = min(Self.chunkRows, connection.variableLimit / (columns.count + 1))
        guard plain, rows >= Self.fewestChunkRows else { return nil }
        let triggers = try connection.cached(SQLiteWriteStatements.hasTriggers)
        defer { triggers.reset() }
        try triggers.bind([.text(table.tableName)])
        guard try !triggers.step() else { return nil }
        return RowChunk(statement: try connection.cached(sql(rows)), rows: rows)
    }

    /// How many of the snapshots from `start` on, at most `limit`, list the same properties
    /// of the same entity as the first.
    func sameShapeRun(of snapshots: [DefaultSnapshot], from start: Int, upTo limit: Int) -> Int {
        // Read in place: a field read through the array's subscript copied the whole
        // snapshot first, three retains and releases a row.
        snapshots.withUnsafeBufferPointer { buffer in
            let end = min(buffer.count, start + limit)
            var index = start + 1
            while index < end, buffer[index].propertyNames == buffer[start].propertyNames,
                buffer[index].persistentIdentifier.isOfSameEntity(as: buffer[start].persistentIdentifier)
            {
                index += 1
            }
            return index - start
        }
    }

    /// Inserts the rows of `snapshots`, which all list the same properties, with one run of
    /// `chunk`'s statement, and returns their keys: SQLite gives each row one more than the
    /// table's highest key, as it gives a row inserted alone. `nil`, with nothing written,
    /// when the keys would pass the largest (SQLite then picks keys at random); the rows then
    /// go one by one.
    ///
    /// - Throws: ``SQLiteStoreError``, or ``SwiftDataError/modelValidationFailure`` when the
    ///   rows did not get the keys after the highest.
    mutating func insert(
        _ snapshots: ArraySlice<DefaultSnapshot>, into table: SQLiteSchemaMapping.Table, listing: SnapshotColumns.Listing, chunk: RowChunk,
        on connection: SQLiteConnection
    ) throws -> Range<Int64>? {
        let highest = try connection.cached(try statements(of: table).highestKey)
        defer { highest.reset() }
        let last = try highest.step() ? highest.int64(0) : 0
        guard last < Int64.max - Int64(snapshots.count) else { return nil }
        let keys = (last + 1)..<(last + 1 + Int64(snapshots.count))
        var heldKeys: [Int64] = []  // an insert's rows hold none yet
        let changed = try run(
            chunk, of: snapshots, columns: table.everyColumn, in: table, listing: listing, newKeys: keys, heldKeys: &heldKeys, on: connection)
        guard changed == snapshots.count, connection.lastInsertRowID == keys.upperBound - 1 else {
            throw skippedRows(changed, of: snapshots.count, in: table)
        }
        return keys
    }

    /// Updates the rows of `snapshots`, which all list the same properties, with one run of
    /// `chunk`'s statement, and puts their keys in `keys`, in order (the caller's history and
    /// join rows need them, and reading a key from its identifier costs about 120
    /// instructions). When fewer rows changed than were listed (a row that does not exist),
    /// the rows go again one by one, which names the row at fault.
    mutating func update(
        _ snapshots: ArraySlice<DefaultSnapshot>, in table: SQLiteSchemaMapping.Table, listing: SnapshotColumns.Listing, chunk: RowChunk,
        keys: inout [Int64], on connection: SQLiteConnection
    ) throws {
        keys.removeAll(keepingCapacity: true)
        let changed = try run(
            chunk, of: snapshots, columns: listing.columns, in: table, listing: listing, newKeys: nil, heldKeys: &keys, on: connection)
        guard changed != snapshots.count else { return }
        for snapshot in snapshots {
            try update(SnapshotColumns(snapshot, table: table, listing: listing), in: table, key: try heldKey(of: snapshot), on: connection)
        }
    }

    /// Binds each snapshot's values of `columns`, after its key for an update (appended to
    /// `heldKeys`), and runs `chunk` once; returns how many rows SQLite changed. An insert's
    /// rows are bound with the keys `newKeys` SQLite will give them, for what refers to them.
    ///
    /// Each column's value is read at its position in the snapshots, worked out once per
    /// chunk. Text is bound without SQLite's copy: the chunk's strings are copied into one
    /// buffer, lent while the statement runs.
    private mutating func run(
        _ chunk: RowChunk, of snapshots: ArraySlice<DefaultSnapshot>, columns: [Int], in table: SQLiteSchemaMapping.Table,
        listing: SnapshotColumns.Listing, newKeys: Range<Int64>?, heldKeys: inout [Int64], on connection: SQLiteConnection
    ) throws -> Int {
        let statement = chunk.statement
        statement.rewind()
        let positions = columns.map { listing.positions[table.columnSlots[$0]] }
        var text = LentText()
        var parameter: Int32 = 1
        // The snapshots read in place, as in `sameShapeRun`.
        try snapshots.withUnsafeBufferPointer { snapshots in
            for index in snapshots.indices {
                let key: Int64
                if let newKeys {
                    key = newKeys.lowerBound + Int64(index)
                } else {
                    key = try heldKey(of: snapshots[index])
                    heldKeys.append(key)
                    try statement.bind(.integer(key), at: parameter)
                    parameter += 1
                }
                // Each value read where the snapshot keeps it: copied out, each was copied
                // and destroyed and each string retained and released twice (about 65
                // instructions a row of the benchmarks' trips).
                for (column, position) in zip(columns, positions) {
                    if let position {
                        if case .string(let string) = snapshots[index].values[position] {
                            text.append(string, at: parameter)
                        } else {
                            let value = snapshots[index].values[position]
                            if try !SQLiteValueCodec.bindNumeric(value, to: statement, at: parameter) {
                                let bound = try boundValue(value, column: column, table: table, key: key)
                                if case .text(let string) = bound { text.append(string, at: parameter) } else { try statement.bind(bound, at: parameter) }
                            }
                        }
                    } else {
                        try statement.bind(.null, at: parameter)  // a column the row does not list
                    }
                    parameter += 1
                }
            }
        }
        return try text.bytes.withUnsafeBufferPointer { bytes in
            defer { statement.clearBindings() }
            for (parameter, range) in text.parameters { try statement.bindLent(UnsafeBufferPointer(rebasing: bytes[range]), at: parameter) }
            try statement.run()
            return connection.changes
        }
    }
}

/// The UTF-8 bytes of a chunk's strings in one buffer, and the parameter each goes to.
private struct LentText {
    var bytes: [UInt8] = []
    var parameters: [(parameter: Int32, range: Range<Int>)] = []

    @inline(__always)
    mutating func append(_ string: String, at parameter: Int32) {
        let start = bytes.count
        // Read in place; only a string bridged from elsewhere has no contiguous UTF-8.
        if string.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: string.utf8)
        }
        parameters.append((parameter, start..<bytes.count))
    }
}
