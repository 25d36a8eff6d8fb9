import Foundation
import PostgresNIO
import StrataCore

/// A store that keeps its models in a PostgreSQL database, for apps whose processes, on one
/// host or several, share one database server.
///
/// Swap it in for another configuration and nothing else in the app changes; one container
/// can hold it beside others (sessions in SQLite on the local disk, accounts in PostgreSQL):
/// ```swift
/// let accounts = PostgresStoreConfiguration(
///     schema: Schema([Account.self]), url: URL(string: "postgres://app:secret@db.internal:5432/shop")!)
/// let container = try ModelContainer(for: Session.self, Account.self, configurations: sessions, accounts)
/// ```
/// The tables go in the database schema ``databaseSchema`` (`public` unless set). The
/// StrataPostgres catalog's "Running on PostgreSQL" article describes the type mapping and
/// what several processes sharing the database see.
public struct PostgresStoreConfiguration: DataStoreConfiguration, Sendable {
    /// The store this configuration opens.
    public typealias Store = PostgresStore

    /// The configuration's name, unique within a container; the database's name by default.
    public var name: String
    /// The models this store holds; `nil` for every model of the container.
    public var schema: Schema?
    /// The database URL the configuration was made with, without its password; `nil` when
    /// it was made from a postgres-nio client configuration.
    public let url: URL?
    /// Whether saves may write; with `false` the store only reads, every save throws, and
    /// opening never creates a table.
    public var allowsSave: Bool
    /// The PostgreSQL schema (namespace) that holds the store's tables: `public` unless set.
    /// Several stores can share one database, each in a schema of its own; the schema is
    /// created when missing.
    public var databaseSchema: String = "public"
    /// How many connections the store opens at most: 4 unless set. Saves take one; each
    /// fetch takes one for its duration.
    public var maximumConnections: Int = 4
    /// How long opening a connection may take before the store reports the server unreachable.
    public var connectTimeout: Duration = .seconds(10)
    /// How much history the store keeps: ``HistoryRetention/unlimited`` unless set.
    public var historyRetention: HistoryRetention = .unlimited

    /// How postgres-nio connects: host or socket, credentials, database and TLS.
    public let connection: PostgresConnection.Configuration

    /// A configuration for the database a `postgres://user:password@host:port/database` URL
    /// names (`postgresql://` works too).
    ///
    /// The host may be a Unix socket: a folder holding the server's socket, percent-encoded
    /// (`postgres://strata@%2Ftmp%2Fpg/strata`) or given as a `host` query item
    /// (`postgres://strata@/strata?host=/tmp/pg`), as libpq reads it; the socket file is
    /// `.s.PGSQL.<port>` in that folder. A URL that cannot be read is reported when the store
    /// opens, by ``PostgresStoreError/invalidURL(_:)``, which never repeats the password.
    public init(name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        let parsed = PostgresURL(url)
        self.name = name ?? parsed.database ?? "postgres"
        self.schema = schema
        self.url = parsed.redacted
        self.allowsSave = allowsSave
        self.connection = parsed.configuration
        self.urlProblem = parsed.problem
    }

    /// A configuration that connects as postgres-nio's `configuration` says: for TLS, a
    /// socket, or other options a URL cannot carry.
    public init(name: String? = nil, schema: Schema? = nil, configuration: PostgresConnection.Configuration, allowsSave: Bool = true) {
        self.name = name ?? configuration.database ?? configuration.username
        self.schema = schema
        self.url = nil
        self.allowsSave = allowsSave
        self.connection = configuration
        self.urlProblem = nil
    }

    /// Why the URL could not be read, without its password; `nil` when it could.
    let urlProblem: String?

    /// Checks that the URL could be read and the settings are usable.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:)`` or ``PostgresStoreError/invalidConfiguration(_:)``.
    public func validate() throws {
        if let urlProblem { throw PostgresStoreError.invalidURL(urlProblem) }
        guard maximumConnections >= 1 else {
            throw PostgresStoreError.invalidConfiguration("maximumConnections is \(maximumConnections); it must be at least 1")
        }
        guard !databaseSchema.isEmpty, databaseSchema.utf8.count <= 63 else {
            throw PostgresStoreError.invalidConfiguration("databaseSchema must have 1 to 63 bytes, not \(databaseSchema.utf8.count)")
        }
    }

    /// Where the store connects, for messages: host and port or socket, and database. Never the password.
    var location: String {
        let place: String
        if let socket = connection.unixSocketPath {
            place = "socket \(socket)"
        } else {
            place = "\(connection.host ?? "?"):\(connection.port ?? 5432)"
        }
        return "PostgreSQL at \(place), database \(connection.database ?? connection.username)"
    }

    /// Whether two configurations open the same store: name, server, user, database schema
    /// and `allowsSave` (the password and TLS settings are not compared).
    public static func == (lhs: PostgresStoreConfiguration, rhs: PostgresStoreConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.location == rhs.location && lhs.connection.username == rhs.connection.username
            && lhs.databaseSchema == rhs.databaseSchema && lhs.allowsSave == rhs.allowsSave
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(location)
        hasher.combine(databaseSchema)
        hasher.combine(allowsSave)
    }
}

extension PostgresStoreConfiguration: HistoryRetaining {}

/// A `postgres://` URL read into postgres-nio's configuration, or the reason it cannot be.
struct PostgresURL {
    var configuration: PostgresConnection.Configuration
    var database: String?
    /// The URL without its password.
    var redacted: URL?
    var problem: String?

    init(_ url: URL) {
        let fallback = PostgresConnection.Configuration(host: "localhost", username: "postgres", password: nil, database: nil, tls: .disable)
        configuration = fallback
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            problem = "the database URL cannot be read"
            return
        }
        let password = components.password
        if components.password != nil { components.password = "redacted" }
        redacted = components.url
        let shown = redacted?.absoluteString ?? "the database URL"
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            problem = "\(shown) is not a postgres:// URL"
            return
        }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            problem = "\(shown) names no user"
            return
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path.removingPercentEncoding
        let port = components.port ?? 5432
        let socketFolder = components.queryItems?.first(where: { $0.name == "host" })?.value
            ?? components.percentEncodedHost?.removingPercentEncoding.flatMap { $0.hasPrefix("/") ? $0 : nil }
        if let socketFolder {
            let socket = socketFolder.hasSuffix(".s.PGSQL.\(port)") ? socketFolder : socketFolder + "/.s.PGSQL.\(port)"
            configuration = PostgresConnection.Configuration(
                unixSocketPath: socket, username: user, password: password?.removingPercentEncoding, database: database)
        } else {
            guard let host = components.host, !host.isEmpty else {
                problem = "\(shown) names no host"
                return
            }
            configuration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password?.removingPercentEncoding, database: database, tls: .disable)
        }
    }
}
