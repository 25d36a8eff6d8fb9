import Foundation

/// One slot of a registered model's backing data.
enum ManagedSlot {
    case loaded(BackingValue)
    case toOneFault(PersistentIdentifier)
    case toManyFault([PersistentIdentifier])
    /// Not fetched yet (`propertiesToFetch`); reading it loads the model's full snapshot.
    case unloaded
}

/// A context as the backing data of its models refer to it: one object per context, which
/// holds it weakly, so a model whose context is gone reads its ``PersistentModel/modelContext``
/// as `nil`.
///
/// Each backing data holds this object strongly instead of holding the context weakly:
/// forming a weak reference to an object (in its side table) cost about 120 instructions,
/// and destroying it about 70 more, for every model a context made or registered. A strong
/// reference to an object without a side table costs a retain and a release.
final class ContextReference {
    weak var context: ModelContext?
}

/// The context's view of a model's backing data, with the model type erased: values in
/// slots, relationships kept as faults until first read, and change tracking.
///
/// A new model's backing data is one of these from the start, with no context
/// (``isUnadopted``): the context that inserts the model takes it over in place, where a
/// separate detached backing data cost an insert a second object, the first one's free and
/// the move of its values (about 640 instructions a model, issue I).
///
/// A class rather than a protocol so that finding it behind a model's `any BackingData` is a
/// class cast, a walk up the superclass chain. A cast to a protocol looked the conformance up
/// in the runtime's cache, about 320 instructions, and the context does it several times for
/// every model it inserts or saves.
@usableFromInline
class ManagedData {
    /// The model's slots.
    ///
    /// Unchecked for exclusivity: every read and write of a model's values goes through it,
    /// the dynamic check cost two runtime calls per access, and the slots are only touched
    /// by the context's own thread, with no access overlapping another.
    @exclusivity(unchecked) var storage: SlotStorage
    /// The model's identifier, temporary until its first save; unchecked for exclusivity, as
    /// ``storage`` is.
    @exclusivity(unchecked) var identifier: PersistentIdentifier?
    // Whether the next save inserts, updates or deletes the model; unchecked for
    // exclusivity, as `storage` is. Declared right after the identifier, whose 17 bytes
    // leave room for them before the next 8-byte field: with the change tracking kept in
    // the storage's extras, the backing data of a model that was only read is 88 bytes
    // (its slots kept apart included), a 96-byte allocation (it was 104, in 112).
    @exclusivity(unchecked) var isInserted = false
    @exclusivity(unchecked) var isChanged = false
    @usableFromInline @exclusivity(unchecked) var isDeleted = false
    /// Whether these values belong to a new model that no context took yet: they were made
    /// for it, and the first context to insert it adopts them in place, so they have no
    /// context while this is set. Fits beside the three flags above, so the object does not grow.
    @exclusivity(unchecked) var isUnadopted = false
    /// The context's ``ModelContext/reference``, `nil` once the model leaves the context.
    ///
    /// Not a weak reference to the context itself: each one took the context's side table,
    /// about 200 instructions to form and destroy per model a context makes or registers.
    var contextReference: ContextReference?

    /// The context that tracks these values, `nil` once the model left it or it is gone.
    var context: ModelContext? { contextReference?.context }

    /// The model type's layout, kept so hot paths need no type-to-layout lookup.
    ///
    /// Strong, though every layout lives as long as the process: held `unowned(unsafe)`, each
    /// read of it retained and released it, which cost an update's save more (+2.3%) than
    /// leaving the count alone at making and freeing each model saved.
    let layout: ModelLayout

    /// Takes the context's reference rather than the context: an initializer's argument is
    /// passed retained, and a retain of the context goes through its side table.
    init(storage: SlotStorage, identifier: PersistentIdentifier?, reference: ContextReference?, layout: ModelLayout) {
        self.storage = storage
        self.identifier = identifier
        self.contextReference = reference
        self.layout = layout
    }

