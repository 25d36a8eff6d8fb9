import Foundation
import PostgresNIO
import StrataCore

/// The history table: one row per save, written in the save's own transaction, so a save and
/// its history commit together or not at all.
///
/// ```sql
/// CREATE TABLE "_strata_history" ("id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
///   "timestamp" double precision NOT NULL, "author" text, "author_key" text,
///   "bundle" text NOT NULL, "process" text NOT NULL, "changes" text NOT NULL)
/// ```
/// Identifiers are never reused, so a token always names one point in time. Several
/// processes save at once, and a token is "every transaction up to this identifier": so
/// that no transaction commits with an identifier below one already visible, a save takes a
/// transaction-level advisory lock before it draws its identifier and holds it until it
/// commits. Saves therefore run side by side until their last statements, which take turns.
/// `timestamp` is seconds since 2001; `author_key` is the author in Unicode normalization
/// form C, so comparing it compares authors as Swift compares strings; `changes` is the runs'
/// compact JSON (`HistoryRecord.encode`). The metadata table's `historyHorizon` is the highest
/// identifier ever deleted: a token before it has expired.
struct PostgresHistory {
    static let table = "_strata_history"
    static let horizonKey = "historyHorizon"

    let store: PostgresStore

    private var pool: PostgresConnectionPool { store.pool }
    private var qualifiedTable: String { store.writer.qualified(Self.table) }

    /// The statements that create the history table and its index, when missing.
    static func createStatements(_ writer: PostgresSchemaWriter) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS \(writer.qualified(table)) ("id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
            "timestamp" double precision NOT NULL, "author" text, "author_key" text, "bundle" text NOT NULL, \
            "process" text NOT NULL, "changes" text NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS \(SQLIdentifier.quote(PostgresSchemaWriter.indexName(table, "author"))) ON \(writer.qualified(table)) (\"author_key\")",
        ]
    }

    /// Writes the history row of a save inside its transaction, and prunes what the
    /// configuration's retention no longer keeps; returns the new transaction's token.
    ///
    /// - Throws: ``PostgresStoreError`` or an encoding error; the caller's transaction rolls back.
    func record(_ recorder: HistoryRecorder, author: String?, on connection: PostgresConnection) throws -> DefaultHistoryToken? {
        let retention = store.configuration.historyRetention
        guard retention.isEnabled, !recorder.runs.isEmpty else { return nil }
        var lock = PostgresBindings()
        lock.append("strata-history:" + store.configuration.databaseSchema)
        try pool.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", lock, on: connection)
        let now = Date()
        var binds = PostgresBindings()
        binds.append(now.timeIntervalSinceReferenceDate)
        binds.append(author.map(PostgresStrings.encode))
        binds.append(author.map { PostgresStrings.encode($0.precomposedStringWithCanonicalMapping) })
        binds.append(HistoryRecord.currentProcess.bundle)
        binds.append(HistoryRecord.currentProcess.process)
        binds.append(try HistoryRecord.encode(recorder.runs))
        let sql = "INSERT INTO \(qualifiedTable) (\"timestamp\", \"author\", \"author_key\", \"bundle\", \"process\", \"changes\") VALUES ($1, $2, $3, $4, $5, $6) RETURNING \"id\""
        guard let row = try pool.query(sql, binds, on: connection).first else {
            throw PostgresStoreError.server(location: store.location, sqlState: "?", message: "the history INSERT returned no identifier", sql: sql)
        }
        let id = try row.decode(Int64.self)
        try prune(retention, newest: id, now: now, on: connection)
        return DefaultHistoryToken(tokenValue: [store.identifier: id])
    }

