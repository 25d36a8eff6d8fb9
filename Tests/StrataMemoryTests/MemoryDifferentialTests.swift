import Foundation
import StrataMemory
import StrataTesting
import Testing

/// MemoryStore answers random predicates and sorts exactly as Foundation does.
@Suite struct MemoryDifferentialTests {
    @Test(arguments: DifferentialCheck.seeds)
    func agreesWithFoundation(seed: UInt64) throws {
        try DifferentialCheck.run(seed: seed) { schema, name in MemoryStoreConfiguration(name: name, schema: schema) }
    }
}
