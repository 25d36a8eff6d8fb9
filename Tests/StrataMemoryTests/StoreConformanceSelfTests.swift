import Foundation
import StrataCore
import StrataMemory
import StrataTesting
import Testing

/// A store with one deliberate fault, to show the conformance suite notices it.
///
/// It keeps its models in a `MemoryStore` and damages what fetches return.
final class FaultyStore: DataStore {
    enum Fault: Hashable, Sendable {
        case none
        /// Returns sorted results in reverse order.
        case reversesSorts
        /// Cuts every string to its first three characters.
        case truncatesStrings
        /// Returns every result twice.
        case duplicatesResults
    }

    let configuration: FaultyStoreConfiguration
    let schema: Schema
    private let inner: MemoryStore
    var identifier: String { inner.identifier }

    init(_ configuration: FaultyStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        inner = try MemoryStore(MemoryStoreConfiguration(name: configuration.name, schema: configuration.schema), migrationPlan: migrationPlan)
        schema = inner.schema
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let result = try inner.fetch(request)
        var snapshots = result.fetchedSnapshots
        switch configuration.fault {
        case .none:
            break
        case .reversesSorts:
            if try !request.sortKeys.isEmpty { snapshots.reverse() }
        case .truncatesStrings:
            snapshots = snapshots.map(Self.truncatingStrings)
        case .duplicatesResults:
            snapshots += snapshots
        }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots, relatedSnapshots: result.relatedSnapshots)
    }

    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
    }

    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try inner.fetchCount(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try inner.save(request)
    }

    private static func truncatingStrings(_ snapshot: DefaultSnapshot) -> DefaultSnapshot {
        var copy = snapshot
        for index in copy.values.indices {
            if case .string(let text) = copy[index: index] { copy[index: index] = .string(String(text.prefix(3))) }
        }
        return copy
    }
}

/// Opens a ``FaultyStore``.
struct FaultyStoreConfiguration: DataStoreConfiguration {
    typealias Store = FaultyStore
    var name: String
    var schema: Schema?
    var fault: FaultyStore.Fault
}

/// The conformance suite catches stores that break its rules, and passes a correct wrapper.
@Suite struct StoreConformanceSelfTests {
    static let cases: [(FaultyStore.Fault, String)] = [
        (.reversesSorts, "sorting orders numbers and dates both ways"),
        (.reversesSorts, "limit and offset window sorted results"),
        (.truncatesStrings, "every attribute type round-trips"),
        (.truncatesStrings, "string predicates match"),
        (.duplicatesResults, "comparison predicates select the right models"),
        (.duplicatesResults, "counts and identifiers match fetch"),
    ]

    static func check(named name: String) throws -> StoreConformance.Check {
        try #require(StoreConformance.checks.first { $0.name == name }, "no check is named \"\(name)\"")
    }

    @Test(arguments: 0..<cases.count)
    func faultIsCaught(_ index: Int) throws {
        let (fault, name) = Self.cases[index]
        let check = try Self.check(named: name)
        withKnownIssue("\(fault) must fail \"\(name)\"") {
            try StoreConformance.run(check) { schema, name in FaultyStoreConfiguration(name: name, schema: schema, fault: fault) }
        }
    }

    @Test(arguments: Set(cases.map(\.1)).sorted())
    func faultlessWrapperPasses(_ name: String) throws {
        try StoreConformance.run(try Self.check(named: name)) { schema, name in
            FaultyStoreConfiguration(name: name, schema: schema, fault: .none)
        }
    }
}
