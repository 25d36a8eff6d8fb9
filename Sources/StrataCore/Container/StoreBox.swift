import Foundation

/// One opened store of a container with its snapshot type erased: the core talks to every
/// store through this box in ``DefaultSnapshot``s.
///
/// Stores whose `Snapshot` is ``DefaultSnapshot`` pass snapshots through untouched; other
/// snapshot types are converted through their `Codable` form.
final class StoreBox: @unchecked Sendable {
    let store: any DataStore
    let identifier: String
    let configurationName: String
    let entityNames: Set<String>

    /// The store as a detector of other processes' commits, cast once: every fetch asks it.
    private let externalChangeDetector: (any DataStoreExternalChangeDetecting)?
    /// The store as one that hands over snapshots as it reads them, cast once.
    private let streaming: (any DataStoreStreaming)?
    /// The store as one that also tells the external change count of a streamed fetch, cast once.
    private let streamingWithChangeCount: (any DataStoreStreamingWithChangeCount)?
    /// The store as one that lists prefetched destinations in order, cast once.
    private let streamingRelatedInOrder: (any DataStoreStreamingRelatedInOrder)?
    /// The store's batch deletes, cast once: a first cast of a store type to a protocol
    /// searches every conformance record of the process (about a million instructions for a
    /// delete's few casts), which is better paid when the container opens than in a save.
    private let batching: (any DataStoreBatching)?
    private let batchDeleteListing: (any DataStoreBatchDeleteListing)?
    /// Whether the store takes bare identifiers for deletes and only the changed values of
    /// updates (``DataStorePartialUpdating``), cast once.
    let updatesPartially: Bool
    /// Whether the store pages by identifier (``DataStorePagingByIdentifier``), cast once.
    let pagesByIdentifier: Bool

    init(store: any DataStore, configurationName: String, entityNames: Set<String>) {
        self.store = store
        self.identifier = store.identifier
        self.configurationName = configurationName
        self.entityNames = entityNames
        self.externalChangeDetector = store as? any DataStoreExternalChangeDetecting
        self.streaming = store as? any DataStoreStreaming
        self.streamingWithChangeCount = store as? any DataStoreStreamingWithChangeCount
        self.streamingRelatedInOrder = store as? any DataStoreStreamingRelatedInOrder
        self.batching = store as? any DataStoreBatching
        self.batchDeleteListing = store as? any DataStoreBatchDeleteListing
        self.updatesPartially = store is any DataStorePartialUpdating
        self.pagesByIdentifier = store is any DataStorePagingByIdentifier
    }

    var supportsBatchDelete: Bool { batching != nil }
    var listsBatchDeletes: Bool { batchDeleteListing != nil }

    /// The last ``DataStoreExternalChangeDetecting/externalChangeCount()`` seen.
    private let lastExternalChangeCount = Locked<Int64?>(nil)

    /// Whether the store tells the external change count of a streamed fetch
    /// (``DataStoreStreamingWithChangeCount``): a fetch then notices after reading.
    var countsExternalChangesInFetches: Bool { streamingWithChangeCount != nil }

