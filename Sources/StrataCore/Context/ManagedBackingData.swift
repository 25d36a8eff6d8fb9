import Foundation

/// One slot of a registered model's backing data.
enum ManagedSlot {
    case loaded(BackingValue)
    case toOneFault(PersistentIdentifier)
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
    var slots: ContiguousArray<ManagedSlot> { get set }
    var original: ContiguousArray<ManagedSlot>? { get set }
    var context: ModelContext? { get set }
    var ownerModel: (any PersistentModel)? { get }
    var entityName: String { get }
    /// Leaves the context: values stay, tracking stops.
    func detach()
    /// Puts back the values saved before the first unsaved change.
    func restoreOriginal()
}

/// The backing data of a model registered in a context: values in slots, relationships
/// that fault in from their identifiers when first read, and change tracking.
final class ManagedBackingData<Model: PersistentModel>: BackingData, ManagedData {
    var slots: ContiguousArray<ManagedSlot>
    var persistentModelID: PersistentIdentifier?
    // Strong: a model stays usable (faults resolve) after the app drops its context.
    var context: ModelContext?
    weak var owner: Model?
    /// The slots as saved, captured at the first change after a save or fetch.
    var original: ContiguousArray<ManagedSlot>?
    var isInserted = false
    var isChanged = false
    var isDeleted = false

    /// The entity's name, kept so hot paths need no type-to-name lookup.
    let entityName: String

    init(for modelType: Model.Type) {
        slots = []
        entityName = ModelLayout.of(Model.self).entityName
    }

    init(slots: ContiguousArray<ManagedSlot>, identifier: PersistentIdentifier?, context: ModelContext, entityName: String) {
        self.slots = slots
        self.persistentModelID = identifier
        self.context = context
        self.entityName = entityName
    }

    var identifier: PersistentIdentifier? {
        get { persistentModelID }
        set { persistentModelID = newValue }
    }

    var ownerModel: (any PersistentModel)? { owner }

    var metadata: Any { persistentModelID?.storeIdentifier as Any }

    var hasChanges: Bool { isInserted || isChanged || isDeleted }

    func value(at slot: Int) -> BackingValue {
        guard slot < slots.count else { return .unset }
        if case .loaded(let value) = slots[slot] { return value }
        guard let context else { return .unset }
        return context.resolveFault(of: self, at: slot)
    }

    func setValue(_ value: BackingValue, at slot: Int) {
        while slots.count <= slot { slots.append(.loaded(.unset)) }
        guard let context, let owner else {
            slots[slot] = .loaded(value)
            return
        }
        let old = slots[slot]
        if !isInserted && !isChanged && original == nil { original = slots }
        slots[slot] = .loaded(value)
        context.backingDataDidChange(owner, self, slot: slot, old: old, new: value)
    }

    func detach() {
        context = nil
        isInserted = false
        isChanged = false
        original = nil
    }

    func restoreOriginal() {
        if let original { slots = original }
        original = nil
        isChanged = false
        isDeleted = false
    }
}
