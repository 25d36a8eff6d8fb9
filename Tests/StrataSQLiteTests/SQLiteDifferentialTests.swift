import Foundation
import StrataSQLite
import StrataTesting
import Testing

/// SQLiteStore answers random predicates and sorts exactly as Foundation does: where SQL
/// cannot, it hands the step back to the core rather than answer differently.
@Suite struct SQLiteDifferentialTests {
    @Test(arguments: DifferentialCheck.seeds)
    func agreesWithFoundation(seed: UInt64) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-differential-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try DifferentialCheck.run(seed: seed) { schema, name in
            ModelConfiguration(name, schema: schema, url: directory.appendingPathComponent("\(name).store"))
        }
    }
}
