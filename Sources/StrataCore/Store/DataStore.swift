import Foundation

/// The description of one store: its name, the part of the schema it holds, and whatever
/// the store needs to open (a file, a connection string).
///
/// Pass configurations to ``ModelContainer``; each owns the entities of its ``schema``.
public protocol DataStoreConfiguration: Hashable {
    /// The store type this configuration opens.
    associatedtype Store: DataStore where Store.Configuration == Self

    /// The configuration's name, unique within a container.
    var name: String { get }

    /// The models this configuration holds; `nil` means every model of the container.
    var schema: Schema? { get set }

    /// Checks the configuration before a container opens its store.
    ///
    /// - Throws: An error naming what is wrong, such as an unusable file name.
    func validate() throws
}

extension DataStoreConfiguration {
    /// Accepts every configuration.
    public func validate() throws {}
}

/// A place where models are kept: a database, a document, memory.
///
/// A store receives requests as plain values and answers with snapshots. It may refuse a
/// predicate or a sort it cannot run by throwing ``DataStoreError/preferInMemoryFilter`` or
/// ``DataStoreError/preferInMemorySort``; the core then filters or sorts itself. Stores are
/// called from several contexts at once and must guard their own state.
public protocol DataStore: AnyObject {
    /// The configuration type that opens this store.
    associatedtype Configuration: DataStoreConfiguration where Configuration.Store == Self
    /// The snapshot type the store exchanges with contexts.
    associatedtype Snapshot: DataStoreSnapshot

    /// A string identifying this store in ``PersistentIdentifier/storeIdentifier``.
    var identifier: String { get }
    /// The entities this store holds.
    var schema: Schema { get }
    /// The configuration the store was opened with.
    var configuration: Configuration { get }

    /// Opens the store.
    ///
    /// - Throws: An error naming the file or resource that could not be opened.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws

    /// Returns the snapshots that match a fetch request.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   to let the core finish the request, or the store's own error.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>

    /// Applies inserts, updates and deletes in one transaction and reports new identifiers.
    ///
    /// - Throws: The store's error; nothing of the request is applied then.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>

    /// The number of models matching a fetch request.
    ///
    /// - Throws: As ``fetch(_:)``.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int

    /// The identifiers of the models matching a fetch request.
    ///
    /// - Throws: As ``fetch(_:)``.
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]

    /// Removes every model and the store's files.
    ///
    /// - Throws: The store's error.
    func erase() throws

    /// Called when a context starts using the store.
    func initializeState(for editingState: EditingState)

    /// Called when a context stops using the store.
    func invalidateState(for editingState: EditingState)

    /// Snapshots the store already holds in memory for the given identifiers.
    ///
    /// - Throws: The store's error.
    func cachedSnapshots(
        for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState
    ) throws -> [PersistentIdentifier: Snapshot]
}

extension DataStore {
    /// Counts by fetching.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try fetch(request).fetchedSnapshots.count
    }

    /// Lists identifiers by fetching.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
    }

    /// Refuses: a store that can erase itself implements this.
    public func erase() throws { throw DataStoreError.unsupportedFeature }

    /// Does nothing.
    public func initializeState(for editingState: EditingState) {}

    /// Does nothing.
    public func invalidateState(for editingState: EditingState) {}

    /// Knows of no cached snapshots.
    public func cachedSnapshots(
        for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState
    ) throws -> [PersistentIdentifier: Snapshot] { [:] }
}

/// A store that can delete every model matching a predicate without fetching them.
public protocol DataStoreBatching: DataStore {
    /// Deletes the models a batch-delete request selects.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` to let the core select the models,
    ///   or the store's error.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
}

