import Foundation

/// A failure of the PostgreSQL store. Every case names where the store connects (host and
/// port or socket, and database) and never the password; bound values are never part of it.
///
/// What every built-in store reports alike (a read-only save, a missing model, an entity the
/// store does not hold, a database written by a newer schema) is a core error instead; see
/// "Errors a store throws" in the core's "Implementing a data store".
public enum PostgresStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The configuration's URL cannot be read; the text says why, with the password redacted.
    case invalidURL(String)
    /// A setting of the configuration cannot be used.
    case invalidConfiguration(String)
    /// The server could not be reached or refused the connection (wrong user, password or
    /// database among the reasons): where, and why.
    case unreachable(location: String, reason: String)
    /// The server refused a statement: where, its SQLSTATE code (`23505` for a unique
    /// violation), its message and the SQL text.
    case server(location: String, sqlState: String, message: String, sql: String)
    /// The database schema holds tables, none of them Strata's: it was left untouched.
    case foreignDatabase(location: String, databaseSchema: String, tables: [String])
    /// The database schema was written by a newer Strata format.
    case unsupportedFormat(location: String, version: String)
    /// A store opened with `allowsSave: false` would have to create or change tables.
    case readOnly(location: String)
    /// The server's encoding is not UTF-8, which the store needs to compare strings as Swift does.
    case unsupportedEncoding(location: String, encoding: String)
    /// A column holds a value that cannot be a value of the property's kind.
    case corruptValue(table: String, column: String, expected: String)
    /// A store method was called on one of SwiftNIO's event-loop threads, which it would
    /// have blocked; call it from any other thread or task.
    case calledOnEventLoop

    /// The SQLSTATE of a ``server(location:sqlState:message:sql:)`` error, else `nil`.
    public var sqlState: String? {
        if case .server(_, let sqlState, _, _) = self { return sqlState }
        return nil
    }

    /// What went wrong and where, for logs and messages; never the password or a bound value.
    public var description: String {
        switch self {
        case .invalidURL(let reason): return "invalid PostgreSQL URL: \(reason)"
        case .invalidConfiguration(let reason): return "invalid PostgreSQL store configuration: \(reason)"
        case .unreachable(let location, let reason): return "cannot connect to \(location): \(reason)"
        case .server(let location, let sqlState, let message, let sql):
            return "\(location) refused a statement (SQLSTATE \(sqlState)): \(message) (SQL: \(sql))"
        case .foreignDatabase(let location, let databaseSchema, let tables):
            return "\(location), schema \(databaseSchema), holds tables Strata did not create (\(tables.joined(separator: ", "))); nothing was changed"
        case .unsupportedFormat(let location, let version):
            return "\(location) was written by a newer Strata PostgreSQL format (\(version)); nothing was changed"
        case .readOnly(let location): return "\(location) would have to be created or changed, and the store does not allow saves"
        case .unsupportedEncoding(let location, let encoding):
            return "\(location) uses the encoding \(encoding); the store needs UTF8 to compare strings as Swift does"
        case .corruptValue(let table, let column, let expected): return "\(table).\(column) holds a value that is not a \(expected)"
        case .calledOnEventLoop: return "a PostgresStore method was called on a SwiftNIO event-loop thread, which it would block"
        }
    }
}
