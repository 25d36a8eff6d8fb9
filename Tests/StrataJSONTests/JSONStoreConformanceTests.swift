import Foundation
import StrataCore
import StrataJSON
import StrataTesting
import Testing

/// The store conformance suite, run against JSONStore with a fresh document per configuration.
@Suite struct JSONStoreConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: StoreConformance.Check) throws {
        let folder = try TemporaryFolder()
        try withExtendedLifetime(folder) {
            try StoreConformance.run(
                check,
                makeReadOnlyConfiguration: { schema, name in
                    JSONStoreConfiguration(name: name, schema: schema, url: folder.file("\(name).json"), allowsSave: false)
                }
            ) { schema, name in
                JSONStoreConfiguration(name: name, schema: schema, url: folder.file("\(name).json"))
            }
        }
    }
}
