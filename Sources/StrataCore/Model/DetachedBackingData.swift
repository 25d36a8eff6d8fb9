/// The values of a model that no context tracks yet, with the model type erased.
///
/// A class rather than a protocol, so that an insert finds it behind a model's backing data
/// with a class cast (a protocol cast looks the conformance up in the runtime's cache).
@usableFromInline
class DetachedData {
    /// One value per slot that was set, `.unset` in the others, kept as a registered model
    /// keeps them, so that an insert takes them over whole instead of copying them slot by slot.
    ///
    /// Unchecked for exclusivity: a new model's initializer writes every property here, and
    /// the dynamic check cost two runtime calls per write; nothing overlaps these accesses.
    @exclusivity(unchecked) fileprivate(set) var storage = SlotStorage(values: [], others: nil)
    /// The identifier, once one was asked for or assigned.
    fileprivate(set) var identifier: PersistentIdentifier?

    @usableFromInline
    init() {}

    /// The value of `slot`, `.unset` when it was never set.
    func value(ofSlot slot: Int) -> BackingValue {
        slot < storage.count ? storage.loadedValue(at: slot) ?? .unset : .unset
    }

    /// The slots that were set, with their values.
    var setSlots: [(Int, BackingValue)] {
        var set: [(Int, BackingValue)] = []
        for slot in 0..<storage.count {
            let value = value(ofSlot: slot)
            if case .unset = value { continue }
            set.append((slot, value))
        }
        return set
    }

    /// Hands the values to the backing data of the context that inserts the model, leaving
    /// none here: the array moves rather than being copied when the context writes to it.
    func takeStorage() -> SlotStorage {
        defer { storage = SlotStorage(values: [], others: nil) }
        return storage
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
        value(ofSlot: slot)
    }

    /// The slots the first write makes room for.
    private static var initialCapacity: Int { 8 }

    @usableFromInline
    func setValue(_ value: BackingValue, at slot: Int) {
        if slot >= storage.count {
            // Room for several slots at the first write, as a new model's initializer sets them
            // one by one. The model's layout is not looked up: every fetched model with a default
            // value (an optional is `nil` by default) writes it here before the context's
            // backing data replaces this one, and the lookup took a lock.
            if storage.count == 0 { storage = SlotStorage(capacity: Swift.max(slot + 1, Self.initialCapacity)) }
            // Appended, not put in an unset slot: an unset slot is kept apart from plain values,
            // and a model whose every slot is a plain value keeps none apart.
            if slot > storage.count { storage.extend(through: slot - 1) }
            storage.append(loaded: value)
            return
        }
        storage[slot] = .loaded(value)
    }
}
