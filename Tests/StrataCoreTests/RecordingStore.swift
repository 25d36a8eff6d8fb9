import Foundation
import Strata
import StrataMemory
@_spi(StoreTesting) import StrataCore

/// What a ``RecordingStore`` saw, and the failures it is told to produce.
final class StoreControls: Sendable {
    struct State {
        var fetches = 0
        var saves: [DataStoreSaveChangesRequest<DefaultSnapshot>] = []
        var batchDeletes = 0
        var failingSaves = 0
        var failingFetches = false
        var openContexts = 0
        var isClosed = false
        /// When not empty, a fetch that prefetches sends every stored model of these types
        /// along as related snapshots, as the WWDC24 session's JSONStore sends all it has.
        var relatedTypes: [any PersistentModel.Type] = []
    }

    let state = Locked(State())

    var fetches: Int { state.withLock { $0.fetches } }
    var saves: [DataStoreSaveChangesRequest<DefaultSnapshot>] { state.withLock { $0.saves } }
    var openContexts: Int { state.withLock { $0.openContexts } }
    var batchDeletes: Int { state.withLock { $0.batchDeletes } }
    var isClosed: Bool { state.withLock { $0.isClosed } }

    func failNextSaves(_ count: Int) { state.withLock { $0.failingSaves = count } }
    func failFetches(_ fail: Bool) { state.withLock { $0.failingFetches = fail } }
    func resetFetches() { state.withLock { $0.fetches = 0 } }
    func sendRelated(_ types: [any PersistentModel.Type]) { state.withLock { $0.relatedTypes = types } }
}

/// The error a ``RecordingStore`` throws when told to fail.
struct InjectedFailure: Error, Equatable {}

struct RecordingStoreConfiguration: DataStoreConfiguration {
    typealias Store = RecordingStore
    var name: String
    var schema: Schema?
    let controls: StoreControls

    init(name: String, schema: Schema? = nil, controls: StoreControls) {
        self.name = name
        self.schema = schema
        self.controls = controls
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name && lhs.controls === rhs.controls }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A store written to SwiftData's `DataStore` API that keeps its models in a MemoryStore,
/// records the requests it gets, and fails when told to: the core's tests use it to see
/// what a save or a fetch sent, and how the core behaves when a store fails.
final class RecordingStore: DataStore, @unchecked Sendable {
    let configuration: RecordingStoreConfiguration
    let inner: MemoryStore
    var identifier: String { inner.identifier }
    var schema: Schema { inner.schema }

    init(_ configuration: RecordingStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        inner = try MemoryStore(MemoryStoreConfiguration(name: configuration.name, schema: configuration.schema), migrationPlan: nil)
    }

    deinit { configuration.controls.state.withLock { $0.isClosed = true } }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let fails = configuration.controls.state.withLock { state in
            state.fetches += 1
            return state.failingFetches
        }
        if fails { throw InjectedFailure() }
        let result = try inner.fetch(request)
        let relatedTypes = configuration.controls.state.withLock { $0.relatedTypes }
        guard !relatedTypes.isEmpty, !request.descriptor.relationshipKeyPathsForPrefetching.isEmpty else { return result }
        var related: [PersistentIdentifier: DefaultSnapshot] = [:]
        for type in relatedTypes {
            for snapshot in try stored(type) { related[snapshot.persistentIdentifier] = snapshot }
        }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: result.fetchedSnapshots, relatedSnapshots: related)
    }

    private func stored<M: PersistentModel>(_ type: M.Type) throws -> [DefaultSnapshot] {
        try inner.fetch(DataStoreFetchRequest(editingState: EditingState(), descriptor: FetchDescriptor<M>(), filter: .success(nil), sort: .success([])))
            .fetchedSnapshots
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let fails = configuration.controls.state.withLock { state in
            state.saves.append(request)
            guard state.failingSaves > 0 else { return false }
            state.failingSaves -= 1
            return true
        }
        if fails { throw InjectedFailure() }
        return try inner.save(request)
    }

    func initializeState(for editingState: EditingState) { configuration.controls.state.withLock { $0.openContexts += 1 } }
    func invalidateState(for editingState: EditingState) { configuration.controls.state.withLock { $0.openContexts -= 1 } }
}

/// A ``RecordingStore`` that also deletes by predicate (``DataStoreBatching``), counting the batches.
final class BatchingRecordingStore: DataStoreBatching, @unchecked Sendable {
    struct Configuration: DataStoreConfiguration {
        typealias Store = BatchingRecordingStore
        var recording: RecordingStoreConfiguration
        var name: String { recording.name }
        var schema: Schema? {
            get { recording.schema }
            set { recording.schema = newValue }
        }
    }

    let configuration: Configuration
    let recording: RecordingStore
    var identifier: String { recording.identifier }
    var schema: Schema { recording.schema }

    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        recording = try RecordingStore(configuration.recording, migrationPlan: migrationPlan)
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try recording.fetch(request)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try recording.save(request)
    }

    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        configuration.recording.controls.state.withLock { $0.batchDeletes += 1 }
        try recording.inner.delete(request)
    }

    func initializeState(for editingState: EditingState) { recording.initializeState(for: editingState) }
    func invalidateState(for editingState: EditingState) { recording.invalidateState(for: editingState) }
}