    /// Backing data for a new model, with room for `capacity` values.
    init(unadoptedWithCapacity capacity: Int, layout: ModelLayout) {
        self.storage = SlotStorage(capacity: capacity)
        self.identifier = nil
        self.contextReference = nil
        self.layout = layout
        self.isUnadopted = true
    }

    /// The entity's name.
    var entityName: String { layout.entityName }

    /// The model these values belong to, while a context tracks them.
    var ownerModel: (any PersistentModel)? { nil }

    /// The slot `slot`, as stored: a fault stays a fault.
    subscript(slot slot: Int) -> ManagedSlot {
        get { storage[slot] }
        set { storage[slot] = newValue }
    }

    /// The number of slots.
    var slotCount: Int { storage.count }

    /// What a slot that cannot be loaded reads as: `nil` for a to-one relationship, an
    /// empty collection for a to-many one, and unset for an attribute.
    func unresolvedValue(at slot: Int) -> BackingValue {
        switch storage[slot] {
        case .loaded(let value): return value
        case .toOneFault: return .toOne(nil)
        case .toManyFault:
            guard let type = layout.collectionType(at: slot) else { return .unset }
            return .toMany(RelationshipEditing.make(type, []))
        case .unloaded: return .unset
        }
    }

    /// Puts `value` in `slot` as a change, without the setter's relationship upkeep: the
    /// undo or redo of a change the context recorded slot by slot.
    func restore(_ value: ManagedSlot, at slot: Int) {
        recordChange(at: slot)
        storage[slot] = value
    }

    /// Notes a change of `slot`, keeping its saved value at its first change since a save or
    /// fetch; `old` is that value when the caller read it already.
    fileprivate func recordChange(at slot: Int, old: ManagedSlot? = nil) {
        let tracking = tracked
        recordOriginal(at: slot, in: tracking, old: old)
        tracking.changedSlots.insert(slot)
    }

    /// Keeps the saved value of `slot` for a rollback, unless it changed already since the
    /// last save or fetch (or the model was never saved). Only changed slots are kept: a copy
    /// of every slot at the first change was a copy of the whole array per changed model.
    func recordOriginal(at slot: Int) {
        recordOriginal(at: slot, in: tracked)
    }

    private func recordOriginal(at slot: Int, in tracking: ManagedExtras, old: ManagedSlot? = nil) {
        guard !isInserted, slot < storage.count, !tracking.changedSlots.contains(slot), !tracking.hasOriginal(of: slot) else { return }
        tracking.addOriginal(old ?? storage[slot], of: slot)
    }

    /// What tracks changes, made at the first change (see ``ManagedExtras``): a fetched
    /// model that is only read (most of them) has none.
    fileprivate var tracking: ManagedExtras? { storage.extras }

    /// The change tracking, made when first needed.
    fileprivate var tracked: ManagedExtras { storage.extrasMaking() }

    /// Slots set since the model was fetched or last saved.
    var changedSlots: SlotSet {
        get { tracking?.changedSlots ?? [] }
        set { if !newValue.isEmpty || tracking != nil { tracked.changedSlots = newValue } }
    }

    /// Slots whose relationship fault failed to load; a save that would overwrite one refuses.
    var failedFaultSlots: SlotSet {
        get { tracking?.failedFaultSlots ?? [] }
        set { if !newValue.isEmpty || tracking != nil { tracked.failedFaultSlots = newValue } }
    }

    /// Leaves the context: values stay, tracking stops.
    func detach() {
        contextReference = nil
        tracking?.keepsOwnerAlive = nil
        isInserted = false
        markSaved()
    }

    /// Puts back the values saved before the first unsaved change.
    func restoreOriginal() {
        tracking?.forEachOriginal { slot, value in
            if slot < storage.count { storage[slot] = value }
        }
        tracking?.removeOriginals()
        tracking?.changedSlots = []
        isChanged = false
        isDeleted = false
    }

