import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// The store's connections, and the bridge from its synchronous methods to postgres-nio.
///
/// `DataStore`'s methods are synchronous, postgres-nio's are not. The bridge never runs
/// Swift concurrency tasks: it starts postgres-nio's `EventLoopFuture` operations, which
/// run on SwiftNIO's event-loop threads (the shared `MultiThreadedEventLoopGroup.singleton`),
/// and blocks the calling thread until the future completes. The calling thread may be any
/// thread, a `@ModelActor`'s included, but not an event-loop thread, which the wait would
/// stall: there the store throws ``PostgresStoreError/calledOnEventLoop``. Blocking a
/// cooperative thread this way cannot deadlock the store, because no part of the work
/// needs a cooperative thread; it does hold that thread for the length of the round trips,
/// as any synchronous database call does.
///
/// At most `maximumConnections` connections are open; a caller that finds none idle opens
/// one while under the limit, else waits for one to be returned. A connection that failed
/// is closed rather than returned.
final class PostgresConnectionPool: @unchecked Sendable {
    private let configuration: PostgresConnection.Configuration
    private let location: String
    private let limit: Int
    private let logger: Logger
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var nextID = 0
    private var closed = false

    init(configuration: PostgresConnection.Configuration, location: String, limit: Int, connectTimeout: Duration) {
        var configuration = configuration
        configuration.options.connectTimeout = .nanoseconds(
            connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
        self.configuration = configuration
        self.location = location
        self.limit = limit
        var logger = Logger(label: "strata.postgres")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// A pool for a store configuration's server, of at most `limit` connections.
    convenience init(configuration: PostgresStoreConfiguration, limit: Int? = nil) {
        self.init(
            configuration: configuration.connection, location: configuration.location, limit: limit ?? configuration.maximumConnections,
            connectTimeout: configuration.connectTimeout)
    }

    deinit {
        for connection in idle { closeQuietly(connection) }
    }

    /// Runs `body` with a connection of the pool; the connection goes back afterwards, or is
    /// closed when `body` left it unusable.
    func withConnection<R>(_ body: (PostgresConnection) throws -> R) throws -> R {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// Runs `sql` with `binds` on `connection` and returns its rows.
    ///
    /// - Throws: ``PostgresStoreError/server(location:sqlState:message:sql:)`` when the server
    ///   refuses it, ``PostgresStoreError/unreachable(location:reason:)`` when the connection fails.
    func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), on connection: PostgresConnection) throws -> PostgresQueryResult {
        try wait(connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger), sql: sql)
    }

    /// Runs `sql` and returns how many rows it changed.
    ///
    /// - Throws: As ``query(_:_:on:)``.
    @discardableResult
    func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), on connection: PostgresConnection) throws -> Int {
        try query(sql, binds, on: connection).metadata.rows ?? 0
    }

    /// Runs `body` in one transaction on one connection: `COMMIT` when it returns, `ROLLBACK` when it throws.
    func transaction<R>(_ body: (PostgresConnection) throws -> R) throws -> R {
        try withConnection { connection in
            try execute("BEGIN", on: connection)
            let result: R
            do {
                result = try body(connection)
            } catch {
                _ = try? execute("ROLLBACK", on: connection)
                throw error
            }
            try execute("COMMIT", on: connection)
            return result
        }
    }

    /// Closes every idle connection; connections in use close when they are returned.
    func shutdown() {
        condition.lock()
        closed = true
        let connections = idle
        idle = []
        open -= connections.count
        condition.unlock()
        for connection in connections { closeQuietly(connection) }
    }

    /// Closes `connection` without waiting (postgres-nio's future-returning `close()`); the
    /// connection is kept alive until it has closed, as postgres-nio requires.
    private func closeQuietly(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    private func checkOut() throws -> PostgresConnection {
        condition.lock()
        while true {
            if let connection = idle.popLast() {
                condition.unlock()
                if !connection.isClosed { return connection }
                condition.lock()
                open -= 1
                continue
            }
            if open < limit {
                open += 1
                nextID += 1
                let id = nextID
                condition.unlock()
                do {
                    let future = PostgresConnection.connect(
                        on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger)
                    return try wait(future, sql: nil)
                } catch {
                    condition.lock()
                    open -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            condition.wait()
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        condition.lock()
        if closed || connection.isClosed {
            open -= 1
            condition.signal()
            condition.unlock()
            if !connection.isClosed { closeQuietly(connection) }
            return
        }
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    /// Blocks until `future` completes: the bridge from postgres-nio to the synchronous store.
    private func wait<T: Sendable>(_ future: EventLoopFuture<T>, sql: String?) throws -> T {
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else { throw PostgresStoreError.calledOnEventLoop }
        do {
            return try future.wait()
        } catch let error as PSQLError {
            throw translate(error, sql: sql)
        }
    }

    /// postgres-nio's error as the store's: the server's SQLSTATE and message, or why the
    /// connection failed. postgres-nio's own description hides everything (it may hold
    /// secrets); these fields name no password.
    private func translate(_ error: PSQLError, sql: String?) -> PostgresStoreError {
        if let info = error.serverInfo, let state = info[.sqlState] {
            let message = info[.message] ?? "no message"
            let detail = info[.detail].map { " (\($0))" } ?? ""
            if let sql { return .server(location: location, sqlState: state, message: message + detail, sql: sql) }
            return .unreachable(location: location, reason: "the server refused the connection: \(message) (SQLSTATE \(state))")
        }
        let reason: String
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
        case .unsupportedAuthMechanism: reason = "the server asks for an authentication method postgres-nio does not support"
        case .authMechanismRequiresPassword: reason = "the server asks for a password and the configuration has none"
        case .sslUnsupported: reason = "the server does not support TLS, which the configuration requires"
        default: reason = "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        }
        return .unreachable(location: location, reason: reason)
    }
}
