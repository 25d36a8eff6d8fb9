internal import CSQLite

/// One SQLite database handle, closed when the connection is released.
///
/// Every C return code passes through ``check(_:sql:)``, which turns failures into
/// ``SQLiteStoreError/sqlite(_:message:sql:path:)`` values carrying SQLite's extended result
/// code and message. Writes run inside ``transaction(_:)``.
final class SQLiteConnection {
    let handle: OpaquePointer
    private var statementCache: [String: SQLiteStatement] = [:]
    /// The statement ``cached(_:)`` returned last. A fetch repeated in a loop passes the same
    /// SQL string each time (``SQLiteSelectCache`` keeps it), which `==` matches by identity,
    /// where the dictionary hashed all of its text.
    private var lastCached: (sql: String, statement: SQLiteStatement)?

    /// Opens the database at `path` (`":memory:"` for a private in-memory database),
    /// creating the file when it is missing unless `readOnly` or `existing` is set.
    ///
    /// - Throws: ``SQLiteStoreError`` when SQLite cannot open the file.
    init(path: String, readOnly: Bool = false, existing: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : existing ? SQLITE_OPEN_READWRITE : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
            sqlite3_close_v2(handle)
            throw SQLiteStoreError.sqlite(.init(rawValue: extended), message: message, sql: nil, path: path)
        }
        // Extended codes (`constraintUnique` rather than `constraint`) from every call.
        sqlite3_extended_result_codes(handle, 1)
        self.handle = handle
        self.path = path
        // String columns are indexed under `strata_canonical`: no connection may touch them without it.
        try SQLiteFunctions.register(on: self)
    }

    /// The path the connection was opened with.
    let path: String

    /// The main database's data version as of the connection's last read
    /// (`SQLITE_FCNTL_DATA_VERSION`, read without a transaction): it moves when a read
    /// starts after another connection committed; `nil` when SQLite does not answer.
    var dataVersion: UInt32? {
        var version: UInt32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK ? version : nil
    }

    /// The store's external change count its writer gave after a read of this connection
    /// that saw `dataVersion` (see `SQLiteStore.externalChangeCount(asOfLastReadOn:)`).
    ///
    /// Unchecked for exclusivity: one thread at a time uses a connection (the store's pool
    /// hands it out), and the dynamic check cost two runtime calls per fetch.
    @exclusivity(unchecked) var knownExternalChangeCount: (dataVersion: UInt32, count: Int64)?

    deinit {
        lastCached = nil
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// A new prepared statement for `sql`.
    ///
    /// - Throws: ``SQLiteStoreError`` naming the SQL when it does not compile.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql, database: handle)
    }

    /// The cached prepared statement for `sql`, reset and ready to bind.
    ///
    /// - Throws: ``SQLiteStoreError`` naming the SQL when it does not compile.
    func cached(_ sql: String) throws -> SQLiteStatement {
        if let last = lastCached, last.sql == sql {
            last.statement.reset()
            return last.statement
        }
        if let statement = statementCache[sql] {
            statement.reset()
            lastCached = (sql, statement)
            return statement
        }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        lastCached = (sql, statement)
        return statement
    }

    /// The rowid of the last inserted row.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether the connection is inside a transaction or has a statement stepped and not yet
    /// reset, either of which holds a read of an earlier state of the database open.
    var isReading: Bool {
        if sqlite3_get_autocommit(handle) == 0 { return true }
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { return true }
            statement = sqlite3_next_stmt(handle, current)
        }
        return false
    }

    /// The most `?` parameters one statement may hold on this connection.
    var variableLimit: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// Runs one or more statements that return no rows.
    ///
    /// - Throws: ``SQLiteStoreError`` with the failing SQL.
    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    /// Runs `body` in one write transaction (`BEGIN IMMEDIATE` ... `COMMIT`); when `body` or
    /// the commit throws, rolls back and rethrows, so none of `body`'s writes remain.
    ///
    /// - Throws: What `body` throws, or ``SQLiteStoreError`` when the transaction cannot begin or commit.
    func transaction<R>(_ body: () throws -> R) throws -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The first column of the first row of `sql` as text, or `nil` when there is no row.
    ///
    /// - Throws: ``SQLiteStoreError`` with the failing SQL.
    func scalarText(_ sql: String) throws -> String? {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql: sql)
        defer { sqlite3_finalize(statement) }
        let step = sqlite3_step(statement)
        if step == SQLITE_DONE { return nil }
        guard step == SQLITE_ROW else { try check(step, sql: sql); return nil }
        guard let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }

    /// Whether this SQLite build was compiled with `option` (for example `ENABLE_FTS5`).
    ///
    /// Optional features are checked at run time, never linked, because distributions build
    /// SQLite with different options.
    func hasCompileOption(_ option: String) -> Bool {
        sqlite3_compileoption_used(option) != 0
    }

    /// Turns a SQLite return code into an error when it is not a success.
    @discardableResult
    func check(_ code: Int32, sql: String?) throws -> Int32 {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return code
        default:
            throw SQLiteStoreError.sqlite(.init(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path)
        }
    }

    /// The version of the SQLite library in use, such as `3.40.1`.
    static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