    /// Holds the owner strongly until the context releases the data: another model shares it.
    func keepOwnerAlive() {
        tracked.keepsOwnerAlive = ownerModel
    }

    /// Leaves the context: relationships let go of their models and read as `nil` or empty,
    /// so no reference cycle between models outlives their context.
    ///
    /// - Parameter keepingIdentifiers: Whether relationships keep their models' identifiers,
    ///   for an undo that inserts the model again; a context that is going away needs none.
    func release(keepingIdentifiers: Bool) {
        // Only relationships hold other models; attribute slots are left untouched. Without a
        // context no fault loads, so a released relationship reads as `nil` or empty (see
        // `unresolvedValue(at:)`) whether or not it keeps identifiers; listing them for a
        // context's end cost an array per model.
        for index in layout.relationshipSlots where index < storage.count {
            guard keepingIdentifiers else {
                storage.dropLoadedRelationship(at: index)
                continue
            }
            switch storage.loadedValue(at: index) {
            case .toOne(let model?)?: storage[index] = .toOneFault(model.persistentModelID)
            case .toMany(let collection)?: storage[index] = .toManyFault(Self.identifiers(of: collection))
            default: break  // a fault holds no model, and no fault loads without a context
            }
        }
        contextReference = nil
        tracking?.keepsOwnerAlive = nil
        tracking?.removeOriginals()
    }

    /// The identifiers of a collection's models, read through its own element type: reading
    /// `_persistentModels` through the existential converted the whole array first.
    private static func identifiers<C: RelationshipCollection>(of collection: C) -> [PersistentIdentifier] {
        collection._persistentModels.map { $0.persistentModelID }
    }

    /// The slots a new model's first write makes room for when its number is not known.
    private static var initialCapacity: Int { 8 }

    /// Writes `value` to `slot` of a model no context tracks: in place, or at the end, so
    /// that an initializer setting every property in order leaves only plain values. A write
    /// past the end (an initial value Swift assigns before the initializer's body, for a
    /// property declared after one without) leaves the slots between unset, kept apart
    /// until they are written (``SlotStorage/dropPlainOthers()``).
    final func writeUntracked(_ value: BackingValue, at slot: Int) {
        if slot < storage.count {
            storage[slot] = .loaded(value)
        } else if slot == storage.count {
            if storage.capacity == 0 { storage.reserveCapacity(Swift.max(slot + 1, Self.initialCapacity)) }
            storage.append(loaded: value)
        } else {
            storage.extend(through: slot)
            storage[slot] = .loaded(value)
        }
    }

    /// Takes these values into `context` for the model's insert, as `identifier`: the
    /// caller checked they are unadopted and laid out for the model's class.
    final func adopt(into context: ModelContext, as identifier: PersistentIdentifier) {
        let slotCount = layout.propertyNames.count
        if storage.count < slotCount { storage.extend(through: slotCount - 1) }
        storage.dropPlainOthers()
        self.identifier = identifier
        contextReference = context.reference
        isUnadopted = false
        isInserted = true
    }

    /// Forgets the change tracking of the last save or fetch.
    func markSaved() {
        isChanged = false
        guard let tracking else { return }
        if tracking.keepsOwnerAlive == nil {
            storage.dropExtras()
        } else {
            tracking.removeOriginals()
            tracking.changedSlots = []
            tracking.failedFaultSlots = []
        }
    }
}

/// The backing data of a model registered in a context: values in slots, relationships
/// that fault in from their identifiers when first read, and change tracking.
///
/// The context is held weakly: a context owns what it registered, not the other way round.
/// Once the context is gone, loaded values still read; a relationship that was not loaded
/// reads as `nil` or empty (see "Ownership" in the architecture article).
@usableFromInline
final class ManagedBackingData<Model: PersistentModel>: ManagedData, BackingData {
    /// The model whose values these are, read only while a context tracks them.
    ///
    /// Not `weak`: a weak reference gives every model a side table, which made each fetched
    /// model cost an allocation and a slow release. The model holds its backing data
    /// strongly, so the owner lives as long as the data, except for data shared by an
    /// upsert (see ``ManagedExtras/keepsOwnerAlive``); ``ManagedData/release(keepingIdentifiers:)``
    /// and ``ManagedData/detach()`` end tracking before an owner could go.
    @usableFromInline @exclusivity(unchecked) unowned(unsafe) var owner: Model?

