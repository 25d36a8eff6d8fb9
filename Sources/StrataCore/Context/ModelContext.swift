import Foundation

/// A workspace of models: it fetches them from the container's stores, tracks inserts,
/// changes and deletes, and saves them back.
///
/// A context holds one live object per identifier and is not thread-safe: use one context
/// per thread or actor, and pass ``PersistentIdentifier``s between them.
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Kyoto", destination: "Japan", startDate: start, endDate: end))
/// try context.save()
/// ```
public final class ModelContext: Equatable {
    /// The notification posted before a context saves; its object is the context.
    public static let willSave = Notification.Name("StrataModelContextWillSave")
    /// The notification posted after a context saves; its object is the context and its
    /// user info holds the identifiers under ``NotificationKey`` keys.
    public static let didSave = Notification.Name("StrataModelContextDidSave")

    /// The keys of ``didSave``'s user info.
    public enum NotificationKey: String, Sendable {
        /// The query generation (unused by Strata; kept for SwiftData compatibility).
        case queryGeneration
        /// Present when every identifier was invalidated, as after ``ModelContainer/erase()``.
        case invalidatedAllIdentifiers
        /// `[PersistentIdentifier]` of inserted models (their permanent identifiers).
        case insertedIdentifiers
        /// `[PersistentIdentifier]` of updated models.
        case updatedIdentifiers
        /// `[PersistentIdentifier]` of deleted models.
        case deletedIdentifiers
        /// In ``ModelContext/didSave``: the history token after the save, a ``HistoryToken``.
        /// With the built-in stores it is one ``DefaultHistoryToken`` naming each store the
        /// save wrote; it is absent when no store that saved keeps history.
        case historyTokens
    }

    /// The container whose stores this context reads and writes.
    public var container: ModelContainer {
        switch containerLink {
        case .owned(let container):
            return container
        case .main(let weak):
            if let container = weak.container { return container }
            // The app let go of the container but still uses its main context.
            let revived = ModelContainer(core: core)
            containerLink = .owned(revived)
            return revived
        }
    }
    /// Whether the context saves by itself after changes, as ``autosavePolicy`` says.
    ///
    /// `true` for ``ModelContainer/mainContext``, whose autosave runs on the main actor;
    /// contexts you create are `false` and save when you call ``save()``.
    @exclusivity(unchecked) public var autosaveEnabled = false
    /// When autosave saves: shortly after changes rest, and periodically while they keep coming.
    public var autosavePolicy = AutosavePolicy()
    /// The undo manager that records this context's changes; `nil`, the default, records none.
    ///
    /// With one, the context registers the reverse of every insert, delete and property
    /// change, including the other side of a relationship it keeps in step, so
    /// `undoManager.undo()` and `redo()` restore values and relationships exactly. The
    /// changes made between two calls of ``processPendingChanges()`` (or ``save()``) form
    /// one undo group. ``rollback()`` empties the undo manager. Set it to `nil` during large
    /// imports. ``ModelContainer/isUndoEnabled`` gives the main context one.
    @exclusivity(unchecked) public var undoManager: UndoManager? {
        // Unchecked for exclusivity, as the identity map below is: every insert reads it,
        // and the dynamic check cost two runtime calls (about 80 instructions) each time.
        willSet { if newValue !== undoManager { closeUndoEventGroup() } }
    }
    // Unchecked for exclusivity, as `registered` is: every fetch reads it, and only `author`
    // changes it.
    /// The context's identity and author, as stores see them.
    @exclusivity(unchecked) public private(set) var editingState: EditingState

    /// The author recorded with this context's saves.
    public var author: String? {
        get { editingState.author }
        set { editingState.author = newValue }
    }

    /// The container's stores and routing, which every context keeps alive.
    let core: ContainerCore
    private var containerLink: ContainerLink
    let inbox = ContextInbox()
    /// How the backing data of this context's models refers to it (see ``ContextReference``).
    let reference = ContextReference()
    var isMainContext: Bool { if case .main = containerLink { true } else { false } }
    var autosaveScheduled = false
    /// Counts changes, so autosave can tell whether more came while it waited.
    var autosaveChangeCount = 0

    // The identity map and the change sets below are unchecked for exclusivity, as a model's
    // slots are: every insert, change and save touches them several times per model, the
    // dynamic check cost two runtime calls per access (about 80 instructions), and a context
    // is used from one thread at a time, with no access to them overlapping another.

