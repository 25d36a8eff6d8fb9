import Foundation
import StrataJSON
import StrataTesting
import Testing

/// JSONStore answers random predicates and sorts exactly as Foundation does.
@Suite struct JSONDifferentialTests {
    @Test(arguments: DifferentialCheck.seeds)
    func agreesWithFoundation(seed: UInt64) throws {
        let folder = try TemporaryFolder()
        try withExtendedLifetime(folder) {
            try DifferentialCheck.run(seed: seed) { schema, name in
                JSONStoreConfiguration(name: name, schema: schema, url: folder.file("\(name).json"))
            }
        }
    }
}
