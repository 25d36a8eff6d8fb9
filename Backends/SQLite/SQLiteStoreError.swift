/// A failure of the SQLite store: SQLite's own errors, with their result code, message and
/// SQL, and the store's checks of the file and its values.
///
/// Match a case, or match by result code as with GRDB's `DatabaseError`:
/// ```swift
/// do { try context.save() }
/// catch SQLiteStoreError.ResultCode.constraint { ... }                   // any constraint failure
/// catch let error as SQLiteStoreError where error.resultCode == .busy { ... }
/// catch SQLiteStoreError.notADatabase(let path) { ... }
/// ```
/// Bound values are never part of the error. What every built-in store reports alike (a
/// read-only save, a missing model, an entity the store does not hold) is a core error
/// instead; see "Errors a store throws" in the core's "Implementing a data store".
public enum SQLiteStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite refused a call: its extended result code, its message, the SQL text that failed
    /// (if a statement was involved) and the database file, or `:memory:`.
    case sqlite(ResultCode, message: String, sql: String?, path: String)
    /// A column holds a value that cannot be a value of the property's kind.
    case corruptValue(table: String, column: String, expected: String)
    /// The file exists but is not a SQLite database; it was left untouched.
    case notADatabase(path: String)
    /// The file is a SQLite database that Strata did not create; it was left untouched.
    case foreignDatabase(path: String, tables: [String])
    /// The database was written by a newer Strata file format.
    case unsupportedFormat(path: String, version: String)
    /// A store opened with `allowsSave: false` would have to create or migrate its file.
    case readOnly(path: String)
    /// A file of an `.externalStorage` attribute is missing or unreadable.
    case missingExternalData(path: String)
    /// The SQLite library in use lacks a feature the store needs.
    case missingFeature(String)

    /// A SQLite result code, primary (`constraint`) or extended (`constraintUnique`).
    ///
    /// As a pattern, a primary code matches every extended code of its kind:
    /// `SQLiteStoreError.ResultCode.constraint ~= .constraintUnique` is `true`.
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// SQLite's number for the code.
        public let rawValue: Int32
        /// Creates a code from SQLite's number.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code: the low byte of an extended code.
        public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }
        /// Whether this is a primary code rather than an extended one.
        public var isPrimary: Bool { self == primaryResultCode }

        /// `SQLITE_ERROR`: a generic error, such as SQL that does not compile.
        public static let error = ResultCode(rawValue: 1)
        /// `SQLITE_BUSY`: another connection holds the lock.
        public static let busy = ResultCode(rawValue: 5)
        /// `SQLITE_READONLY`: the database cannot be written.
        public static let readonly = ResultCode(rawValue: 8)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioErr = ResultCode(rawValue: 10)
        /// `SQLITE_CORRUPT`: the file is damaged.
        public static let corrupt = ResultCode(rawValue: 11)
        /// `SQLITE_FULL`: the disk is full.
        public static let full = ResultCode(rawValue: 13)
        /// `SQLITE_CANTOPEN`: the file cannot be opened.
        public static let cantOpen = ResultCode(rawValue: 14)
        /// `SQLITE_CONSTRAINT`: a constraint failed.
        public static let constraint = ResultCode(rawValue: 19)
        /// `SQLITE_MISUSE`: the library was used incorrectly.
        public static let misuse = ResultCode(rawValue: 21)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notADB = ResultCode(rawValue: 26)
        /// `SQLITE_CONSTRAINT_FOREIGNKEY`: a foreign key constraint failed.
        public static let constraintForeignKey = ResultCode(rawValue: 787)
        /// `SQLITE_CONSTRAINT_NOTNULL`: a NOT NULL constraint failed.
        public static let constraintNotNull = ResultCode(rawValue: 1299)
        /// `SQLITE_CONSTRAINT_PRIMARYKEY`: a PRIMARY KEY constraint failed.
        public static let constraintPrimaryKey = ResultCode(rawValue: 1555)
        /// `SQLITE_CONSTRAINT_UNIQUE`: a UNIQUE constraint failed.
        public static let constraintUnique = ResultCode(rawValue: 2067)

        /// `SQLITE_n`, with the number.
        public var description: String { "SQLite result code \(rawValue)" }

        /// Whether `code` is `pattern`, or of its kind when `pattern` is a primary code.
        public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
            pattern.isPrimary ? pattern == code.primaryResultCode : pattern == code
        }

        /// Whether `error` is a ``SQLiteStoreError`` whose code matches `pattern`, for `catch` clauses.
        public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
            guard let code = (error as? SQLiteStoreError)?.extendedResultCode else { return false }
            return pattern ~= code
        }
    }

    /// The primary result code: SQLite's for ``sqlite(_:message:sql:path:)``, the one SQLite
    /// would give for ``readOnly(path:)`` (`readonly`) and ``notADatabase(path:)`` (`notADB`),
    /// and `nil` for the store's own checks.
    public var resultCode: ResultCode? { extendedResultCode?.primaryResultCode }

    /// The extended result code, such as `constraintUnique`, where there is one (see ``resultCode``).
    public var extendedResultCode: ResultCode? {
        switch self {
        case .sqlite(let code, _, _, _): code
        case .readOnly: .readonly
        case .notADatabase: .notADB
        default: nil
        }
    }

    /// The SQL text that failed, never with bound values; `nil` when no statement was involved.
    public var sql: String? {
        if case .sqlite(_, _, let sql, _) = self { return sql }
        return nil
    }

    /// What is wrong and where.
    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql, let path):
            var text = "SQLite error \(code.rawValue) in \(path): \(message)"
            if let sql { text += " — while running: \(sql)" }
            return text
        case .corruptValue(let table, let column, let expected):
            return "the column \(table).\(column) holds a value that is not a \(expected)"
        case .notADatabase(let path):
            return "\(path) is not a SQLite database; it was not opened or changed"
        case .foreignDatabase(let path, let tables):
            return "\(path) is a SQLite database that Strata did not create (tables: \(tables.joined(separator: ", "))); it was not changed"
        case .unsupportedFormat(let path, let version):
            return "\(path) uses Strata store format \(version), which this version cannot read; it was not changed"
        case .readOnly(let path):
            return "the store \(path) was opened with allowsSave: false, and its file does not exist or needs a migration"
        case .missingExternalData(let path):
            return "the externally stored data file \(path) is missing or unreadable"
        case .missingFeature(let feature):
            return "the SQLite library in use was built without \(feature), which the store needs"
        }
    }
}
