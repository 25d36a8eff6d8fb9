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
            + updateChecks + migrationChecks + historyChecks + inheritanceChecks
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
        _ check: Check, makeReadOnlyConfiguration: MakeConfiguration? = nil,
        makeConfiguration: MakeConfiguration
    ) throws {
        try withoutActuallyEscaping(makeConfiguration) { makeConfiguration in
            let harness = ConformanceHarness(
                check: check.name, makeConfiguration: makeConfiguration, contexts: ContextKeeper(),
                makeReadOnlyConfiguration: makeReadOnlyConfiguration)
            try check.body(harness)
        }
    }
}
