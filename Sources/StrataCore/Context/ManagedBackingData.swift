import Foundation

/// One slot of a registered model's backing data.
enum ManagedSlot {
    case loaded(BackingValue)
    indirect case toOneFault(PersistentIdentifier)
    case toManyFault([PersistentIdentifier])
    /// Not fetched yet (`propertiesToFetch`); reading it loads the model's full snapshot.
    case unloaded
}

/// The context's view of a registered model's backing data, with the model type erased.
protocol ManagedData: AnyObject {
    var identifier: PersistentIdentifier? { get set }
    var isInserted: Bool { get set }
    var isChanged: Bool { get set }
    var isDeleted: Bool { get set }
    /// The model's slots.
    var storage: SlotStorage { get set }
    /// The slot `slot`, as stored: a fault stays a fault.
    subscript(slot slot: Int) -> ManagedSlot { get set }
    /// The number of slots.
    var slotCount: Int { get }
    var original: SlotStorage? { get set }
    /// Slots set since the model was fetched or last saved.
    var changedSlots: Set<Int> { get set }
    /// Slots whose relationship fault failed to load; a save that would overwrite one refuses.
    var failedFaultSlots: Set<Int> { get set }
    var context: ModelContext? { get set }
    var ownerModel: (any PersistentModel)? { get }
    var entityName: String { get }
    /// Leaves the context: values stay, tracking stops.
    func detach()
    /// Puts back the values saved before the first unsaved change.
    func restoreOriginal()
    /// Leaves the context: relationships let go of their models and read as `nil` or empty,
    /// so no reference cycle between models outlives their context.
    ///
    /// - Parameter keepingIdentifiers: Whether relationships keep their models' identifiers,
    ///   for an undo that inserts the model again; a context that is going away needs none.
    func release(keepingIdentifiers: Bool)

    /// Holds the owner strongly until the context releases the data: another model shares it.
    func keepOwnerAlive()
    /// Forgets the change tracking of the last save or fetch.
    func markSaved()
    /// Puts `value` in `slot` as a change, without the setter's relationship upkeep: the
    /// undo or redo of a change the context recorded slot by slot.
    func restore(_ value: ManagedSlot, at slot: Int)
}

/// The backing data of a model registered in a context: values in slots, relationships
/// that fault in from their identifiers when first read, and change tracking.
///
/// The context is held weakly: a context owns what it registered, not the other way round.
/// Once the context is gone, loaded values still read; a relationship that was not loaded
/// reads as `nil` or empty (see "Ownership" in the architecture article).
final class ManagedBackingData<Model: PersistentModel>: BackingData, ManagedData {
    var storage: SlotStorage
    var persistentModelID: PersistentIdentifier?
    weak var context: ModelContext?
    /// The model whose values these are, read only while a context tracks them.
    ///
    /// Not `weak`: a weak reference gives every model a side table, which made each fetched
    /// model cost an allocation and a slow release. The model holds its backing data
    /// strongly, so the owner lives as long as the data, except for data shared by an
    /// upsert (see ``ChangeTracking/keepsOwnerAlive``); ``release(keepingIdentifiers:)`` and ``detach()`` end
    /// tracking before an owner could go.
    unowned(unsafe) var owner: Model?
    /// What tracks changes, made at the first change: a fetched model that is only read
    /// (most of them) holds one reference instead of four fields.
    private var tracking: ChangeTracking?
    var isInserted = false
    var isChanged = false
    var isDeleted = false

    /// The model type's layout, kept so hot paths need no type-to-layout lookup.
    let layout: ModelLayout

    init(for modelType: Model.Type) {
        storage = SlotStorage([])
        layout = ModelLayout.of(Model.self)
    }

    init(storage: SlotStorage, identifier: PersistentIdentifier?, context: ModelContext, layout: ModelLayout) {
        self.storage = storage
        self.persistentModelID = identifier
        self.context = context
        self.layout = layout
    }

    /// The entity's name.
    var entityName: String { layout.entityName }

    var identifier: PersistentIdentifier? {
        get { persistentModelID }
        set { persistentModelID = newValue }
    }

    var ownerModel: (any PersistentModel)? { context == nil ? nil : owner }

    var metadata: Any { persistentModelID?.storeIdentifier as Any }

    var hasChanges: Bool { isInserted || isChanged || isDeleted }

    subscript(slot slot: Int) -> ManagedSlot {
        get { storage[slot] }
        set { storage[slot] = newValue }
    }

    var slotCount: Int { storage.count }

    func value(at slot: Int) -> BackingValue {
        guard slot < storage.count else { return .unset }
        if let value = storage.loadedValue(at: slot) { return value }
        guard let context else { return unresolvedValue(at: slot) }
        return context.resolveFault(of: self, at: slot)
    }

