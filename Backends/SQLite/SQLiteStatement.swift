import Foundation
import StrataCore
internal import CSQLite

/// One prepared statement, finalized when released. Reused by binding, stepping and resetting.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection
    let sql: String

    init(connection: SQLiteConnection, sql: String, database: OpaquePointer) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        try connection.check(code, sql: sql)
        guard let statement else {
            throw SQLiteStoreError.sqlite(.misuse, message: "the SQL holds no statement", sql: sql, path: connection.path)
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears bindings and rewinds, ready for the next use.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Forgets every binding: parameters read as NULL until bound again.
    func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    /// Binds UTF-8 text to parameter `index` (1-based) without SQLite copying it: the
    /// caller keeps `bytes` valid until the statement has run and ``clearBindings()`` (or a
    /// new binding of `index`) let go of them.
    ///
    /// - Throws: ``SQLiteStoreError`` when SQLite refuses the binding.
    func bindLent(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws {
        let code = bindText(bytes, at: index, destructor: nil)  // SQLITE_STATIC
        if code != SQLITE_OK { try connection.check(code, sql: sql) }
    }

    /// Rewinds the statement to run again, keeping its bindings: for a caller that binds
    /// every parameter before each run. A text or blob binding is SQLite's own copy, so a
    /// kept binding refers to nothing of the caller's.
    func rewind() {
        sqlite3_reset(handle)
    }

    /// Binds `values` to the parameters `?1`, `?2`, ... in order.
    ///
    /// - Throws: ``SQLiteStoreError`` when SQLite refuses a binding.
    func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    /// Binds one value to parameter `index` (1-based).
    ///
    /// - Throws: ``SQLiteStoreError`` when SQLite refuses the binding.
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
        case .real(let number): code = sqlite3_bind_double(handle, index, number)
        case .text(var text):
            // The bytes in place, not the implicit C-string conversion, which made an array per string.
            code = text.withUTF8 { bindText($0, at: index, destructor: strata_sqlite_transient()) }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), strata_sqlite_transient())
            }
        }
        if code != SQLITE_OK { try connection.check(code, sql: sql) }
    }

    /// Binds UTF-8 `bytes` as text, by their count rather than -1: a string may hold NUL
    /// characters, which -1 would cut at. An empty string still passes a pointer, since NULL
    /// binds NULL.
    private func bindText(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32, destructor: sqlite3_destructor_type?) -> Int32 {
        sqlite3_bind_text(
            handle, index, (bytes.baseAddress.map(UnsafeRawPointer.init) ?? Self.noBytes).assumingMemoryBound(to: CChar.self),
            Int32(bytes.count), destructor)
    }

    /// A valid address for an empty string's bytes.
    private static var noBytes: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

    /// Advances to the next row; `false` when the statement is done.
    ///
    /// - Throws: ``SQLiteStoreError`` with the statement's SQL.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            try connection.check(code, sql: sql)
            return false
        }
    }

    /// Runs the statement to completion, discarding rows.
    ///
    /// - Throws: ``SQLiteStoreError`` with the statement's SQL.
    func run() throws {
        while try step() {}
    }

    /// How many times the statement ran to its end or first row since it was prepared.
    var timesRun: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_RUN, 0)) }

    /// The number of columns in a result row.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// Column `index` (0-based) of the current row, as SQLite holds it while the row is current.
    ///
    /// ``column(_:)`` and ``SQLiteRowCells`` take a column with this one call and read its
    /// type and value from it with `sqlite3_value_*`. Every `sqlite3_column_*` call looks the column up and sets
    /// the connection's error state after (about 35 instructions), and reading the type and
    /// then the value that way took two or three of them. SQLite documents the value as
    /// unprotected, which differs from a protected one only by the connection's mutex; a
    /// connection opened `SQLITE_OPEN_NOMUTEX`, as every one here is, has none.
    private func cell(_ index: Int32) -> OpaquePointer? { sqlite3_column_value(handle, index) }

    /// The text of `cell`, a TEXT value.
    fileprivate static func text(of cell: OpaquePointer?) -> String {
        guard let text = sqlite3_value_text(cell) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(cell))), as: UTF8.self)
    }

    /// The value of column `index` (0-based) of the current row.
    func column(_ index: Int32) -> SQLiteValue {
        let cell = cell(index)
        switch sqlite3_value_type(cell) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(cell))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(cell))
        case SQLITE_TEXT: return .text(Self.text(of: cell))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(cell))
            guard count > 0, let bytes = sqlite3_value_blob(cell) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// The distance in memory between the values of consecutive columns of the current row,
    /// when every column's value lies that far after the one before it; `nil` otherwise, and
    /// for a row of fewer than two columns.
    ///
    /// SQLite keeps a result row in consecutive registers of its virtual machine (the
    /// `ResultRow` opcode's "registers P1 through P1+P2-1"), and `sqlite3_column_value` gives
    /// the address of a column's register, so a row's values lie one register apart. A reader
    /// that has found the distance on one row of a run takes each later row's values from its
    /// first column's address (``cells(spacedBy:)``): a call into SQLite for every column of
    /// every row cost about 50 instructions. The layout is SQLite's own and not documented,
    /// so it is measured here for every column, not assumed: a library that laid a row out
    /// otherwise answers `nil`, and its rows are read a column at a time. What the call does
    /// besides (marking a value that points into a page as ephemeral, for a caller that keeps
    /// it) does not matter to a value read and dropped before the next step.
    func columnValueSpacing() -> Int? {
        let count = sqlite3_column_count(handle)
        guard count >= 2, let first = sqlite3_column_value(handle, 0), let second = sqlite3_column_value(handle, 1) else { return nil }
        let start = UnsafeMutableRawPointer(first)
        let spacing = start.distance(to: UnsafeMutableRawPointer(second))
        guard spacing > 0 else { return nil }
        for index in 2..<count where sqlite3_column_value(handle, index) != OpaquePointer(start + Int(index) * spacing) {
            return nil
        }
        return spacing
    }

    /// The values of the current row's columns, each found `spacing` after the one before
    /// it (``columnValueSpacing()``, measured in the same run), or asked of SQLite column by
    /// column when `spacing` is `nil`. Valid until the statement steps again.
    func cells(spacedBy spacing: Int?) -> SQLiteRowCells {
        guard let spacing, let first = sqlite3_column_value(handle, 0) else {
            return SQLiteRowCells(handle: handle, first: nil, spacing: 0)
        }
        return SQLiteRowCells(handle: handle, first: UnsafeMutableRawPointer(first), spacing: spacing)
    }

    /// Column `index` as an integer.
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` when it holds an integer; `nil` for any other type, which
    /// ``int64(_:)`` would convert (a real number to its integer part, text to its leading digits).
    func integer(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_INTEGER ? sqlite3_column_int64(handle, index) : nil
    }

    /// The query plan SQLite chose, one line per step (`EXPLAIN QUERY PLAN`).
    static func queryPlan(for sql: String, bindings: [SQLiteValue], on connection: SQLiteConnection) throws -> [String] {
        let statement = try connection.prepare("EXPLAIN QUERY PLAN " + sql)
        try statement.bind(bindings)
        var lines: [String] = []
        while try statement.step() {
            if case .text(let detail) = statement.column(3) { lines.append(detail) }
        }
        return lines
    }
}

/// The column values of a statement's current row (``SQLiteStatement/cells(spacedBy:)``),
/// read straight into the values a row loop keeps.
struct SQLiteRowCells {
    fileprivate let handle: OpaquePointer
    /// The first column's value, or `nil` to ask SQLite for each column.
    fileprivate let first: UnsafeMutableRawPointer?
    fileprivate let spacing: Int

    /// Column `index`'s value.
    @inline(__always)
    private func cell(_ index: Int32) -> OpaquePointer? {
        guard let first else { return sqlite3_column_value(handle, index) }
        return OpaquePointer(first + Int(index) &* spacing)
    }

    /// Column `index` read straight into a value of `kind`, for the storage class that kind
    /// is normally stored in; `nil` for anything else (NULL, another class, a kind that needs
    /// parsing), which ``SQLiteValueCodec`` then decodes or rejects. It saves the row loop
    /// the intermediate ``SQLiteValue``.
    @inline(__always)
    func value(at index: Int32, kind: PersistentValue.Kind) -> PersistentValue? {
        let cell = cell(index)
        switch (kind, sqlite3_value_type(cell)) {
        case (.string, SQLITE_TEXT): return .string(SQLiteStatement.text(of: cell))
        case (.double, SQLITE_FLOAT): return .double(sqlite3_value_double(cell))
        case (.date, SQLITE_FLOAT): return .date(Date(timeIntervalSinceReferenceDate: sqlite3_value_double(cell)))
        case (.int, SQLITE_INTEGER): return .int(sqlite3_value_int64(cell))
        case (.bool, SQLITE_INTEGER): return .bool(sqlite3_value_int64(cell) != 0)
        default: return nil
        }
    }

    /// Column `index`, a to-one relationship's key, as the identifier `template` with that
    /// key, or null; `nil` when the column holds something else (see ``SQLiteValueCodec``).
    @inline(__always)
    func identifier(at index: Int32, as template: PersistentIdentifier) -> PersistentValue? {
        let cell = cell(index)
        switch sqlite3_value_type(cell) {
        case SQLITE_INTEGER: return .identifier(template.replacingPrimaryKey(sqlite3_value_int64(cell)))
        case SQLITE_NULL: return .null
        default: return nil
        }
    }

    /// As ``SQLiteStatement/int64(_:)``.
    @inline(__always)
    func int64(_ index: Int32) -> Int64 { sqlite3_value_int64(cell(index)) }
}
