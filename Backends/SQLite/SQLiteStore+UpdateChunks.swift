internal import CSQLite
import StrataCore

// A run of updates that set the same columns goes as one statement per chunk of rows,
// `UPDATE … FROM (VALUES …)`, rather than one statement per row.
//
// A statement run once per row costs SQLite over a thousand instructions beside the row's
// own work: its halt frees the registers that held the row's record, and the next run
// allocates them again. A chunk of rows pays that once. Only plain attribute columns go in
// chunks: an identifier column is a foreign key and a unique column is checked by an index,
// and either may refuse one row of many (SQLite then keeps a statement journal to undo the
// rows before it); an externally stored column writes and removes files row by row.
extension SaveWriter {
    /// The statement that updates `rows` rows of one shape at once.
    struct UpdateChunk {
        let statement: SQLiteStatement
        let rows: Int
    }

    /// The most rows one chunk updates.
    static let updateChunkRows = 128

    /// The fewest rows a chunk is made for, when the parameter limit allows no more.
    static let fewestUpdateChunkRows = 16

    /// `UPDATE … FROM` came with SQLite 3.33.0.
    static let sqliteUpdatesFrom = sqlite3_libversion_number() >= 3_033_000

    /// The chunk statement that sets `columns` of `table`, or `nil` when rows setting them
    /// go one by one. Made once per shape and save.
    mutating func updateChunk(columns: [Int], in table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> UpdateChunk? {
        guard Self.sqliteUpdatesFrom, !columns.isEmpty else { return nil }
        let shape = UpdateShape(entityName: table.entityName, columns: columns)
        if let known = updateChunks[shape] { return known }
        let unique = Set(table.uniqueConstraints.joined())
        let plain = columns.allSatisfy { index in
            let column = table.columns[index]
            return column.kind != .identifier && !column.externalStorage && !unique.contains(column.name)
        }
        let rows = min(Self.updateChunkRows, connection.variableLimit / (columns.count + 1))
        var chunk: UpdateChunk?
        if plain, rows >= Self.fewestUpdateChunkRows {
            chunk = UpdateChunk(statement: try connection.cached(store.statements.batchUpdate(table, columns: columns, rows: rows)), rows: rows)
        }
        updateChunks[shape] = chunk
        return chunk
    }

    /// How many of the snapshots from `start` on, at most `limit`, list the same properties
    /// of the same entity as the first.
    func sameShapeRun(of snapshots: [DefaultSnapshot], from start: Int, upTo limit: Int) -> Int {
        let first = snapshots[start]
        let end = min(snapshots.count, start + limit)
        var index = start + 1
        while index < end, snapshots[index].propertyNames == first.propertyNames,
            snapshots[index].persistentIdentifier.entityName == first.persistentIdentifier.entityName
        {
            index += 1
        }
        return index - start
    }

    /// Updates the rows of `snapshots`, which all list the same properties, with one run of
    /// `chunk`'s statement.
    ///
    /// Text is bound without SQLite's copy: the chunk's strings are copied into one buffer,
    /// lent while the statement runs. When fewer rows changed than were listed (a row that
    /// does not exist), or a constraint refused the statement (SQLite undid all of it), the
    /// rows go again one by one, which names the row at fault.
    mutating func update(
        _ snapshots: ArraySlice<DefaultSnapshot>, in table: SQLiteSchemaMapping.Table, listing: SnapshotColumns.Listing, chunk: UpdateChunk,
        on connection: SQLiteConnection
    ) throws {
        let statement = chunk.statement
        statement.rewind()
        var text: [UInt8] = []
        var lent: [(parameter: Int32, range: Range<Int>)] = []
        func lend(_ string: String, at parameter: Int32) {
            var string = string
            let start = text.count
            string.withUTF8 { text.append(contentsOf: $0) }
            lent.append((parameter, start..<text.count))
        }
        var parameter: Int32 = 1
        for snapshot in snapshots {
            let key = try heldKey(of: snapshot)
            try statement.bind(.integer(key), at: parameter)
            parameter += 1
            let listed = SnapshotColumns(snapshot, table: table, listing: listing)
            for column in listing.columns {
                let value = listed.value(ofColumn: column) ?? .null
                if case .string(let string) = value {
                    lend(string, at: parameter)
                } else if try !SQLiteValueCodec.bindNumeric(value, to: statement, at: parameter) {
                    let bound = try boundValue(value, column: column, table: table, key: key)
                    if case .text(let string) = bound { lend(string, at: parameter) } else { try statement.bind(bound, at: parameter) }
                }
                parameter += 1
            }
        }
        let changed: Int
        do {
            changed = try text.withUnsafeBufferPointer { bytes in
                defer { statement.clearBindings() }
                for (parameter, range) in lent { try statement.bindLent(UnsafeBufferPointer(rebasing: bytes[range]), at: parameter) }
                try statement.run()
                return connection.changes
            }
        } catch let error where SQLiteStoreError.ResultCode.constraint ~= error {
            changed = -1
        }
        guard changed != snapshots.count else { return }
        for snapshot in snapshots {
            try update(SnapshotColumns(snapshot, table: table, listing: listing), in: table, key: try heldKey(of: snapshot), on: connection)
        }
    }
}