    /// Whether someone other than this store committed since the last call; the first call
    /// only takes note.
    ///
    /// - Parameter reported: The count a fetch returned (``DataStoreStreamingWithChangeCount``);
    ///   when `nil`, the store is asked.
    func noticeExternalChange(reported: Int64? = nil) -> Bool {
        guard let detecting = externalChangeDetector else { return false }
        let count: Int64
        if let reported {
            count = reported
        } else {
            do {
                count = try detecting.externalChangeCount()
            } catch {
                StrataLog.logger.error("\(identifier) could not tell whether another process changed it: \(error)")
                return false
            }
        }
        return lastExternalChangeCount.withLock { last in
            defer { last = count }
            return last.map { $0 != count } ?? false
        }
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> (
        snapshots: [DefaultSnapshot], related: [PersistentIdentifier: DefaultSnapshot]
    ) {
        try Self.fetch(store, request)
    }

    private static func fetch<S: DataStore, T: PersistentModel>(_ store: S, _ request: DataStoreFetchRequest<T>) throws -> (
        snapshots: [DefaultSnapshot], related: [PersistentIdentifier: DefaultSnapshot]
    ) {
        let result = try store.fetch(request)
        if S.Snapshot.self == DefaultSnapshot.self {
            // The same types: taken as they are (`as?` on a generic array copies and casts
            // every element, which cost a retain per value of every fetched row).
            return (
                unsafeBitCast(result.fetchedSnapshots, to: [DefaultSnapshot].self),
                unsafeBitCast(result.relatedSnapshots, to: [PersistentIdentifier: DefaultSnapshot].self)
            )
        }
        return (
            try result.fetchedSnapshots.map(SnapshotConversion.toDefault),
            try result.relatedSnapshots.mapValues(SnapshotConversion.toDefault)
        )
    }

    /// Whether the store hands over snapshots as it reads them (``DataStoreStreaming``).
    var streams: Bool { streaming != nil }

    /// Calls `body` with each snapshot `request` selects, as the store reads it, and returns
    /// the related snapshots (prefetched destinations listed in order when the store lists
    /// them, ``DataStoreStreamingRelatedInOrder``) with the external change count as of the
    /// read, when the store tells it (``DataStoreStreamingWithChangeCount``); `nil`, calling
    /// nothing, for a store that does not stream. `body` may take each snapshot's values.
    ///
    /// - Throws: The store's error, or the error `body` threw.
    func fetch<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (inout DefaultSnapshot) throws -> Void
    ) throws -> (related: RelatedSnapshots, externalChangeCount: Int64?)? {
        if let streamingRelatedInOrder {
            return try streamingRelatedInOrder.fetchRelatedInOrder(request, each: body)
        }
        // A store of the public protocols lends each snapshot.
        func lent(_ snapshot: DefaultSnapshot) throws {
            var snapshot = snapshot
            try body(&snapshot)
        }
        if let streamingWithChangeCount {
            let result = try streamingWithChangeCount.fetchWithExternalChangeCount(request, each: lent)
            return (RelatedSnapshots(result.relatedSnapshots), result.externalChangeCount)
        }
        return try streaming.map { (RelatedSnapshots(try $0.fetch(request, each: lent)), nil) }
    }

    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try store.fetchCount(request)
    }

    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try store.fetchIdentifiers(request)
    }

    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        guard let batching else { throw DataStoreError.unsupportedFeature }
        try batching.delete(request)
    }

    /// Runs a batch delete and returns what it deleted, read in the delete's transaction;
    /// `nil` for a store that does not list its batch deletes (``DataStoreBatchDeleteListing``).
    func deleteListing<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws -> [PersistentIdentifier]? {
        guard let listing = batchDeleteListing else { return nil }
        return try listing.deleteListing(request)
    }

    /// Saves changes captured as ``DefaultSnapshot``s, converted to the store's own snapshot type.
    ///
    /// - Throws: The store's error, or an error converting a snapshot.
    func save(
        editingState: EditingState, inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot]
    ) throws -> SaveResult {
        try Self.save(store, editingState, inserted, updated, deleted)
    }

    /// What a store's save returned, in the core's terms.
    struct SaveResult {
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        /// The permanent identifiers of the inserts in the order they were sent, when the
        /// store listed them so (then `remapped` is empty).
        var insertedInOrder: [PersistentIdentifier]?
        var reregister: [PersistentIdentifier: DefaultSnapshot] = [:]
        var historyToken: (any HistoryToken)?
    }

    private static func save<S: DataStore>(
        _ store: S, _ editingState: EditingState, _ inserted: [DefaultSnapshot], _ updated: [DefaultSnapshot],
        _ deleted: [DefaultSnapshot]
    ) throws -> SaveResult {
        func converted(_ snapshots: [DefaultSnapshot]) throws -> [S.Snapshot] {
            if S.Snapshot.self == DefaultSnapshot.self { return unsafeBitCast(snapshots, to: [S.Snapshot].self) }
            return try snapshots.map { try SnapshotConversion.from($0) }
        }
        let request = DataStoreSaveChangesRequest<S.Snapshot>(
            editingState: editingState, inserted: try converted(inserted), updated: try converted(updated),
            deleted: try converted(deleted))
        let result = try store.save(request)
        let reregister = try result.snapshotsToReregister.mapValues(SnapshotConversion.toDefault)
        if let inOrder = result.insertedIdentifiers {
            return SaveResult(insertedInOrder: inOrder, reregister: reregister, historyToken: result.historyToken)
        }
        return SaveResult(remapped: result.remappedIdentifiers, reregister: reregister, historyToken: result.historyToken)
    }

    func erase() throws { try store.erase() }
    func initializeState(for state: EditingState) { store.initializeState(for: state) }
    func invalidateState(for state: EditingState) { store.invalidateState(for: state) }
}

/// Converts between ``DefaultSnapshot`` and a store's own snapshot type through their `Codable` form.
enum SnapshotConversion {
    static func from<S: DataStoreSnapshot>(_ snapshot: DefaultSnapshot) throws -> S {
        if let same = snapshot as? S { return same }
        let data = try JSONEncoder().encode(snapshot)
        return try JSONDecoder().decode(S.self, from: data)
    }

    static func toDefault<S: DataStoreSnapshot>(_ snapshot: S) throws -> DefaultSnapshot {
        if let snapshot = snapshot as? DefaultSnapshot { return snapshot }
        let data = try JSONEncoder().encode(snapshot)
        return try JSONDecoder().decode(DefaultSnapshot.self, from: data)
    }
}