    /// Deletes the rows older than `retention`'s window.
    private func prune(_ retention: HistoryRetention, newest: Int64, now: Date, on connection: PostgresConnection) throws {
        var conditions: [String] = []
        var binds = PostgresBindings()
        if let limit = retention.maximumTransactions {
            binds.append(Int64(limit))
            conditions.append("\"id\" <= (SELECT \"id\" FROM \(qualifiedTable) ORDER BY \"id\" DESC LIMIT 1 OFFSET $\(binds.count))")
        }
        if let oldest = retention.oldestKept(now: now) {
            binds.append(oldest.timeIntervalSinceReferenceDate)
            binds.append(newest)
            conditions.append("(\"timestamp\" < $\(binds.count - 1) AND \"id\" < $\(binds.count))")
        }
        guard !conditions.isEmpty else { return }
        let deleted = try pool.query(
            "DELETE FROM \(qualifiedTable) WHERE \(conditions.joined(separator: " OR ")) RETURNING \"id\"", binds, on: connection)
        if let highest = try deleted.map({ try $0.decode(Int64.self) }).max() { try raiseHorizon(to: highest, on: connection) }
    }

    /// Records that every transaction up to `id` may be gone.
    func raiseHorizon(to id: Int64, on connection: PostgresConnection) throws {
        guard id > (try horizon(on: connection)) else { return }
        var binds = PostgresBindings()
        binds.append(Self.horizonKey)
        binds.append(String(id))
        try pool.execute(
            "INSERT INTO \(store.writer.qualified(PostgresSchemaWriter.metadataTable)) (\"key\", \"value\") VALUES ($1, $2) ON CONFLICT (\"key\") DO UPDATE SET \"value\" = EXCLUDED.\"value\"",
            binds, on: connection)
    }

    /// The highest transaction identifier ever deleted; 0 when none was.
    func horizon(on connection: PostgresConnection) throws -> Int64 {
        var binds = PostgresBindings()
        binds.append(Self.horizonKey)
        let rows = try pool.query(
            "SELECT \"value\" FROM \(store.writer.qualified(PostgresSchemaWriter.metadataTable)) WHERE \"key\" = $1", binds, on: connection)
        return try rows.first.flatMap { Int64(try $0.decode(String.self)) } ?? 0
    }

    /// The rows the descriptor's filter selects, as records, with the horizon read in the same
    /// snapshot of the database when `checksExpiry`.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired``, or ``PostgresStoreError`` when a row cannot be read.
    func records(_ translation: HistoryFilter.Translation, limit: UInt64?, checksExpiry: Bool, on connection: PostgresConnection) throws -> [HistoryRecord] {
        guard checksExpiry else { return try rows(translation, limit: limit, on: connection) }
        // One repeatable-read transaction: the horizon and the rows come from the same snapshot.
        try pool.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", on: connection)
        defer { _ = try? pool.execute("COMMIT", on: connection) }
        try HistoryQuery.checkExpiry(translation, storeIdentifier: store.identifier, horizon: try horizon(on: connection))
        return try rows(translation, limit: limit, on: connection)
    }

    private func rows(_ translation: HistoryFilter.Translation, limit: UInt64?, on connection: PostgresConnection) throws -> [HistoryRecord] {
        let filter = translation.filter.resolved(for: store.identifier)
        guard !filter.selectsNothing else { return [] }
        var binds = PostgresBindings()
        var sql = "SELECT \"id\", \"timestamp\", \"author\", \"bundle\", \"process\", \"changes\" FROM \(qualifiedTable) WHERE \(Self.compile(filter, &binds)) ORDER BY \"timestamp\", \"id\""
        if let limit { sql += " LIMIT \(Int64(clamping: limit))" }
        return try pool.query(sql, binds, on: connection).map { row in
            let (id, seconds, author, bundle, process, changes) = try row.decode((Int64, Double, String?, String, String, String).self)
            let runs: [HistoryRecord.Run]
            do {
                runs = try HistoryRecord.decodeRuns(changes)
            } catch {
                throw PostgresStoreError.corruptValue(table: Self.table, column: "changes", expected: "history changes (transaction \(id))")
            }
            return HistoryRecord(
                transactionIdentifier: id, timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: author.map(PostgresStrings.decode),
                storeIdentifier: store.identifier, bundleIdentifier: bundle, processIdentifier: process, runs: runs)
        }
    }

    /// Deletes the transactions with `identifiers` and moves the horizon past them.
    func delete(_ identifiers: [Int64], on connection: PostgresConnection) throws {
        guard let highest = identifiers.max() else { return }
        var binds = PostgresBindings()
        binds.append(identifiers)
        try pool.execute("DELETE FROM \(qualifiedTable) WHERE \"id\" = ANY($1)", binds, on: connection)
        try raiseHorizon(to: highest, on: connection)
    }

