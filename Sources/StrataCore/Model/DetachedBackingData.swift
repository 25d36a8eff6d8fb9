/// Backing data for a model that no context tracks yet: values live in slots in memory.
@usableFromInline
final class DetachedBackingData<Model: PersistentModel>: BackingData, DetachedSlots {
    /// Unchecked for exclusivity: a new model's initializer writes every property here, and
    /// the dynamic check cost two runtime calls per write; nothing overlaps these accesses.
    @exclusivity(unchecked) private var slots: ContiguousArray<BackingValue>
    private var identifier: PersistentIdentifier?

    @usableFromInline
    init(for modelType: Model.Type) {
        slots = []
    }

    /// A temporary identifier, assigned when first asked for.
    @usableFromInline
    var persistentModelID: PersistentIdentifier? {
        get {
            if let identifier { return identifier }
            let temporary = PersistentIdentifier.temporary(entityName: ModelLayout.of(Model.self).identifierEntityName)
            identifier = temporary
            return temporary
        }
        set { identifier = newValue }
    }

    @usableFromInline
    var metadata: Any { () }

    @usableFromInline
    func value(at slot: Int) -> BackingValue {
        slot < slots.count ? slots[slot] : .unset
    }

    /// The slots the first write makes room for.
    private static var initialCapacity: Int { 8 }

    @usableFromInline
    func setValue(_ value: BackingValue, at slot: Int) {
        if slot >= slots.count {
            // Room for several slots at the first write, as a new model's initializer sets them
            // one by one. The model's layout is not looked up: every fetched model with a default
            // value (an optional is `nil` by default) writes it here before the context's
            // backing data replaces this one, and the lookup took a lock.
            if slots.isEmpty { slots.reserveCapacity(Swift.max(slot + 1, Self.initialCapacity)) }
            while slots.count <= slot { slots.append(.unset) }
        }
        slots[slot] = value
    }
}

/// Detached backing data whose set slots can be listed.
protocol DetachedSlots {
    var setSlots: [(Int, BackingValue)] { get }
}

extension DetachedBackingData {
    var setSlots: [(Int, BackingValue)] {
        slots.indices.compactMap { slot in
            if case .unset = slots[slot] { return nil }
            return (slot, slots[slot])
        }
    }
}
