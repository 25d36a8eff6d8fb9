import Foundation
import StrataCore
import StrataPostgres
import StrataTesting
import Testing

/// The store conformance suite, run against PostgresStore with a database schema of its own per store name.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresConformanceTests {
    /// The checks of what PostgresStore does not do yet: migration plans, which need
    /// `DataStoreMigrating` (a working copy in a database schema of its own, renamed into
    /// place in one transaction) and lightweight renames through `originalName`. Each is run
    /// and must fail; one that passes is reported, so the list cannot outlive the gap.
    static let notYetSupported: Set<String> = [
        "a migration plan runs its stages in order, keeps renamed data and rolls back",
        "a migration that fails leaves the data and its version as they were",
        "an entity and a relationship renamed through originalName keep their data and links",
    ]

    @Test(arguments: StoreConformance.checks)
    func conforms(to check: StoreConformance.Check) throws {
        if Self.notYetSupported.contains(check.name) {
            withKnownIssue("PostgresStore has no migration plans yet (issue K)") { try run(check) }
        } else {
            try run(check)
        }
    }

    private func run(_ check: StoreConformance.Check) throws {
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