    /// Backing data for a new model that no context tracks yet.
    @usableFromInline
    init(for modelType: Model.Type) {
        super.init(unadoptedWithCapacity: 0, layout: ModelLayout.of(Model.self))
    }

    /// Backing data for a new model, with room for its `slotCount` values.
    @usableFromInline
    init(for modelType: Model.Type, slotCount: Int) {
        super.init(unadoptedWithCapacity: slotCount, layout: ModelLayout.of(Model.self))
    }

    override init(storage: SlotStorage, identifier: PersistentIdentifier?, reference: ContextReference?, layout: ModelLayout) {
        super.init(storage: storage, identifier: identifier, reference: reference, layout: layout)
    }

    override var ownerModel: (any PersistentModel)? { context == nil ? nil : owner }

    /// The model's identifier. A new model that no context took yet is given a temporary
    /// one when first asked, which its insert keeps.
    @usableFromInline
    var persistentModelID: PersistentIdentifier? {
        get {
            if let identifier { return identifier }
            guard isUnadopted else { return nil }
            let temporary = PersistentIdentifier.temporary(in: layout.temporaryScope)
            identifier = temporary
            return temporary
        }
        set { identifier = newValue }
    }

    @usableFromInline
    var metadata: Any { identifier?.storeIdentifier as Any }

    @usableFromInline
    var hasChanges: Bool { isInserted || isChanged || isDeleted }

    @usableFromInline
    func value(at slot: Int) -> BackingValue {
        guard slot < storage.count else { return .unset }
        if let value = storage.loadedValue(at: slot) { return value }
        guard let context else { return unresolvedValue(at: slot) }
        return context.resolveFault(of: self, at: slot)
    }

    @usableFromInline
    func setValue(_ value: BackingValue, at slot: Int) {
        // A new model's initializer writes every property here before any context tracks
        // it: kept to a test and a call, without the tracked write's frame.
        guard contextReference != nil else {
            writeUntracked(value, at: slot)
            return
        }
        writeTracked(value, at: slot)
    }

    /// ``setValue(_:at:)`` of a model a context took: the change is recorded and the
    /// context told, while the context lives.
    @inline(never)
    private func writeTracked(_ value: BackingValue, at slot: Int) {
        guard let context, let owner else {
            writeUntracked(value, at: slot)
            return
        }
        if slot >= storage.count { storage.extend(through: slot) }
        // Read once, for the saved value, the undo and the relationship's upkeep.
        let old = storage[slot]
        recordChange(at: slot, old: old)
        storage.set(loaded: value, at: slot)
        context.backingDataDidChange(owner, self, slot: slot, old: old, new: value)
    }
}

/// A backing data class that makes registered models of its model type.
protocol ModelMaking: AnyObject {
    /// A new model registered in `context`, its backing data holding `storage`.
    ///
    /// `storage` and `identifier` are consumed: the caller's are its last use, so the values
    /// pass into the backing data without a retain and a release.
    static func makeModel(storage: consuming SlotStorage, identifier: consuming PersistentIdentifier, context: ModelContext, layout: ModelLayout)
        -> any PersistentModel
    /// Makes `model`, a detached model of this class's model type, inserted in `context` with
    /// `storage`, and returns its new backing data.
    static func adopt(
        _ model: any PersistentModel, storage: consuming SlotStorage, identifier: consuming PersistentIdentifier, context: ModelContext,
        layout: ModelLayout
    ) -> ManagedData
    /// Makes `model`, a new model of this class's model type, inserted in `context` as
    /// `identifier`, taking over `data`, the unadopted backing data it holds (see
    /// ``ManagedData/isUnadopted``), laid out for this class.
    static func adopt(_ model: any PersistentModel, holding data: ManagedData, as identifier: PersistentIdentifier, context: ModelContext)
}