    /// What a slot that cannot be loaded reads as: `nil` for a to-one relationship, an
    /// empty collection for a to-many one, and unset for an attribute.
    func unresolvedValue(at slot: Int) -> BackingValue {
        switch storage[slot] {
        case .loaded(let value): return value
        case .toOneFault: return .toOne(nil)
        case .toManyFault:
            guard let type = layout.collectionTypes[slot] else { return .unset }
            return .toMany(RelationshipEditing.make(type, []))
        case .unloaded: return .unset
        }
    }

    func setValue(_ value: BackingValue, at slot: Int) {
        if slot >= storage.count { storage.extend(through: slot) }
        guard let context, let owner else {
            storage[slot] = .loaded(value)
            return
        }
        let old = storage[slot]
        recordChange(at: slot)
        storage[slot] = .loaded(value)
        context.backingDataDidChange(owner, self, slot: slot, old: old, new: value)
    }

    func restore(_ value: ManagedSlot, at slot: Int) {
        recordChange(at: slot)
        storage[slot] = value
    }

    /// Notes a change of `slot`, keeping the saved slots at the first change since a save or fetch.
    private func recordChange(at slot: Int) {
        let tracking = tracked
        if !isInserted && !isChanged && tracking.original == nil { tracking.original = storage }
        tracking.changedSlots.insert(slot)
    }

    /// The change tracking, made when first needed.
    private var tracked: ChangeTracking {
        if let tracking { return tracking }
        let made = ChangeTracking()
        tracking = made
        return made
    }

    var original: SlotStorage? {
        get { tracking?.original }
        set { if newValue != nil || tracking != nil { tracked.original = newValue } }
    }

    var changedSlots: Set<Int> {
        get { tracking?.changedSlots ?? [] }
        set { if !newValue.isEmpty || tracking != nil { tracked.changedSlots = newValue } }
    }

    var failedFaultSlots: Set<Int> {
        get { tracking?.failedFaultSlots ?? [] }
        set { if !newValue.isEmpty || tracking != nil { tracked.failedFaultSlots = newValue } }
    }

    func detach() {
        context = nil
        tracking?.keepsOwnerAlive = nil
        isInserted = false
        markSaved()
    }

    func restoreOriginal() {
        if let original = tracking?.original { storage = original }
        tracking?.original = nil
        tracking?.changedSlots = []
        isChanged = false
        isDeleted = false
    }

    func keepOwnerAlive() {
        tracked.keepsOwnerAlive = owner
    }

    func release(keepingIdentifiers: Bool) {
        // Only relationships hold other models; attribute slots are left untouched. Without a
        // context no fault loads, so a released relationship reads as `nil` or empty (see
        // `unresolvedValue(at:)`) whether or not it keeps identifiers; listing them for a
        // context's end cost an array per model.
        for index in layout.relationshipSlots where index < storage.count {
            switch storage.loadedValue(at: index) {
            case .toOne(let model?)?:
                storage[index] = keepingIdentifiers ? .toOneFault(model.persistentModelID) : .loaded(.toOne(nil))
            case .toMany(let collection)?:
                storage[index] = .toManyFault(keepingIdentifiers ? Self.identifiers(of: collection) : [])
            default: break  // a fault holds no model, and no fault loads without a context
            }
        }
        context = nil
        tracking?.keepsOwnerAlive = nil
        tracking?.original = nil
    }

    /// The identifiers of a collection's models, read through its own element type: reading
    /// `_persistentModels` through the existential converted the whole array first.
    private static func identifiers<C: RelationshipCollection>(of collection: C) -> [PersistentIdentifier] {
        collection._persistentModels.map { $0.persistentModelID }
    }

    func markSaved() {
        isChanged = false
        guard let tracking else { return }
        if tracking.keepsOwnerAlive == nil {
            self.tracking = nil
        } else {
            tracking.original = nil
            tracking.changedSlots = []
            tracking.failedFaultSlots = []
        }
    }
}

/// The change tracking of a registered model's backing data.
final class ChangeTracking {
    /// The slots as saved, captured at the first change after a save or fetch.
    var original: SlotStorage?
    /// Slots set since the model was fetched or last saved.
    var changedSlots: Set<Int> = []
    /// Slots whose relationship fault failed to load.
    var failedFaultSlots: Set<Int> = []
    /// The owner, held strongly while another model shares the data (an insert that a
    /// unique constraint merged into a stored model), so the owner outlives every model
    /// that writes through the data. Released with the context.
    var keepsOwnerAlive: AnyObject?
}
