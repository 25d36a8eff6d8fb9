import Foundation
import StrataCore
import StrataPostgres
import StrataTesting
import Testing

/// PostgresStore answers random predicates and sorts exactly as Foundation does: where SQL
/// cannot, it hands the step back to the core rather than answer differently.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresDifferentialTests {
    @Test(arguments: DifferentialCheck.seeds)
    func agreesWithFoundation(seed: UInt64) throws {
        let names = Locked<[String]>([])
        defer { PostgresTestServer.drop(names.value) }
        try DifferentialCheck.run(seed: seed) { schema, name in
            let unique = "\(name)-\(seed)"
            names.withLock { $0.append(unique) }
            return PostgresTestServer.configuration(unique, schema: schema)
        }
    }
}
