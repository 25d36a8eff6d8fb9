import Foundation
import StrataCore
import StrataPostgres
import StrataTesting
import Testing

/// The store conformance suite, run against PostgresStore with a database schema of its own per store name.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: StoreConformance.Check) throws {
        let names = Locked<[String]>([])
        defer { PostgresTestServer.drop(names.value) }
        try StoreConformance.run(
            check,
            makeReadOnlyConfiguration: { schema, name in
                names.withLock { $0.append(name) }
                return PostgresTestServer.configuration(name, schema: schema, allowsSave: false)
            }
        ) { schema, name in
            names.withLock { $0.append(name) }
            return PostgresTestServer.configuration(name, schema: schema)
        }
    }
}
