/// The values of a model that no context tracks yet, with the model type erased.
///
/// A class rather than a protocol, so that an insert finds it behind a model's backing data
/// with a class cast (a protocol cast looks the conformance up in the runtime's cache).
@usableFromInline
class DetachedData {
    /// One value per slot that was set, `.unset` in the others.
    ///
    /// Unchecked for exclusivity: a new model's initializer writes every property here, and
    /// the dynamic check cost two runtime calls per write; nothing overlaps these accesses.
    @exclusivity(unchecked) fileprivate(set) var slots: ContiguousArray<BackingValue> = []
    /// The identifier, once one was asked for or assigned.
    fileprivate(set) var identifier: PersistentIdentifier?

    @usableFromInline
    init() {}

    /// The slots that were set, with their values.
    var setSlots: [(Int, BackingValue)] {
        var set: [(Int, BackingValue)] = []
        for slot in slots.indices {
            if case .unset = slots[slot] { continue }
            set.append((slot, slots[slot]))
        }
        return set
    }
}

/// Backing data for a model that no context tracks yet: values live in slots in memory.
@usableFromInline
final class DetachedBackingData<Model: PersistentModel>: DetachedData, BackingData {
    @usableFromInline
    init(for modelType: Model.Type) {
        super.init()
    }

    /// A temporary identifier, assigned when first asked for.
    @usableFromInline
    var persistentModelID: PersistentIdentifier? {
        get {
            if let identifier { return identifier }
            let temporary = PersistentIdentifier.temporary(in: ModelLayout.of(Model.self).temporaryScope)
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