    /// The models this context registered, owned by it.
    @exclusivity(unchecked) var registered = IdentityMap()
    /// The layout of the model type inserted or fetched last: an import inserts one type
    /// after another. Kept beside ``ModelLayout/of(_:)``'s own memo of the last layout, whose
    /// atomic read and call cost an insert about 48 instructions more; and that memo is shared
    /// by every thread. Unchecked for exclusivity, as ``registered`` is: the dynamic check
    /// cost two runtime calls per look.
    @exclusivity(unchecked) private var lastLayout: (type: ObjectIdentifier, layout: ModelLayout)?
    /// The store and run-time description of the entity looked up last, by name: the
    /// container's tables hash the name at every look (about 340 instructions each), and a
    /// fetch looks up both; the next one mostly asks for the same entity.
    @exclusivity(unchecked) private var lastStore: (entityName: String, store: StoreBox)?
    @exclusivity(unchecked) private var lastRuntime: (entityName: String, runtime: EntityRuntime)?
    /// Backing data that holds its owner strongly (see ``ManagedData/keepOwnerAlive()``);
    /// released with the context, which breaks that cycle.
    var ownersKeptAlive: [ManagedData] = []
    /// The models inserted since the last save.
    @exclusivity(unchecked) var inserted = ModelSet(tracksLayouts: true)
    /// The registered models changed since the last save.
    @exclusivity(unchecked) var changed = ModelSet(tracksLayouts: true)
    /// The models deleted since the last save.
    @exclusivity(unchecked) var deleted = ModelSet()
    /// Whether a relationship or property ever failed to load in this context: until one
    /// does, a save need not look for changes that would overwrite one (see
    /// ``ManagedData/failedFaultSlots``).
    var mayHoldFailedFaults = false
    // Unchecked for exclusivity, as `registered` is: every fetch reads both, and the
    // dynamic check cost two runtime calls (about 115 instructions) each time.
    /// Deletes by predicate that run in the store at the next save.
    @exclusivity(unchecked) var pendingBatchDeletes: [PendingBatchDelete] = []
    /// Snapshots a store returned alongside a fetch, used to resolve faults without a trip.
    @exclusivity(unchecked) var knownSnapshots: [PersistentIdentifier: DefaultSnapshot] = [:]
    /// Set while the context updates the other side of a relationship, so that update does not recurse.
    var maintainingInverses = false
    /// Set while the context changes models on its own behalf (a save), so nothing is recorded for undo.
    var suspendsUndoRegistration = false

    /// Creates a context for `container`.
    public convenience init(_ container: ModelContainer) {
        self.init(core: container.core, link: .owned(container))
    }

    /// Creates the main context of `container`, which does not keep its container alive.
    convenience init(mainContextOf container: ModelContainer) {
        self.init(core: container.core, link: .main(WeakContainer(container)))
    }

    private init(core: ContainerCore, link: ContainerLink) {
        self.core = core
        self.containerLink = link
        self.editingState = EditingState()
        reference.context = self
        core.register(self)
        for store in core.stores { store.initializeState(for: editingState) }
    }

    /// The layout of `type`, through ``lastLayout``.
    func layout(of type: any PersistentModel.Type) -> ModelLayout {
        let key = ObjectIdentifier(type)
        if let lastLayout, lastLayout.type == key { return lastLayout.layout }
        let layout = ModelLayout.of(type)
        lastLayout = (key, layout)
        return layout
    }

    /// The store that holds `entityName`, through ``lastStore``.
    ///
    /// - Throws: As ``ContainerCore/store(for:)``.
    func store(for entityName: String) throws -> StoreBox {
        if let lastStore, lastStore.entityName == entityName { return lastStore.store }
        let store = try core.store(for: entityName)
        lastStore = (entityName, store)
        return store
    }

    /// The run-time description of `entityName`, through ``lastRuntime``.
    ///
    /// - Throws: As ``ContainerCore/runtime(for:)``.
    func runtime(for entityName: String) throws -> EntityRuntime {
        if let lastRuntime, lastRuntime.entityName == entityName { return lastRuntime.runtime }
        let runtime = try core.runtime(for: entityName)
        lastRuntime = (entityName, runtime)
        return runtime
    }

    deinit {
        // Models hold their context weakly, so they already see it gone; break the cycles
        // between related models so the graph is freed with the context. Only models of
        // classes with relationships can be in one, so only those are read: touching every
        // model a large fetch made, long out of the cache, was a measurable part of it.
        let holding = core.storageEntitiesHoldingModels
        if !holding.isEmpty {
            registered.forEachModel(ofEntitiesWhere: holding.contains) { model in
                // A model whose storage keeps no slot apart and has no extras holds no
                // loaded relationship (those are kept apart) and no change tracking, so it
                // holds no other model; and its context reference already reads `nil`. A
                // prefetched graph's destinations are mostly such models.
                guard let data = model.managedData, data.storage.holdsMoreThanValues else { return }
                data.release(keepingIdentifiers: false)
            }
        }
        for data in ownersKeptAlive { data.release(keepingIdentifiers: false) }
        for store in core.stores { store.invalidateState(for: editingState) }
    }

