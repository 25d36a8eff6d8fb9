import Foundation
import StrataCore

/// The history table: one row per save, written in the save's own transaction, so a save
/// and its history commit together or not at all.
///
/// ```sql
/// CREATE TABLE "_strata_history" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "timestamp" REAL NOT NULL,
///   "author" TEXT, "author_key" TEXT, "bundle" TEXT NOT NULL, "process" TEXT NOT NULL, "changes" TEXT NOT NULL)
/// ```
/// `AUTOINCREMENT` keeps identifiers from being reused after a prune, so a token always
/// names one point in time. `timestamp` is seconds since 2001 (`Date`'s reference date);
/// `author_key` is the author in Unicode normalization form C, so comparing it compares
/// authors by canonical equivalence, as Swift compares strings; `changes` is the runs'
/// compact JSON (`HistoryRecord.encode`). The metadata table's `historyHorizon` is the
/// highest identifier ever deleted: a token before it has expired.
enum SQLiteHistory {
    static let table = "_strata_history"
    static let horizonKey = "historyHorizon"

    /// The statements that create the history table and its index, when missing.
    static let createStatements = [
        """
        CREATE TABLE IF NOT EXISTS "\(table)" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "timestamp" REAL NOT NULL, \
        "author" TEXT, "author_key" TEXT, "bundle" TEXT NOT NULL, "process" TEXT NOT NULL, "changes" TEXT NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS \"\(table)_author\" ON \"\(table)\" (\"author_key\")",
    ]

    static let insert =
        "INSERT INTO \"\(table)\" (\"timestamp\", \"author\", \"author_key\", \"bundle\", \"process\", \"changes\") VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    private static let columns = "\"id\", \"timestamp\", \"author\", \"bundle\", \"process\", \"changes\""

    /// Writes the history row of a save on `connection`, inside the save's transaction, and
    /// prunes what `retention` no longer keeps; returns the new transaction's token.
    ///
    /// - Throws: ``SQLiteStoreError`` or an encoding error; the caller's transaction rolls back.
    static func record(
        _ recorder: HistoryRecorder, author: String?, storeIdentifier: String, retention: HistoryRetention, on connection: SQLiteConnection
    ) throws -> DefaultHistoryToken? {
        guard retention.isEnabled, !recorder.runs.isEmpty else { return nil }
        let now = Date()
        let statement = try connection.cached(insert)
        try statement.bind([
            .real(now.timeIntervalSinceReferenceDate), author.map { .text($0) } ?? .null,
            author.map { .text($0.precomposedStringWithCanonicalMapping) } ?? .null,
            .text(HistoryRecord.currentProcess.bundle), .text(HistoryRecord.currentProcess.process),
            .text(try HistoryRecord.encode(recorder.runs)),
        ])
        try statement.run()
        let id = connection.lastInsertRowID
        try prune(retention, newest: id, now: now, on: connection)
        return DefaultHistoryToken(tokenValue: [storeIdentifier: id])
    }

    /// Deletes the rows older than `retention`'s window.
    private static func prune(_ retention: HistoryRetention, newest: Int64, now: Date, on connection: SQLiteConnection) throws {
        var conditions: [String] = []
        var bindings: [SQLiteValue] = []
        if let limit = retention.maximumTransactions {
            // The `limit` newest rows are kept: everything up to the one just before them goes.
            conditions.append("\"id\" <= (SELECT \"id\" FROM \"\(table)\" ORDER BY \"id\" DESC LIMIT 1 OFFSET ?\(bindings.count + 1))")
            bindings.append(.integer(Int64(limit)))
        }
        if let oldest = retention.oldestKept(now: now) {
            conditions.append("(\"timestamp\" < ?\(bindings.count + 1) AND \"id\" < ?\(bindings.count + 2))")
            bindings += [.real(oldest.timeIntervalSinceReferenceDate), .integer(newest)]
        }
        guard !conditions.isEmpty else { return }
        try delete(where: conditions.joined(separator: " OR "), bindings: bindings, on: connection)
    }

    /// Deletes the rows `condition` selects and moves the horizon past them.
    private static func delete(where condition: String, bindings: [SQLiteValue], on connection: SQLiteConnection) throws {
        let highest = try connection.cached("SELECT max(\"id\") FROM \"\(table)\" WHERE \(condition)")
        try highest.bind(bindings)
        defer { highest.reset() }
        guard try highest.step(), case .integer(let doomed) = highest.column(0) else { return }
        highest.reset()
        let delete = try connection.cached("DELETE FROM \"\(table)\" WHERE \(condition)")
        try delete.bind(bindings)
        try delete.run()
        try raiseHorizon(to: doomed, on: connection)
    }

    /// Records that every transaction up to `id` may be gone.
    static func raiseHorizon(to id: Int64, on connection: SQLiteConnection) throws {
        let current = try horizon(on: connection)
        guard id > current else { return }
        let statement = try connection.cached(SQLiteWriteStatements.upsertMetadata)
        try statement.bind([.text(horizonKey), .text(String(id))])
        try statement.run()
    }

    /// The highest transaction identifier ever deleted; 0 when none was.
    static func horizon(on connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.cached("SELECT \"value\" FROM \(SQLIdentifier.quote(SQLiteSchemaWriter.metadataTable)) WHERE \"key\" = ?1")
        try statement.bind([.text(horizonKey)])
        defer { statement.reset() }
        guard try statement.step(), case .text(let text) = statement.column(0) else { return 0 }
        return Int64(text) ?? 0
    }

    /// Whether the database has a history table (a read-only store of an older file may not).
    static func exists(on connection: SQLiteConnection) throws -> Bool {
        try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '\(table)'") == "1"
    }

    /// The rows the descriptor's filter selects, as records, with the horizon read in the
    /// same snapshot of the database.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired``, or ``SQLiteStoreError`` when a row cannot be read.
    static func records(
        _ translation: HistoryFilter.Translation, storeIdentifier: String, limit: UInt64?, checksExpiry: Bool, on connection: SQLiteConnection
    ) throws -> [HistoryRecord] {
        guard try exists(on: connection) else { return [] }
        if checksExpiry {
            // One read transaction: the horizon and the rows come from the same snapshot.
            try connection.execute("BEGIN")
            defer { try? connection.execute("COMMIT") }
            try HistoryQuery.checkExpiry(translation, storeIdentifier: storeIdentifier, horizon: try horizon(on: connection))
            return try rows(translation, storeIdentifier: storeIdentifier, limit: limit, on: connection)
        }
        return try rows(translation, storeIdentifier: storeIdentifier, limit: limit, on: connection)
    }

    private static func rows(
        _ translation: HistoryFilter.Translation, storeIdentifier: String, limit: UInt64?, on connection: SQLiteConnection
    ) throws -> [HistoryRecord] {
        let filter = translation.filter.resolved(for: storeIdentifier)
        guard !filter.selectsNothing else { return [] }
        var bindings: [SQLiteValue] = []
        var sql = "SELECT \(columns) FROM \"\(table)\" WHERE \(compile(filter, &bindings)) ORDER BY \"timestamp\", \"id\""
        if let limit {
            sql += " LIMIT ?\(bindings.count + 1)"
            bindings.append(.integer(Int64(clamping: limit)))
        }
        let statement = try connection.prepare(sql)
        try statement.bind(bindings)
        var records: [HistoryRecord] = []
        while try statement.step() {
            records.append(try record(statement, storeIdentifier: storeIdentifier))
        }
        return records
    }

    private static func record(_ row: SQLiteStatement, storeIdentifier: String) throws -> HistoryRecord {
        let id = row.int64(0)
        func text(_ index: Int32) -> String? {
            if case .text(let value) = row.column(index) { return value }
            return nil
        }
        guard case .real(let seconds) = row.column(1), let changes = text(5) else {
            throw SQLiteStoreError.corruptValue(table: table, column: "changes", expected: "a history row")
        }
        let runs: [HistoryRecord.Run]
        do {
            runs = try HistoryRecord.decodeRuns(changes)
        } catch {
            throw SQLiteStoreError.corruptValue(table: table, column: "changes", expected: "history changes (transaction \(id))")
        }
        return HistoryRecord(
            transactionIdentifier: id, timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: text(2),
            storeIdentifier: storeIdentifier, bundleIdentifier: text(3) ?? "", processIdentifier: text(4) ?? "", runs: runs)
    }

    /// Deletes the transactions with `identifiers` and moves the horizon past them.
    static func delete(_ identifiers: [Int64], on connection: SQLiteConnection) throws {
        guard let highest = identifiers.max() else { return }
        let statement = try connection.cached("DELETE FROM \"\(table)\" WHERE \"id\" = ?1")
        for id in identifiers {
            statement.reset()
            try statement.bind([.integer(id)])
            try statement.run()
        }
        try raiseHorizon(to: highest, on: connection)
    }

    /// Deletes every row, for erasing; identifiers go on from where they were, so every
    /// token from before expires.
    static func deleteAll(on connection: SQLiteConnection) throws {
        guard try exists(on: connection) else { return }
        let highest = try connection.scalarText("SELECT seq FROM sqlite_sequence WHERE name = '\(table)'").flatMap { Int64($0) } ?? 0
        try connection.execute("DELETE FROM \"\(table)\"")
        try raiseHorizon(to: highest, on: connection)
    }

    /// `filter` as a SQL condition on the history table, its constants appended to `bindings`.
    static func compile(_ filter: HistoryFilter, _ bindings: inout [SQLiteValue]) -> String {
        switch filter {
        case .everything: return "1"
        case .nothing: return "0"
        case .and(let lhs, let rhs): return "(\(compile(lhs, &bindings)) AND \(compile(rhs, &bindings)))"
        case .or(let lhs, let rhs): return "(\(compile(lhs, &bindings)) OR \(compile(rhs, &bindings)))"
        case .not(let inner): return "(NOT \(compile(inner, &bindings)))"
        case .token: return "1"  // never reached: `resolved(for:)` turns token comparisons into identifier ones
        case .compare(let field, let op, let value):
            let column: String
            let bound: SQLiteValue
            switch (field, value) {
            case (.transactionIdentifier, .int(let id)): (column, bound) = ("\"id\"", .integer(id))
            case (.timestamp, .date(let date)): (column, bound) = ("\"timestamp\"", .real(date.timeIntervalSinceReferenceDate))
            case (.author, .string(let author)): (column, bound) = ("\"author_key\"", .text(author.precomposedStringWithCanonicalMapping))
            case (.author, .null): return op == .equal ? "(\"author\" IS NULL)" : op == .notEqual ? "(\"author\" IS NOT NULL)" : "0"
            default: return "1"  // never reached: the translator pairs each field with its kind of value
            }
            bindings.append(bound)
            let placeholder = "?\(bindings.count)"
            switch op {
            case .equal: return "(\(column) IS \(placeholder))"
            case .notEqual: return "(\(column) IS NOT \(placeholder))"
            case .less: return "(\(column) < \(placeholder))"
            case .lessOrEqual: return "(\(column) <= \(placeholder))"
            case .greater: return "(\(column) > \(placeholder))"
            case .greaterOrEqual: return "(\(column) >= \(placeholder))"
            }
        }
    }
}

extension SQLiteStore {
    /// The transactions `descriptor` selects: token, identifier, timestamp and author
    /// conditions run in SQL; the rest of the predicate, the sort and the limit run on the rows read.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the descriptor asks after a token
    ///   older than what was deleted, the predicate's evaluation error, or ``SQLiteStoreError``.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try selectHistory(descriptor, checksExpiry: true).map { $0.transaction(schema: schema) }
    }

    /// Deletes the transactions `descriptor` selects; a token before the newest deleted one
    /// expires.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store, the
    ///   predicate's evaluation error, or ``SQLiteStoreError``.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        let translation = HistoryFilter.superset(of: descriptor.predicate)
        try write { connection in
            try connection.transaction {
                let candidates = try SQLiteHistory.records(
                    translation, storeIdentifier: identifier, limit: nil, checksExpiry: false, on: connection)
                let doomed = try HistoryQuery.select(descriptor, from: candidates, schema: schema, isExact: translation.isExact)
                try SQLiteHistory.delete(doomed.map(\.transactionIdentifier), on: connection)
            }
        }
    }

    private func selectHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, checksExpiry: Bool) throws -> [HistoryRecord] {
        let translation = HistoryFilter.superset(of: descriptor.predicate)
        let pushesLimit = translation.isExact && descriptor.sortBy.isEmpty && descriptor.fetchLimit > 0
        let records = try read { connection in
            try SQLiteHistory.records(
                translation, storeIdentifier: identifier, limit: pushesLimit ? descriptor.fetchLimit : nil, checksExpiry: checksExpiry,
                on: connection)
        }
        return try HistoryQuery.select(descriptor, from: records, schema: schema, isExact: translation.isExact)
    }
}