/// A store whose batch delete says which models it deleted.
///
/// For a delete by predicate, the core must know the deleted models: the context forgets
/// them, ``ModelContext/didSave`` lists them and the container's other contexts drop them.
/// For a store that only adopts ``DataStoreBatching``, the core asks for the matching
/// identifiers first and then for the delete, two requests between which another process
/// can change what matches. A store that adopts this protocol reads the identifiers in the
/// delete's own transaction, so the list is exactly what the delete removed, and it can
/// read them more cheaply than a separate fetch.
public protocol DataStoreBatchDeleteListing: DataStoreBatching {
    /// Deletes the models a batch-delete request selects and returns their identifiers.
    ///
    /// - Returns: The identifier of every model the delete removed, each once.
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` to let the core select the models,
    ///   or the store's error; nothing is deleted then.
    func deleteListing<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws -> [PersistentIdentifier]
}

/// A store that writes only the properties an updated snapshot lists.
///
/// For such a store the core sends, in ``DataStoreSaveChangesRequest/updated``, snapshots
/// that hold just the properties that changed since the model was fetched or last saved;
/// a property the snapshot does not list keeps its stored value. The core builds these
/// snapshots from what the context holds, without loading anything: a relationship that
/// was never read is not part of the update. Stores that do not adopt this protocol receive
/// every property of the model, as SwiftData's `DataStore` API promises.
public protocol DataStorePartialUpdating: DataStore where Snapshot == DefaultSnapshot {}

/// A store that pages through a query by identifier: it runs the core's filter tree and
/// sort keys, and finds the models after a given identifier without reading those before it.
///
/// Such a store answers a request by its ``DataStoreFetchRequest/filter`` and
/// ``DataStoreFetchRequest/sortKeys`` (or throws ``DataStoreError/preferInMemoryFilter`` /
/// ``DataStoreError/preferInMemorySort``), applies the descriptor's window to that answer,
/// and has an index on its identifiers, so that `filter && persistentModelID > last`,
/// sorted by `persistentModelID` with a limit, reads about as many models as it returns.
/// ``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)`` of an unsorted
/// descriptor then reads one batch per such query, and never lists every identifier
/// first. Other stores are enumerated by listing the identifiers and looking up a batch at
/// a time. A store written to SwiftData's API, which reads only the predicate, must not
/// adopt this protocol: it would answer such a query with the wrong models.
public protocol DataStorePagingByIdentifier: DataStore {}

/// A store that notices commits it did not make: another process's, or another container's
/// opened on the same data.
///
/// Before a context fetches, the core asks for ``externalChangeCount()``. When it differs
/// from the last answer, every context of the container refreshes the models it registered
/// from the store (unchanged ones take the stored values, vanished ones read as deleted).
public protocol DataStoreExternalChangeDetecting: DataStore {
    /// A number that changes whenever someone other than this store commits to its data,
    /// and not for the store's own saves. It is only compared between calls.
    ///
    /// - Throws: The store's error; the core then assumes no change.
    func externalChangeCount() throws -> Int64
}

/// A store that hands over a fetch's snapshots one at a time, as it reads them.
///
/// For such a store the core makes each model as soon as its snapshot arrives, so a large
/// fetch never holds the list of every row's snapshot beside the models made from them
/// (for 100,000 rows, a 6 MiB array that lived until the last model was made).
///
/// The snapshots, their order, the related snapshots and the errors must be those
/// ``DataStore/fetch(_:)`` would give for the same request. A store may read everything
/// first and then call `body`, when a request needs it (relationships it loads afterwards,
/// for instance).
public protocol DataStoreStreaming: DataStore where Snapshot == DefaultSnapshot {
    /// Calls `body` with each snapshot that matches `request`, in the order ``DataStore/fetch(_:)``
    /// would return them, and returns the related snapshots that fetch would return.
    ///
    /// `body` runs while the store reads, and does not call the store. When it throws, the
    /// store stops reading and rethrows its error. A refusal (``DataStoreError/preferInMemoryFilter``,
    /// ``DataStoreError/preferInMemorySort``) comes before the first snapshot.
    ///
    /// - Throws: As ``DataStore/fetch(_:)``, or the error `body` threw.
    func fetch<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (DefaultSnapshot) throws -> Void
    ) throws -> [PersistentIdentifier: DefaultSnapshot]
}

/// A store that streams and can tell, from a fetch's own read, the count
/// ``DataStoreExternalChangeDetecting/externalChangeCount()`` would return.
///
/// For such a store, ``ModelContext/fetch(_:)`` does not ask for the count before the fetch;
/// it takes the one the fetch returns, after the rows are read, and refreshes the context
/// then if someone else committed. Adopt it when asking separately costs a read of its own
/// that the fetch's read can answer for less: SQLite compares the data version its reading
/// connection saw with the one it saw when it last asked the writer, and asks the writer
/// only when that moved.
public protocol DataStoreStreamingWithChangeCount: DataStoreStreaming, DataStoreExternalChangeDetecting {
    /// As ``DataStoreStreaming/fetch(_:each:)``, also returning the external change count as
    /// of the fetch's read.
    ///
    /// - Returns: The related snapshots, and the value ``DataStoreExternalChangeDetecting/externalChangeCount()``
    ///   returned, or would have returned, at some moment after the read began: a commit
    ///   the fetched snapshots show must have changed it. `nil` when the store cannot tell;
    ///   the core then asks ``DataStoreExternalChangeDetecting/externalChangeCount()``.
    /// - Throws: As ``DataStoreStreaming/fetch(_:each:)``.
    func fetchWithExternalChangeCount<T: PersistentModel>(
        _ request: DataStoreFetchRequest<T>, each body: (DefaultSnapshot) throws -> Void
    ) throws -> (relatedSnapshots: [PersistentIdentifier: DefaultSnapshot], externalChangeCount: Int64?)
}

/// A store that can describe how it would run a fetch, for ``ModelContext/explain(_:)``.
public protocol DataStoreExplaining: DataStore {
    /// How the store runs `request`: what it filters, sorts and windows itself (SQL, plans).
    ///
    /// - Throws: The store's error.
    func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String
}

/// One context's view of the stores: its identity and the author of its changes.
public struct EditingState: Identifiable, Sendable, Hashable {
    /// The identity of the context.
    public let id: UUID
    /// The author recorded with the context's saves.
    public var author: String?

    /// A new editing state.
    public init(id: UUID = UUID(), author: String? = nil) {
        self.id = id
        self.author = author
    }
}