extension ManagedBackingData: ModelMaking {
    static func makeModel(storage: consuming SlotStorage, identifier: consuming PersistentIdentifier, context: ModelContext, layout: ModelLayout)
        -> any PersistentModel
    {
        // `self`, the metatype the call came through, rather than a metatype written here.
        let data = self.init(storage: consume storage, identifier: consume identifier, reference: context.reference, layout: layout)
        // The initial values Swift assigns before the initializer's body go to the sink. The
        // model takes the backing data over and becomes its owner.
        if let sink = layout.initialValueSink {
            return MaterializingThread.makeModel(Model.self, backingData: consume data, sink: sink)
        }
        return Model._makeModel(backingData: consume data)
    }

    static func adopt(
        _ model: any PersistentModel, storage: consuming SlotStorage, identifier: consuming PersistentIdentifier, context: ModelContext,
        layout: ModelLayout
    ) -> ManagedData {
        // The caller opened `model` as this class's model type.
        let owner = unsafeDowncast(model as AnyObject, to: Model.self)
        let data = self.init(storage: consume storage, identifier: consume identifier, reference: context.reference, layout: layout)
        data.owner = owner
        data.isInserted = true
        owner.persistentBackingData = data
        return data
    }

    static func adopt(_ model: any PersistentModel, holding data: ManagedData, as identifier: PersistentIdentifier, context: ModelContext) {
        // The caller opened `model` as this class's model type, and found `data` behind it
        // with this class's layout, which only this class's backing data is made with.
        let data = unsafeDowncast(data, to: self)
        data.adopt(into: context, as: identifier)
        data.owner = unsafeDowncast(model as AnyObject, to: Model.self)
    }
}

/// What a changed registered model needs besides its values: the change tracking, made at
/// the first change. One optional reference for it keeps the backing data of a model that
/// was only read at 88 bytes, ``SlotStorage/others`` included (a 96-byte allocation).
final class ManagedExtras {
    init() {}

    /// The saved value of each slot changed since the last save or fetch, taken at its first
    /// change: the first inline (most changes set one property), the others in an array.
    @exclusivity(unchecked) private var firstOriginal: (slot: Int, value: ManagedSlot)?
    @exclusivity(unchecked) private var moreOriginals: [(slot: Int, value: ManagedSlot)] = []

    func hasOriginal(of slot: Int) -> Bool {
        firstOriginal?.slot == slot || moreOriginals.contains { $0.slot == slot }
    }

    func addOriginal(_ value: ManagedSlot, of slot: Int) {
        if firstOriginal == nil { firstOriginal = (slot, value) } else { moreOriginals.append((slot, value)) }
    }

    func forEachOriginal(_ body: (Int, ManagedSlot) -> Void) {
        if let firstOriginal { body(firstOriginal.slot, firstOriginal.value) }
        for original in moreOriginals { body(original.slot, original.value) }
    }

    func removeOriginals() {
        firstOriginal = nil
        moreOriginals = []
    }
    // Unchecked for exclusivity, as the backing data's own fields are: every change reads
    // and writes them, and one thread at a time does, with no access overlapping another.

    /// Slots set since the model was fetched or last saved.
    @exclusivity(unchecked) var changedSlots = SlotSet()
    /// Slots whose relationship fault failed to load.
    @exclusivity(unchecked) var failedFaultSlots = SlotSet()
    /// The owner, held strongly while another model shares the data (an insert that a
    /// unique constraint merged into a stored model), so the owner outlives every model
    /// that writes through the data. Released with the context.
    var keepsOwnerAlive: AnyObject?
}
