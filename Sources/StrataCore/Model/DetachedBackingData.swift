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
    /// Values written past the end of ``storage``, which would leave unset slots between:
    /// the initial values of properties declared with one (an optional's `nil` too), which
    /// Swift assigns before an initializer's body, and which every fetched model writes into
    /// a detached data it then drops. Kept aside in one small array, so that ``storage``
    /// grows in order and keeps no unset slot apart; they join it when the slots before them
    /// are written, or when the storage is taken.
    @exclusivity(unchecked) fileprivate var ahead: [(slot: Int, value: BackingValue)] = []
    /// The identifier, once one was asked for or assigned.
    fileprivate(set) var identifier: PersistentIdentifier?

    @usableFromInline
    init() {}

    /// Detached data with room for `slotCount` values, the number of the model's slots.
    @usableFromInline
    init(slotCount: Int) {
        storage = SlotStorage(capacity: slotCount)
    }

    /// The value of `slot`, `.unset` when it was never set.
    func value(ofSlot slot: Int) -> BackingValue {
        if slot < storage.count { return storage.loadedValue(at: slot) ?? .unset }
        return ahead.last { $0.slot == slot }?.value ?? .unset
    }

    /// One more than the highest slot written.
    var slotCount: Int { ahead.reduce(storage.count) { Swift.max($0, $1.slot + 1) } }

    /// The slots that were set, with their values.
    var setSlots: [(Int, BackingValue)] {
        var set: [(Int, BackingValue)] = []
        for slot in 0..<slotCount {
            let value = value(ofSlot: slot)
            if case .unset = value { continue }
            set.append((slot, value))
        }
        return set
    }

    /// Hands the values to the backing data of the context that inserts the model, leaving
    /// none here: the array moves rather than being copied when the context writes to it.
    func takeStorage() -> SlotStorage {
        var taken = storage
        storage = SlotStorage(values: [], others: nil)
        if !ahead.isEmpty {
            taken.extend(through: slotCount - 1)
            for (slot, value) in ahead { taken[slot] = .loaded(value) }
            ahead = []
        }
        return taken
    }

    /// Writes `value` to `slot`: in place, at the end of the storage, or aside when it would
    /// leave a gap.
    fileprivate func write(_ value: BackingValue, at slot: Int, initialCapacity: Int) {
        if slot < storage.count {
            storage[slot] = .loaded(value)
            return
        }
        guard slot == storage.count else {
            if let index = ahead.lastIndex(where: { $0.slot == slot }) { ahead[index].value = value } else { ahead.append((slot, value)) }
            return
        }
        // Room for several slots at the first write, as an initializer sets them one by one,
        // unless the model's number of slots was given.
        if storage.values.capacity == 0 { storage = SlotStorage(capacity: Swift.max(slot + 1, initialCapacity)) }
        storage.append(loaded: value)
        guard !ahead.isEmpty else { return }
        // This write replaces one kept aside for the same slot; the ones that now follow in order join the storage.
        ahead.removeAll { $0.slot == slot }
        while let index = ahead.firstIndex(where: { $0.slot == storage.count }) {
            storage.append(loaded: ahead.remove(at: index).value)
        }
    }
}

/// Backing data for a model that no context tracks yet: values live in slots in memory.
@usableFromInline
final class DetachedBackingData<Model: PersistentModel>: DetachedData, BackingData {
    @usableFromInline
    init(for modelType: Model.Type) {
        super.init()
    }

    /// Detached backing data with room for the model's `slotCount` values.
    @usableFromInline
    init(for modelType: Model.Type, slotCount: Int) {
        super.init(slotCount: slotCount)
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

    /// The slots the first write makes room for when the model's number of slots is not known.
    private static var initialCapacity: Int { 8 }

    @usableFromInline
    func setValue(_ value: BackingValue, at slot: Int) {
        // The model's layout is not looked up: every fetched model with a default value (an
        // optional is `nil` by default) writes it here before the context's backing data
        // replaces this one, and the lookup took a lock.
        write(value, at: slot, initialCapacity: Self.initialCapacity)
    }
}
