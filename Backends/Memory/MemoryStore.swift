import Foundation
import StrataCore
import Synchronization

/// A thread-safe, pure-Swift store that holds snapshots in memory and runs filters, sorts
/// and windows on them directly, without building model objects.
///
/// It is the reference for the behaviour every store shares: StrataTesting's conformance
/// suite runs against it first.
public final class MemoryStore: DataStore, DataStoreBatching, DataStoreExplaining, @unchecked Sendable {
    /// The store's configuration.
    public let configuration: MemoryStoreConfiguration
    /// The models this store holds.
    public let schema: Schema
    /// A name unique to this store instance.
    public let identifier: String

    private struct Record {
        var order: Int64
        var snapshot: DefaultSnapshot
    }

    private struct State {
        var records: [PersistentIdentifier: Record] = [:]
        var nextKey: Int64 = 1
    }

    private let state = Mutex(State())

    /// Opens an empty store.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` when the configuration has no schema.
    public init(_ configuration: MemoryStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else { throw DataStoreError.unsupportedFeature }
        self.configuration = configuration
        self.schema = schema
        self.identifier = "memory-\(configuration.name)-\(UUID().uuidString.prefix(8))"
    }

    /// The snapshots of `T` matching the request, sorted and windowed.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   when the request has no store-neutral form, or an evaluation error.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: try select(request))
    }

    /// The number of snapshots matching the request's filter.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try select(request, sorted: false).count
    }

    /// The identifiers of the snapshots matching the request, in order.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try select(request).map(\.persistentIdentifier)
    }

    /// The matching snapshots, sorted unless `sorted` is `false` (for counting), then windowed.
    private func select<T: PersistentModel>(_ request: DataStoreFetchRequest<T>, sorted: Bool = true) throws -> [DefaultSnapshot] {
        let filter = try request.filter
        let keys = sorted ? try request.sortKeys : []
        let entityName = Schema.entityName(for: T.self)
        let records = state.withLock { $0.records }
        let evaluator = FilterEvaluator { records[$0]?.snapshot }
        var matches: [Record] = []
        if let identifiers = filter?.requestedIdentifiers {
            for id in identifiers { if let record = records[id], id.entityName == entityName { matches.append(record) } }
        } else {
            for record in records.values where record.snapshot.persistentIdentifier.entityName == entityName {
                if let filter, try !evaluator.matches(record.snapshot, filter) { continue }
                matches.append(record)
            }
        }
        matches.sort { $0.order < $1.order }
        return try evaluator.sortedWindow(
            matches.map(\.snapshot), by: keys, offset: request.descriptor.fetchOffset, limit: request.descriptor.fetchLimit)
    }

    /// Applies inserts, updates and deletes together, giving inserted models permanent identifiers.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` when an update or delete names a model
    ///   the store does not hold; nothing is applied then.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try state.withLock { state in
            var next = state
            var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
            for snapshot in request.inserted {
                let key = next.nextKey
                next.nextKey += 1
                remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(
                    for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: key)
            }
            for snapshot in request.inserted {
                let id = remapped[snapshot.persistentIdentifier]!
                let key = id.primaryKey(as: Int64.self) ?? 0
                next.records[id] = Record(order: key, snapshot: snapshot.copy(persistentIdentifier: id, remappedIdentifiers: remapped))
            }
            for snapshot in request.updated {
                guard let existing = next.records[snapshot.persistentIdentifier] else { throw DataStoreError.unsupportedFeature }
                next.records[snapshot.persistentIdentifier] = Record(
                    order: existing.order,
                    snapshot: snapshot.copy(persistentIdentifier: snapshot.persistentIdentifier, remappedIdentifiers: remapped))
            }
            for snapshot in request.deleted {
                guard next.records.removeValue(forKey: snapshot.persistentIdentifier) != nil else {
                    throw DataStoreError.unsupportedFeature
                }
            }
            state = next
            return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
        }
    }

    /// Deletes every model of `T` the request's filter selects.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no store-neutral form.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let filter = try request.filter
        let entityName = Schema.entityName(for: T.self)
        try state.withLock { state in
            let records = state.records
            let evaluator = FilterEvaluator { records[$0]?.snapshot }
            for (id, record) in records where id.entityName == entityName {
                if let filter, try !evaluator.matches(record.snapshot, filter) { continue }
                state.records[id] = nil
            }
        }
    }

    /// Says that the filter, sort and window run on snapshots, or why the store refuses them.
    public func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String {
        var parts: [String] = []
        switch Result(catching: { try request.filter }) {
        case .success(nil): parts.append("MemoryStore scans every \(Schema.entityName(for: T.self)) snapshot")
        case .success: parts.append("MemoryStore evaluates the filter on each \(Schema.entityName(for: T.self)) snapshot")
        case .failure: parts.append("MemoryStore refuses the filter (no store-neutral form); the core filters in memory")
        }
        if (try? request.sortKeys) == nil { parts.append("refuses the sort; the core sorts in memory") }
        return parts.joined(separator: "; ")
    }

    /// Removes every model.
    public func erase() throws {
        state.withLock { $0 = State() }
    }
}
