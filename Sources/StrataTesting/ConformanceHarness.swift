import Foundation
@_spi(StoreTesting) import StrataCore

/// What a check gets to work with: fresh containers on the store under test.
struct ConformanceHarness: Sendable {
    /// The name of the running check.
    let check: String
    let makeConfiguration: StoreConformance.MakeConfiguration
    /// The contexts the check made, kept alive until it ends: models refer to their context weakly.
    let contexts: ContextKeeper
    /// Builds the requests the core sends, for checks that call the store directly.
    let requests = CoreRequests()
    /// Makes a read-only configuration of the store `makeConfiguration` makes for a name; `nil` skips the read-only check.
    var makeReadOnlyConfiguration: StoreConformance.MakeConfiguration? = nil

    /// A new container holding `types` (and the models they relate to) in one new store.
    ///
    /// - Throws: What the configuration factory or the container throws.
    func container(for types: any PersistentModel.Type...) throws -> ModelContainer {
        let schema = Schema(types)
        let configuration = try makeConfiguration(schema, Self.uniqueName(for: check))
        return try ModelContainer(for: schema, configurations: [configuration])
    }

    /// A new container holding `types` in the store named `name`, read-only when `readOnly` is set.
    ///
    /// - Throws: What the configuration factory or the container throws.
    func container(for types: [any PersistentModel.Type], named name: String, readOnly: Bool) throws -> ModelContainer {
        let schema = Schema(types)
        let make = readOnly ? makeReadOnlyConfiguration ?? makeConfiguration : makeConfiguration
        return try ModelContainer(for: schema, configurations: [try make(schema, name)])
    }

    /// A store holding `types`, opened directly rather than through a container.
    ///
    /// - Throws: What the configuration factory or the store's initialiser throws.
    func store(for types: any PersistentModel.Type...) throws -> any DataStore {
        let configuration = try makeConfiguration(Schema(types), Self.uniqueName(for: check))
        try configuration.validate()
        return try Self.open(configuration)
    }

    private static func open<C: DataStoreConfiguration>(_ configuration: C) throws -> any DataStore {
        try C.Store(configuration, migrationPlan: nil)
    }

    /// A new context of `container` that lives as long as the check.
    func context(_ container: ModelContainer) -> ModelContext {
        let context = ModelContext(container)
        contexts.keep(context)
        return context
    }

    private static let counter = Counter()

    /// A name for one configuration: the check's name as a slug, a process-wide counter and a random part.
    static func uniqueName(for check: String) -> String {
        var slug = ""
        for character in check.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                slug.append(character)
            } else if !slug.hasSuffix("-") {
                slug.append("-")
            }
        }
        slug = String(slug.prefix(40))
        while slug.hasSuffix("-") { slug.removeLast() }
        let random = UUID().uuidString.prefix(8).lowercased()
        return "conformance-\(slug)-\(counter.next())-\(random)"
    }
}

/// Holds the contexts of one check until the check ends.
///
/// Only the check's own thread touches the contexts it holds.
final class ContextKeeper: @unchecked Sendable {
    private var contexts: [ModelContext] = []

    func keep(_ context: ModelContext) { contexts.append(context) }
}

/// A thread-safe increasing number.
final class Counter: Sendable {
    private let count = Locked(0)

    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}

/// The requests the core sends to a store, built the way the core builds them.
struct CoreRequests: Sendable {
    /// A save of these snapshots.
    func saveRequest(
        inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot]
    ) -> DataStoreSaveChangesRequest<DefaultSnapshot> {
        DataStoreSaveChangesRequest(editingState: EditingState(), inserted: inserted, updated: updated, deleted: deleted)
    }

    /// A fetch of every model of `type` with no filter, sort or window, or a lookup of
    /// `identifiers`: a store that ignored `identifiers` would return every model.
    func fetchRequest<T: PersistentModel>(_ type: T.Type, identifiers: [PersistentIdentifier]?) -> DataStoreFetchRequest<T> {
        DataStoreFetchRequest(
            editingState: EditingState(), descriptor: FetchDescriptor<T>(), filter: .success(nil), sort: .success([]),
            identifiers: identifiers)
    }
}
