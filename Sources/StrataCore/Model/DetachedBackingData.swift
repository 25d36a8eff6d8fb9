/// Backing data for a model that no context tracks yet: values live in slots in memory.
final class DetachedBackingData<Model: PersistentModel>: BackingData {
    private var slots: ContiguousArray<BackingValue>
    private var identifier: PersistentIdentifier?

    init(for modelType: Model.Type) {
        slots = []
    }

    /// A temporary identifier, assigned when first asked for.
    var persistentModelID: PersistentIdentifier? {
        get {
            if let identifier { return identifier }
            let temporary = PersistentIdentifier.temporary(entityName: ModelLayout.of(Model.self).entityName)
            identifier = temporary
            return temporary
        }
        set { identifier = newValue }
    }

    var metadata: Any { () }

    func value(at slot: Int) -> BackingValue {
        slot < slots.count ? slots[slot] : .unset
    }

    func setValue(_ value: BackingValue, at slot: Int) {
        if slot >= slots.count {
            slots.reserveCapacity(slot + 1)
            while slots.count <= slot { slots.append(.unset) }
        }
        slots[slot] = value
    }
}
