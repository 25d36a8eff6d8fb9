import Foundation

/// A fetch as a store receives it: the descriptor, and the core's translation of its
/// predicate and sort into store-neutral form.
public struct DataStoreFetchRequest<T: PersistentModel>: @unchecked Sendable {
    /// The context making the request.
    public let editingState: EditingState
    /// The models to look up by identifier, in the order wanted, or `nil` for a query.
    ///
    /// When set, the store returns the snapshots of those of these models it holds, in
    /// this order, and may ignore ``filter``, the sort and the window: the core asks this
    /// way to resolve faults and prefetch relationships. A store that does not read this
    /// field still answers correctly: ``filter`` then selects the same models
    /// (see ``FilterExpression/requestedIdentifiers``) and the core keeps only those it asked for.
    public let identifiers: [PersistentIdentifier]?

    let translatedFilter: Result<FilterExpression?, SwiftDataError>
    let translatedSort: Result<[FilterSortKey], SwiftDataError>
    /// The names to load when the core fetches part of a subclass, whose key paths the
    /// root type's descriptor cannot hold.
    var propertyNameOverride: [String]?
    // Declared last, as the predicate is in the descriptor: its layout depends on `T`, and in
    // code compiled once for every model type each read of a property declared after it
    // asked the runtime for the request's type metadata.
    /// The fetch as the app described it.
    public let descriptor: FetchDescriptor<T>

    /// Creates the request the core sends; for test suites that call a store directly
    /// (`@_spi(StoreTesting) import StrataCore`), such as StrataTesting's conformance checks.
    @_spi(StoreTesting)
    public init(
        editingState: EditingState, descriptor: FetchDescriptor<T>,
        filter: Result<FilterExpression?, SwiftDataError>, sort: Result<[FilterSortKey], SwiftDataError>,
        identifiers: [PersistentIdentifier]? = nil
    ) {
        self.editingState = editingState
        self.descriptor = descriptor
        self.translatedFilter = filter
        self.translatedSort = sort
        self.identifiers = identifiers
    }

    /// The predicate as a filter tree, or `nil` when every model matches.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no
    ///   store-neutral form; rethrow it and the core filters in memory.
    public var filter: FilterExpression? {
        get throws {
            switch translatedFilter {
            case .success(let filter): return filter
            case .failure: throw DataStoreError.preferInMemoryFilter
            }
        }
    }

    /// The sort descriptors as store-neutral keys, empty when unsorted.
    ///
    /// - Throws: ``DataStoreError/preferInMemorySort`` when a descriptor has no store-neutral
    ///   form; rethrow it and the core sorts in memory.
    public var sortKeys: [FilterSortKey] {
        get throws {
            switch translatedSort {
            case .success(let keys): return keys
            case .failure: throw DataStoreError.preferInMemorySort
            }
        }
    }

    /// The names of the properties to load; empty means all. Besides `propertiesToFetch`,
    /// it names the attributes whose values can only be checked, or transformed, when loaded
    /// with the row.
    public var propertyNamesToFetch: [String] {
        if let propertyNameOverride { return propertyNameOverride }
        if descriptor.propertiesToFetch.asAnyKeyPaths.isEmpty { return [] }
        return ModelLayout.of(T.self).propertyNames(toFetch: descriptor.propertiesToFetch)
    }
}

/// The answer to a fetch: matching snapshots, and related ones the store chose to include.
public struct DataStoreFetchResult<T: PersistentModel, SnapshotType: DataStoreSnapshot>: @unchecked Sendable {
    /// The fetch this answers.
    public let descriptor: FetchDescriptor<T>
    /// The matching snapshots, in order.
    public let fetchedSnapshots: [SnapshotType]
    /// Snapshots of related models, by identifier.
    public let relatedSnapshots: [PersistentIdentifier: SnapshotType]

    /// Creates a result.
    public init(
        descriptor: FetchDescriptor<T>, fetchedSnapshots: [SnapshotType],
        relatedSnapshots: [PersistentIdentifier: SnapshotType] = [:]
    ) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}

