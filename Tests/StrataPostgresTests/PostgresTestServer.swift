import Foundation
import Logging
import NIOPosix
import PostgresNIO
import StrataCore
import StrataPostgres
import Testing

/// The PostgreSQL server the tests use: `STRATA_POSTGRES_URL`, which `make test` sets to a
/// throwaway cluster (`scripts/postgres-cluster.sh`), or to a server of your own.
///
/// Without it the suites are reported as skipped, with `STRATA_POSTGRES_SKIP_REASON` (set by
/// `make test` when no server can be installed or started) or a note that the variable is unset.
enum PostgresTestServer {
    static let url: URL? = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"].flatMap { URL(string: $0) }

    static var isAvailable: Bool { url != nil }

    static let skipReason: Comment = Comment(
        rawValue: ProcessInfo.processInfo.environment["STRATA_POSTGRES_SKIP_REASON"]
            ?? "no PostgreSQL server: STRATA_POSTGRES_URL is not set (make test starts one)")

    /// A prefix for this process's database schemas, so runs against one server never meet.
    static let runPrefix = "t" + String(UInt32.random(in: 0...UInt32.max), radix: 36)

    /// A database schema name for `name`, the same every time within this run, at most 63 bytes.
    static func databaseSchema(_ name: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "\(runPrefix)_\(String(hash, radix: 36))"
    }

    /// A configuration of the test server holding `schema` in the database schema for `name`.
    static func configuration(_ name: String, schema: Schema?, allowsSave: Bool = true) -> PostgresStoreConfiguration {
        var configuration = PostgresStoreConfiguration(name: name, schema: schema, url: url!, allowsSave: allowsSave)
        configuration.databaseSchema = databaseSchema(name)
        return configuration
    }

    /// The names of the tables in database schema `namespace`, sorted.
    static func tables(in namespace: String) throws -> [String] {
        try query("SELECT table_name FROM information_schema.tables WHERE table_schema = '\(namespace)' ORDER BY table_name")
            .map { try $0.decode(String.self) }
    }

    /// Runs `sql` on a connection of its own.
    static func execute(_ sql: String) throws {
        _ = try query(sql)
    }

    /// Runs `sql` on a connection of its own and returns its rows.
    static func query(_ sql: String) throws -> PostgresQueryResult {
        let configuration = PostgresStoreConfiguration(url: url!).connection
        let connection = try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: 0, logger: Logger(label: "strata.tests")
        ).wait()
        defer { _ = try? (connection.close() as EventLoopFuture<Void>).wait() }
        return try connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "strata.tests")).wait()
    }

    /// Drops the database schemas of `names`, and any migration working copy left beside
    /// them, with everything in them.
    static func drop(_ names: [String]) {
        for name in Set(names) {
            let schemas = (try? query("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, '\(databaseSchema(name))')")
                .map { try $0.decode(String.self) }) ?? []
            for schema in schemas {
                // Tests run side by side, and two DROP ... CASCADE can deadlock on the catalog: try again.
                for attempt in 1...5 {
                    do {
                        try execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
                        break
                    } catch {
                        if attempt == 5 { print("could not drop the test schema \(schema): \(error)") }
                        Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
                    }
                }
            }
        }
    }
}