    public static func == (lhs: ModelContext, rhs: ModelContext) -> Bool { lhs === rhs }

    // MARK: State

    /// Whether the context has inserts, changes or deletes that are not saved.
    public var hasChanges: Bool {
        !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty || !pendingBatchDeletes.isEmpty
    }

    /// The models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { inserted.models }
    /// The registered models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { changed.models }
    /// The models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { deleted.models }

    /// Applies changes other contexts saved, notices stores another process changed
    /// (refreshing the registered models of those), and closes the undo group of the
    /// changes made since the last call (see ``undoManager``).
    public func processPendingChanges() {
        catchUp()
        closeUndoEventGroup()
    }

    // MARK: Insert and delete

    /// Inserts a model and every model reachable from it through relationships.
    ///
    /// Inserting a model that is already registered does nothing. The model keeps a
    /// temporary identifier until the next save.
    public func insert<T: PersistentModel>(_ model: T) {
        applyInbox()
        var added: [any PersistentModel] = []
        adopt(model, collecting: &added)
        for model in added { linkInverses(ofInserted: model) }
        scheduleAutosave()
    }

    /// Marks a model for deletion at the next save, when its delete rules apply.
    public func delete<T: PersistentModel>(_ model: T) {
        applyInbox()
        guard let data = managedAny(model) else { return }
        guard !data.isDeleted else { return }
        data.isDeleted = true
        deleted.insert(model, data)
        registerUndo { $0.undoDelete(model) }
        scheduleAutosave()
    }

    /// Runs `block`, then saves.
    ///
    /// - Throws: What `block` or ``save()`` throws; on a throw from `block` nothing is saved.
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    /// Discards unsaved inserts, changes and deletes, restoring changed models' saved values,
    /// and empties the ``undoManager``.
    public func rollback() {
        undoManager?.removeAllActions()
        for model in inserted.models {
            guard let data = managedAny(model) else { continue }
            if let id = data.identifier { registered.remove(id) }
            data.detach()
        }
        for model in changed.models + deleted.models {
            managedAny(model)?.restoreOriginal()
        }
        inserted = ModelSet(tracksLayouts: true)
        changed = ModelSet(tracksLayouts: true)
        deleted = ModelSet()
        pendingBatchDeletes = []
        knownSnapshots = [:]
    }

    // MARK: Lookup

    /// The registered model with `persistentModelID`, if this context holds it.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        applyInbox()
        return registered[persistentModelID] as? T
    }

    /// The model with `persistentModelID`: the registered one, or one fetched from its store.
    ///
    /// When no store holds it, returns a model of the identifier's type whose attributes
    /// are unset, as SwiftData does; reading them is a programming error. Prefer
    /// ``registeredModel(for:)`` or a fetch when the model may not exist.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        applyInbox()
        if let model = registered[persistentModelID] { return model }
        do {
            return try existingModel(for: persistentModelID)
        } catch {
            StrataLog.logger.error("model(for:) found no model \(persistentModelID): \(error)")
        }
        let type = (try? core.modelType(for: persistentModelID.entityName)) ?? UnknownModel.self
        return makePlaceholder(type, persistentModelID)
    }
}

/// How a context refers to its container: strongly, or weakly for the main context, which
/// its container keeps.
enum ContainerLink {
    case owned(ModelContainer)
    case main(WeakContainer)
}

/// A weak reference to a container.
struct WeakContainer {
    weak var container: ModelContainer?
    init(_ container: ModelContainer) { self.container = container }
}

/// An insertion-ordered set of a context's models, each kept with its backing data.
///
/// A save walks the members with their data, so it does not find each model's data again
/// behind its `any BackingData` (a class cast and a weak load, about 250 instructions, which
/// the save paid four or five times per model). The index by identity, for removing one
/// model or testing membership, is built at the first such call and kept from then on: a
/// context that only adds models and empties the set at its save, the common case, never
/// hashes a member.
///
/// A removed member's place holds ``removed`` until the set compacts, so that the storage
/// is an array of members a save can take as it is (``storageIfWhole``). The sets of inserts
/// and of changes note the layouts of the models they were given (``layouts``), so that a
/// save finds the stores of its inserts and updates without reading each one's data.
struct ModelSet: Sequence {
    /// A member: the model and its backing data.
    struct Member {
        let model: any PersistentModel
        let data: ManagedData
    }