/// The changes of one save for one store.
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// The context saving.
    public let editingState: EditingState
    /// New models; their identifiers are temporary.
    public let inserted: [SnapshotType]
    /// Changed models. For a store that adopts ``DataStorePartialUpdating``, each snapshot
    /// lists only the properties that changed; otherwise it holds all the model's values.
    public let updated: [SnapshotType]
    /// Deleted models, with their last values.
    public let deleted: [SnapshotType]

    /// Creates the request the core sends; for test suites that call a store directly
    /// (`@_spi(StoreTesting) import StrataCore`), such as StrataTesting's conformance checks.
    @_spi(StoreTesting)
    public init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

/// What a store reports after a save: permanent identifiers for inserted models, and
/// snapshots the context should take over (for values the store changed).
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// The store that saved.
    public let storeIdentifier: String
    /// Temporary identifiers of inserted models mapped to their permanent ones.
    public var remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] {
        guard let inOrder = insertedIdentifiers else { return remapped }
        return orderedRemapping.withLock { built in
            if let built { return built }
            let made = Dictionary(zip(insertedSnapshots.lazy.map(\.persistentIdentifier), inOrder), uniquingKeysWith: { _, last in last })
            built = made
            return made
        }
    }
    private let remapped: [PersistentIdentifier: PersistentIdentifier]
    /// The permanent identifier of each of the request's inserts, in the order the request
    /// listed them, when the store reported them so: the context then takes them by position
    /// instead of hashing every temporary identifier twice (once to build the map, once to
    /// read it). ``remappedIdentifiers`` is made from them at its first read.
    package let insertedIdentifiers: [PersistentIdentifier]?
    /// The request's inserts, whose temporary identifiers ``remappedIdentifiers`` maps.
    private let insertedSnapshots: [T]
    private let orderedRemapping = Locked<[PersistentIdentifier: PersistentIdentifier]?>(nil)
    /// Snapshots whose values the context should adopt, by (permanent) identifier.
    public let snapshotsToReregister: [PersistentIdentifier: T]
    /// The token of the history transaction the save recorded, or `nil` when the store keeps
    /// no history; ``ModelContext/didSave`` passes it on as ``ModelContext/NotificationKey/historyTokens``.
    public let historyToken: (any HistoryToken)?

    /// Creates a result.
    public init(
        for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
        snapshotsToReregister: [PersistentIdentifier: T] = [:], historyToken: (any HistoryToken)? = nil
    ) {
        self.storeIdentifier = storeIdentifier
        self.remapped = remappedIdentifiers
        self.insertedIdentifiers = nil
        self.insertedSnapshots = []
        self.snapshotsToReregister = snapshotsToReregister
        self.historyToken = historyToken
    }

    /// Creates a result that lists the permanent identifier of each insert of `request` in
    /// the request's order.
    ///
    /// - Precondition: `insertedIdentifiers` has one identifier per inserted snapshot.
    package init(
        for storeIdentifier: String, request: DataStoreSaveChangesRequest<T>, insertedIdentifiers: [PersistentIdentifier],
        historyToken: (any HistoryToken)?
    ) {
        precondition(insertedIdentifiers.count == request.inserted.count, "one permanent identifier per insert")
        self.storeIdentifier = storeIdentifier
        self.remapped = [:]
        self.insertedIdentifiers = insertedIdentifiers
        self.insertedSnapshots = request.inserted
        self.snapshotsToReregister = [:]
        self.historyToken = historyToken
    }
}

/// A request to delete every model of a type that matches a predicate.
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: @unchecked Sendable {
    /// The context deleting.
    public let editingState: EditingState
    /// The models to delete; `nil` deletes all of the type.
    public let predicate: Predicate<T>?
    /// Whether subclasses' models are included.
    public let includeSubclasses: Bool

    let translatedFilter: Result<FilterExpression?, SwiftDataError>

    init(editingState: EditingState, predicate: Predicate<T>?, includeSubclasses: Bool, filter: Result<FilterExpression?, SwiftDataError>) {
        self.editingState = editingState
        self.predicate = predicate
        self.includeSubclasses = includeSubclasses
        self.translatedFilter = filter
    }

    /// The predicate as a filter tree, or `nil` to delete all.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no store-neutral form.
    public var filter: FilterExpression? {
        get throws {
            switch translatedFilter {
            case .success(let filter): return filter
            case .failure: throw DataStoreError.preferInMemoryFilter
            }
        }
    }
}
