import Foundation
import StrataCore
import Testing

/// The behaviour every data store shares, as named checks a store's tests run against it.
///
/// Each check opens its own container on a configuration the store's tests make, saves and
/// fetches through `ModelContext`, and records each unmet expectation as a Swift Testing
/// issue. Run every check as one argument of a parameterized test:
/// ```swift
/// @Suite struct MemoryStoreConformanceTests {
///     @Test(arguments: StoreConformance.checks)
///     func conforms(to check: StoreConformance.Check) throws {
///         try StoreConformance.run(check) { schema, name in MemoryStoreConfiguration(name: name, schema: schema) }
///     }
/// }
/// ```
public enum StoreConformance {
    /// Makes a configuration for a store under test that holds `schema`; `name` is unique per container.
    ///
    /// Every call gets a `name` no other call of the process gets, made of lowercase letters,
    /// digits and dashes, so a store may use it as a file name.
    public typealias MakeConfiguration = @Sendable (_ schema: Schema, _ name: String) throws -> any DataStoreConfiguration

    /// One named behavioural check.
    public struct Check: Sendable, Identifiable, CustomStringConvertible, CustomTestStringConvertible {
        /// What the check verifies, as a sentence: "every attribute type round-trips".
        public let name: String
        let body: @Sendable (ConformanceHarness) throws -> Void

        init(_ name: String, _ body: @escaping @Sendable (ConformanceHarness) throws -> Void) {
            self.name = name
            self.body = body
        }

        /// The check's name, which identifies it among ``StoreConformance/checks``.
        public var id: String { name }
        /// The check's name.
        public var description: String { name }
        /// The check's name, as test reports show the argument.
        public var testDescription: String { name }
    }

    /// Every check, in a stable order.
    public static var checks: [Check] {
        attributeChecks + relationshipChecks + deleteRuleChecks + uniquenessChecks + predicateChecks
            + sortChecks + windowChecks + batchDeleteChecks + batchedFetchChecks + identityChecks + concurrencyChecks + rollbackChecks
            + updateChecks
    }

    /// Builds the requests the core sends to a store, for the checks that call a store
    /// directly (lookups by identifier, partial updates, an entity the store does not hold).
    ///
    /// The requests' initialisers are internal to StrataCore, so a store's test target
    /// implements this with `@testable import StrataCore`:
    /// ```swift
    /// struct CoreRequests: StoreRequestFactory {
    ///     func saveRequest(inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot]) -> DataStoreSaveChangesRequest<DefaultSnapshot> {
    ///         DataStoreSaveChangesRequest(editingState: EditingState(), inserted: inserted, updated: updated, deleted: deleted)
    ///     }
    ///     func fetchRequest<T: PersistentModel>(_ type: T.Type, identifiers: [PersistentIdentifier]?) -> DataStoreFetchRequest<T> {
    ///         DataStoreFetchRequest(editingState: EditingState(), descriptor: FetchDescriptor<T>(), filter: .success(nil), sort: .success([]), identifiers: identifiers)
    ///     }
    /// }
    /// ```
    public protocol StoreRequestFactory: Sendable {
        /// A save of these snapshots.
        func saveRequest(
            inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot]
        ) -> DataStoreSaveChangesRequest<DefaultSnapshot>
        /// A fetch of every model of `type` with no filter, sort or window, or a lookup of `identifiers`.
        func fetchRequest<T: PersistentModel>(_ type: T.Type, identifiers: [PersistentIdentifier]?) -> DataStoreFetchRequest<T>
    }

    /// Runs one check against the store `makeConfiguration` opens, recording failures as Swift Testing issues.
    ///
    /// Checks that call the store directly run only when `requests` is given, and the
    /// read-only check only when `makeReadOnlyConfiguration` is: it must return a
    /// configuration that opens, with saves refused, the same store as `makeConfiguration`
    /// does for the same name.
    /// - Throws: What `makeConfiguration`, opening the container or an operation the check
    ///   needs to go on throws; unmet expectations are recorded as issues, not thrown.
    public static func run(
        _ check: Check, requests: (any StoreRequestFactory)? = nil, makeReadOnlyConfiguration: MakeConfiguration? = nil,
        makeConfiguration: MakeConfiguration
    ) throws {
        try withoutActuallyEscaping(makeConfiguration) { makeConfiguration in
            let harness = ConformanceHarness(
                check: check.name, makeConfiguration: makeConfiguration, contexts: ContextKeeper(), requests: requests,
                makeReadOnlyConfiguration: makeReadOnlyConfiguration)
            try check.body(harness)
        }
    }
}
