import Foundation
import StrataCore
import Synchronization

/// A thread-safe, pure-Swift store that holds snapshots in memory and runs filters, sorts
/// and windows on them directly, without building model objects.
///
/// It is the reference for the behaviour every store shares: StrataTesting's conformance
/// suite runs against it first. Updates may list only the changed properties
/// (``DataStorePartialUpdating``); the others keep their stored values.
public final class MemoryStore: DataStore, DataStoreBatching, HistoryProviding, DataStoreExplaining, DataStorePartialUpdating, @unchecked Sendable {
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
        var history = HistoryLog()
    }

    private let state = Locked(State())

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

    /// The matching snapshots, sorted unless `sorted` is `false` (for counting), then windowed;
    /// for a lookup by identifier, the held ones in the requested order.
    private func select<T: PersistentModel>(_ request: DataStoreFetchRequest<T>, sorted: Bool = true) throws -> [DefaultSnapshot] {
        let entityName = try heldEntityName(T.self)
        let records = state.withLock { $0.records }
        if let identifiers = request.identifiers {
            var seen = Set<PersistentIdentifier>()
            return identifiers.compactMap { id in
                guard id.entityName == entityName, seen.insert(id).inserted else { return nil }
                return records[id]?.snapshot
            }
        }
        let filter = try request.filter
        let keys = sorted ? try request.sortKeys : []
        let evaluator = FilterEvaluator { records[$0]?.snapshot }
        // The entity's records found by their identifiers' shared scope, compared by address
        // (each entity name copied out and compared cost about 30 instructions a record), and
        // the filter unwrapped once: bound per record, it was copied and dropped for each.
        let template = try PersistentIdentifier.identifier(for: identifier, entityName: entityName, primaryKey: 0)
        var matches: [Record] = []
        if let filter {
            for record in records.values where record.snapshot.persistentIdentifier.isOfSameEntity(as: template) {
                if try evaluator.matches(record.snapshot, filter) { matches.append(record) }
            }
        } else {
            for record in records.values where record.snapshot.persistentIdentifier.isOfSameEntity(as: template) { matches.append(record) }
        }
        matches.sort { $0.order < $1.order }
        return try evaluator.sortedWindow(
            matches.map(\.snapshot), by: keys, offset: request.descriptor.fetchOffset, limit: request.descriptor.fetchLimit)
    }

    /// The entity name of `type`, when this store holds it.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` otherwise.
    private func heldEntityName<T: PersistentModel>(_ type: T.Type) throws -> String {
        let entityName = Schema.entityName(for: type)
        try checkHeld(entityName)
        return entityName
    }

    private func checkHeld(_ entityName: String) throws {
        guard schema.entitiesByName[entityName] != nil else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the memory store \(configuration.name) holds no entity \(entityName)")
        }
    }

    /// Applies inserts, updates and deletes together, giving inserted models permanent identifiers.
    ///
    /// An updated snapshot may list only some properties; the others keep their values.
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` configuration,
    ///   ``SwiftDataError/modelValidationFailure`` when an update or delete names a model the
    ///   store does not hold, ``SwiftDataError/configurationSchemaNotFoundInContainerSchema``
    ///   for a model of an entity it does not hold; nothing is applied then.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        if request.inserted.isEmpty && request.updated.isEmpty && request.deleted.isEmpty {
            return DataStoreSaveChangesResult(for: identifier)
        }
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        return try state.withLock { state in
            var next = state
            // The permanent identifiers in the order of the inserts.
            var permanent: [PersistentIdentifier] = []
            permanent.reserveCapacity(request.inserted.count)
            // An identifier of the last entity seen, whose key each new one replaces: making each
            // from the names looks their scope up (a lock and the hash of two strings).
            var template: PersistentIdentifier?
            for snapshot in request.inserted {
                let entityName = snapshot.persistentIdentifier.entityName
                if template?.entityName != entityName {
                    try checkHeld(entityName)
                    template = try PersistentIdentifier.identifier(for: identifier, entityName: entityName, primaryKey: 0)
                }
                permanent.append(template!.replacingPrimaryKey(next.nextKey))
                next.nextKey += 1
            }
            var remapping = SaveRemapping(inserted: request.inserted, permanent: permanent)
            var recorder = HistoryRecorder()
            for (snapshot, id) in zip(request.inserted, permanent) {
                let key = id.primaryKey(as: Int64.self) ?? 0
                next.records[id] = Record(order: key, snapshot: remapping.copy(snapshot, as: id))
                recorder.insert(id.entityName, key: key)
            }
            for snapshot in request.updated {
                let id = snapshot.persistentIdentifier
                guard let existing = next.records[id] else { throw missingModel(id) }
                let changes = remapping.copy(snapshot, as: id)
                next.records[id] = Record(order: existing.order, snapshot: Self.merge(changes, into: existing.snapshot))
                recorder.update(id.entityName, key: existing.order, properties: snapshot.propertyNames)
            }
            for snapshot in request.deleted {
                let id = snapshot.persistentIdentifier
                guard let removed = next.records.removeValue(forKey: id) else { throw missingModel(id) }
                recordDelete(removed, into: &recorder)
            }
            let token = next.history.append(
                recorder, author: request.editingState.author, storeIdentifier: identifier, retention: configuration.historyRetention)
            state = next
            return DataStoreSaveChangesResult(for: identifier, request: request, insertedIdentifiers: permanent, historyToken: token)
        }
    }

    private func recordDelete(_ record: Record, into recorder: inout HistoryRecorder) {
        let id = record.snapshot.persistentIdentifier
        guard configuration.historyRetention.isEnabled, let entity = schema.entitiesByName[id.entityName] else { return }
        recorder.delete(id.entityName, key: record.order, tombstone: HistoryRecorder.tombstone(of: entity) { record.snapshot[$0] })
    }

    // MARK: History

    /// The transactions of the saves `descriptor` selects, from the store's memory.
    ///
    /// - Throws: The predicate's evaluation error.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try state.withLock { $0.history }.fetch(descriptor, storeIdentifier: identifier, schema: schema)
    }

    /// Forgets the transactions `descriptor` selects.
    ///
    /// - Throws: The predicate's evaluation error.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try state.withLock { try $0.history.delete(descriptor, storeIdentifier: identifier, schema: schema) }
    }

    /// `stored` with the values `changes` lists; properties `changes` does not list, or that
    /// the entity does not have, leave `stored` as it was.
    static func merge(_ changes: DefaultSnapshot, into stored: DefaultSnapshot) -> DefaultSnapshot {
        if changes.propertyNames == stored.propertyNames { return changes }
        var merged = stored
        for (name, value) in zip(changes.propertyNames, changes.values) {
            guard let index = stored.propertyNames.firstIndex(of: name) else { continue }
            merged[index: index] = value
        }
        return merged
    }

    private func missingModel(_ id: PersistentIdentifier) -> SwiftDataError {
        SwiftDataError.modelValidationFailure.with(
            details: "the memory store \(configuration.name) holds no model \(id); nothing was saved")
    }

    /// Deletes every model of `T` the request's filter selects.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no store-neutral
    ///   form, ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` configuration.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let filter = try request.filter
        let entityName = try heldEntityName(T.self)
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        try state.withLock { state in
            let records = state.records
            let evaluator = FilterEvaluator { records[$0]?.snapshot }
            var doomed: [Record] = []
            for (id, record) in records where id.entityName == entityName {
                if let filter, try !evaluator.matches(record.snapshot, filter) { continue }
                doomed.append(record)
            }
            var recorder = HistoryRecorder()
            for record in doomed.sorted(by: { $0.order < $1.order }) {
                state.records[record.snapshot.persistentIdentifier] = nil
                recordDelete(record, into: &recorder)
            }
            _ = state.history.append(
                recorder, author: request.editingState.author, storeIdentifier: identifier, retention: configuration.historyRetention)
        }
    }

    /// Says that the filter, sort and window run on snapshots, or why the store refuses them.
    public func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String {
        var parts: [String] = []
        if let identifiers = request.identifiers {
            return "MemoryStore looks up \(identifiers.count) \(Schema.entityName(for: T.self)) snapshot(s) by identifier"
        }
        switch Result(catching: { try request.filter }) {
        case .success(nil): parts.append("MemoryStore scans every \(Schema.entityName(for: T.self)) snapshot")
        case .success: parts.append("MemoryStore evaluates the filter on each \(Schema.entityName(for: T.self)) snapshot")
        case .failure: parts.append("MemoryStore refuses the filter (no store-neutral form); the core filters in memory")
        }
        if (try? request.sortKeys) == nil { parts.append("refuses the sort; the core sorts in memory") }
        return parts.joined(separator: "; ")
    }

    /// Removes every model.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` configuration.
    public func erase() throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        state.withLock { state in
            // Tokens from before the erase expire: the transaction numbers go on from where they were.
            let next = state.history.nextTransaction
            state = State(history: HistoryLog(nextTransaction: next, horizon: next - 1))
        }
    }
}