    /// Deletes every row, for erasing; identifiers go on from where they were, so every token from before expires.
    func deleteAll(on connection: PostgresConnection) throws {
        let deleted = try pool.query("DELETE FROM \(qualifiedTable) RETURNING \"id\"", on: connection)
        if let highest = try deleted.map({ try $0.decode(Int64.self) }).max() { try raiseHorizon(to: highest, on: connection) }
    }

    /// `filter` as a SQL condition on the history table, its constants appended to `binds`.
    static func compile(_ filter: HistoryFilter, _ binds: inout PostgresBindings) -> String {
        switch filter {
        case .everything: return "TRUE"
        case .nothing: return "FALSE"
        case .and(let lhs, let rhs): return "(\(compile(lhs, &binds)) AND \(compile(rhs, &binds)))"
        case .or(let lhs, let rhs): return "(\(compile(lhs, &binds)) OR \(compile(rhs, &binds)))"
        case .not(let inner): return "(NOT \(compile(inner, &binds)))"
        case .token: return "TRUE"  // never reached: `resolved(for:)` turns token comparisons into identifier ones
        case .compare(let field, let op, let value):
            let column: String
            switch (field, value) {
            case (.transactionIdentifier, .int(let id)):
                column = "\"id\""
                binds.append(id)
            case (.timestamp, .date(let date)):
                column = "\"timestamp\""
                binds.append(date.timeIntervalSinceReferenceDate)
            case (.author, .string(let author)):
                column = "\"author_key\""
                binds.append(PostgresStrings.encode(author.precomposedStringWithCanonicalMapping))
            case (.author, .null):
                return op == .equal ? "(\"author\" IS NULL)" : op == .notEqual ? "(\"author\" IS NOT NULL)" : "FALSE"
            default: return "TRUE"  // never reached: the translator pairs each field with its kind of value
            }
            let placeholder = "$\(binds.count)"
            switch op {
            case .equal: return "(\(column) IS NOT DISTINCT FROM \(placeholder))"
            case .notEqual: return "(\(column) IS DISTINCT FROM \(placeholder))"
            case .less: return "COALESCE(\(column) < \(placeholder), FALSE)"
            case .lessOrEqual: return "COALESCE(\(column) <= \(placeholder), FALSE)"
            case .greater: return "COALESCE(\(column) > \(placeholder), FALSE)"
            case .greaterOrEqual: return "COALESCE(\(column) >= \(placeholder), FALSE)"
            }
        }
    }
}

extension PostgresStore: HistoryProviding {
    /// The transactions `descriptor` selects: token, identifier, timestamp and author
    /// conditions run in SQL; the rest of the predicate, the sort and the limit run on the rows read.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the descriptor asks after a token
    ///   older than what was deleted, the predicate's evaluation error, or ``PostgresStoreError``.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        let translation = HistoryFilter.superset(of: descriptor.predicate)
        let pushesLimit = translation.isExact && descriptor.sortBy.isEmpty && descriptor.fetchLimit > 0
        let records = try pool.withConnection { connection in
            try PostgresHistory(store: self).records(
                translation, limit: pushesLimit ? descriptor.fetchLimit : nil, checksExpiry: true, on: connection)
        }
        return try HistoryQuery.select(descriptor, from: records, schema: schema, isExact: translation.isExact).map { $0.transaction(schema: schema) }
    }

    /// Deletes the transactions `descriptor` selects; a token before the newest deleted one expires.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store, the
    ///   predicate's evaluation error, or ``PostgresStoreError``.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        let translation = HistoryFilter.superset(of: descriptor.predicate)
        try pool.transaction { connection in
            let history = PostgresHistory(store: self)
            let candidates = try history.records(translation, limit: nil, checksExpiry: false, on: connection)
            let doomed = try HistoryQuery.select(descriptor, from: candidates, schema: schema, isExact: translation.isExact)
            try history.delete(doomed.map(\.transactionIdentifier), on: connection)
        }
    }
}
