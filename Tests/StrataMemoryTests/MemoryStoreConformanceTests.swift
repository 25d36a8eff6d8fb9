import StrataCore
import StrataMemory
import StrataTesting
import Testing

/// The store conformance suite, run against MemoryStore.
@Suite struct MemoryStoreConformanceTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(to check: StoreConformance.Check) throws {
        try StoreConformance.run(
            check,
            makeReadOnlyConfiguration: { schema, name in MemoryStoreConfiguration(name: name, schema: schema, allowsSave: false) }
        ) { schema, name in
            MemoryStoreConfiguration(name: name, schema: schema)
        }
    }

    @Test func checksHaveDistinctSentenceNames() {
        let names = StoreConformance.checks.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.first?.isLowercase == true && !$0.hasSuffix(".") })
    }
}
