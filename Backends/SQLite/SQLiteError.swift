/// A failure reported by SQLite: its result code, its message, and the SQL and file involved.
///
/// Bound values are never part of the error.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// SQLite's primary or extended result code.
    public let code: Int32
    /// SQLite's message for the failure.
    public let message: String
    /// The SQL that failed, if a statement was involved.
    public let sql: String?
    /// The database file, or `:memory:`.
    public let path: String

    /// `SQLite error CODE in PATH: MESSAGE (SQL)`.
    public var description: String {
        var text = "SQLite error \(code) in \(path): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
