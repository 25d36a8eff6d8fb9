import Foundation
import StrataSQLite
import StrataTesting
import Testing

/// SQLiteStore runs the shared conformance suite, on disk and in memory.
@Suite struct SQLiteConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conformsOnDisk(to check: StoreConformance.Check) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-conformance-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try StoreConformance.run(
            check,
            makeReadOnlyConfiguration: { schema, name in
                ModelConfiguration(name, schema: schema, url: directory.appendingPathComponent("\(name).store"), allowsSave: false)
            }
        ) { schema, name in
            ModelConfiguration(name, schema: schema, url: directory.appendingPathComponent("\(name).store"))
        }
    }

    @Test(arguments: StoreConformance.checks)
    func conformsInMemory(to check: StoreConformance.Check) throws {
        // No read-only check: an in-memory database starts empty, so there is nothing to open read-only.
        try StoreConformance.run(check) { schema, name in
            ModelConfiguration(name, schema: schema, isStoredInMemoryOnly: true)
        }
    }
}
