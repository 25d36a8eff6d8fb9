import Foundation
internal import CSQLiteBench

/// A failed SQLite call in the raw baseline: the code, SQLite's message and the SQL.
public struct RawSQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?
    public var description: String { "SQLite error \(code): \(message)" + (sql.map { " in `\($0)`" } ?? "") }
}

/// The raw baseline's connection: the one owner of a `sqlite3*`, opened as GRDB and Strata
/// open theirs (`NOMUTEX`, WAL, `synchronous=NORMAL`, `foreign_keys=ON`).
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String) throws {
        handle = try Self.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)
        try execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
    }

    /// A connection to a new in-memory database, for asking the library about itself.
    init(memoryOnly: Void) throws {
        handle = try Self.open(":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw RawSQLiteError(code: rc, message: message, sql: nil)
        }
        return db
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// The rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The key of the row the last INSERT added.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows of `table`.
    ///
    /// - Throws: ``RawSQLiteError`` when the table is missing.
    func count(_ table: String) throws -> Int {
        let select = try prepare("SELECT count(*) FROM \"\(table)\"")
        guard try select.step() else { return 0 }
        return Int(select.int64(0))
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
        return RawStatement(statement!, database: self)
    }

    func check(_ rc: Int32, _ sql: String? = nil) throws {
        guard rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE else {
            throw RawSQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    /// A new database at `url` holding the empty `trip` table of ``schema``, as an insert
    /// starts from.
    static func withEmptyTripTable(at url: URL) throws -> RawDatabase {
        let database = try RawDatabase(path: url.path)
        try database.execute(schema)
        return database
    }

    /// The one INSERT of a trip's values, prepared; SQLite gives the key. Bind a row with
    /// ``RawStatement/insertTrip(name:destination:startDate:endDate:budget:isFavorite:)``.
    func prepareTripInsert() throws -> RawStatement {
        try prepare("INSERT INTO trip (name, destination, startDate, endDate, budget, isFavorite) VALUES (?, ?, ?, ?, ?, ?)")
    }

    /// The schema GRDB's record maps to, with an index on `name`.
    static let schema = """
        CREATE TABLE trip (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            destination TEXT NOT NULL,
            startDate REAL NOT NULL,
            endDate REAL NOT NULL,
            budget REAL NOT NULL,
            isFavorite INTEGER NOT NULL
        );
        CREATE INDEX trip_name ON trip(name);
        """
}

/// A prepared statement, reused with bind, step and reset; finalized in `deinit`.
final class RawStatement {
    let handle: OpaquePointer
    let database: RawDatabase

    init(_ handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds text without a copy (`SQLITE_STATIC`): the caller steps inside `body`.
    @inline(__always)
    func withText<R>(_ index: Int32, _ text: String, _ body: () throws -> R) rethrows -> R {
        var text = text
        return try text.withUTF8 { buffer in
            sqlite3_bind_text(handle, index, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(buffer.count), bench_sqlite_static())
            return try body()
        }
    }

    @inline(__always) func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    @inline(__always) func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }

    /// Steps once; `true` while a row is available.
    @inline(__always)
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw RawSQLiteError(code: rc, message: String(cString: sqlite3_errmsg(database.handle)), sql: nil)
    }

    @inline(__always) func reset() { sqlite3_reset(handle) }

    @inline(__always) func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    @inline(__always) func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    @inline(__always)
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Inserts one trip through the statement of ``RawDatabase/prepareTripInsert()``, its
    /// text bound without a copy.
    @inline(__always)
    func insertTrip(name: String, destination: String, startDate: Double, endDate: Double, budget: Double, isFavorite: Bool) throws {
        try withText(1, name) {
            try withText(2, destination) {
                bind(3, startDate)
                bind(4, endDate)
                bind(5, budget)
                bind(6, Int64(isFavorite ? 1 : 0))
                _ = try step()
                reset()
            }
        }
    }

    /// The columns `id, name, destination, startDate, endDate, budget, isFavorite`, in that order.
    @inline(__always)
    func tripRow() -> TripRow {
        TripRow(
            id: int64(0), name: text(1), destination: text(2), startDate: double(3), endDate: double(4),
            budget: double(5), isFavorite: int64(6) != 0)
    }
}

/// The SQLite library every SQLite backend of the report links, as the report names it.
public enum SQLiteLibrary {
    /// The library's version, such as `3.40.1`.
    public static var version: String { String(cString: sqlite3_libversion()) }

    /// Whether a new connection zeroes the content a delete frees (`PRAGMA secure_delete`),
    /// asked once; `nil` when an in-memory database could not be opened to ask. Builds made
    /// with `SQLITE_SECURE_DELETE`, as Debian's is, answer `true`: a delete of every row then
    /// writes each page it frees, zeroed, to the log and, at the checkpoint, to the database
    /// file, in all three backends alike.
    public static let securesDeletes: Bool? = {
        guard let database = try? RawDatabase(memoryOnly: ()), let select = try? database.prepare("PRAGMA secure_delete"),
            let row = try? select.step()
        else { return nil }
        return row && select.int64(0) != 0
    }()
}