    /// What the place of a removed member holds: a model of no entity and its backing data,
    /// made once and never a member.
    nonisolated(unsafe) private static let removed: Member = {
        let data = ManagedBackingData<UnknownModel>(storage: SlotStorage(capacity: 0), identifier: nil, reference: nil, layout: ModelLayout.of(UnknownModel.self))
        return Member(model: UnknownModel(backingData: data), data: data)
    }()

    private var storage: [Member] = []
    private var memberCount = 0
    private var index: [ObjectIdentifier: Int]?
    /// Whether the set notes ``layouts``: the sets of inserts and of changes do.
    private let tracksLayouts: Bool
    /// With ``tracksLayouts``, the layout of every model the set was given, each once, in the
    /// order first given (removing models leaves theirs); otherwise empty.
    private(set) var layouts: [ModelLayout] = []
    /// The last layout noted: models come in runs of one class.
    private var lastLayout: ObjectIdentifier?

    init(tracksLayouts: Bool = false) {
        self.tracksLayouts = tracksLayouts
    }

    /// Whether no place holds a removed member's marker.
    private var isWhole: Bool { memberCount == storage.count }

    /// The data of the removed members' places, `nil` while there are none: the marker is
    /// then not looked at (nor made, in a process that never removes a member).
    private var removedData: ManagedData? { isWhole ? nil : Self.removed.data }

    var isEmpty: Bool { memberCount == 0 }
    var count: Int { memberCount }
    var models: [any PersistentModel] {
        let removed = removedData
        return storage.compactMap { $0.data === removed ? nil : $0.model }
    }

    /// The members in order, as the set keeps them, when none was removed: shared, not copied.
    var storageIfWhole: [Member]? { isWhole ? storage : nil }

    /// The members in order, read in place: walking them makes no array.
    struct Iterator: IteratorProtocol {
        fileprivate var positions: IndexingIterator<[Member]>
        fileprivate let removed: ManagedData?

        mutating func next() -> Member? {
            while let member = positions.next() {
                if member.data !== removed { return member }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(positions: storage.makeIterator(), removed: removedData) }

    mutating func contains(_ model: any PersistentModel) -> Bool {
        buildIndex()
        return index![ObjectIdentifier(model)] != nil
    }

    /// Adds `model`, whose backing data in this context is `data`, unless it is a member.
    mutating func insert(_ model: any PersistentModel, _ data: ManagedData) {
        let key = ObjectIdentifier(model)
        // One hash for a new member; a member already there gets its position back.
        buildIndex()
        if let position = index!.updateValue(storage.count, forKey: key) {
            index![key] = position
            return
        }
        append(Member(model: model, data: data))
    }

    /// Adds `model`, which the caller knows is not a member (its data's flag says so), without
    /// a lookup unless the index exists already.
    mutating func insertNew(_ model: any PersistentModel, _ data: ManagedData) {
        assert(index.map { $0[ObjectIdentifier(model)] == nil } ?? true, "insertNew of a member")
        index?[ObjectIdentifier(model)] = storage.count
        append(Member(model: model, data: data))
    }

    private mutating func append(_ member: Member) {
        if tracksLayouts { noteLayout(of: member.data) }
        storage.append(member)
        memberCount += 1
    }

    private mutating func noteLayout(of data: ManagedData) {
        let layout = ObjectIdentifier(data.layout)
        guard layout != lastLayout else { return }
        lastLayout = layout
        if !layouts.contains(where: { ObjectIdentifier($0) == layout }) { layouts.append(data.layout) }
    }

    /// Removes `members`, each a member listed once; when they are every member (a save's
    /// inserts or changes, all in one store), the set is emptied at once rather than model
    /// by model.
    mutating func remove(_ members: [Member]) {
        if members.count == count {
            self = ModelSet(tracksLayouts: tracksLayouts)
        } else {
            for member in members { remove(member.model) }
        }
    }

    mutating func remove(_ model: any PersistentModel) {
        guard !isEmpty else { return }
        buildIndex()
        guard let position = index!.removeValue(forKey: ObjectIdentifier(model)) else { return }
        storage[position] = Self.removed
        memberCount -= 1
        if storage.count > 64 && memberCount < storage.count / 2 { compact() }
    }

    /// Builds the index by identity, at its first use.
    private mutating func buildIndex() {
        guard index == nil else { return }
        var built: [ObjectIdentifier: Int] = [:]
        built.reserveCapacity(memberCount)
        let removed = removedData
        for (position, member) in storage.enumerated() where member.data !== removed {
            built[ObjectIdentifier(member.model)] = position
        }
        index = built
    }

    private mutating func compact() {
        let removed = Self.removed.data
        storage = storage.filter { $0.data !== removed }
        index = nil
    }
}
