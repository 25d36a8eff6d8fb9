/// The slots of a registered model: stored values as the store returned them, and beside
/// them the few slots that are something else.
///
/// A fetched model keeps its snapshot's value array as it is, so the values are neither
/// copied nor retained one by one, and a model costs one array less (issue I: the slot array
/// was the largest part of a model). A relationship that was not read stays in that array as
/// the store sent it: ``PersistentValue/identifier(_:)`` is a to-one fault and
/// ``PersistentValue/identifiers(_:)`` a to-many one (no attribute holds either kind).
/// Loaded relationships, transformable values, slots that were not fetched and slots not set
/// yet live in ``others``, an array a fetched model that is only read never allocates; the
/// change tracking lives in ``ManagedExtras``, made at the first change.
///
/// The extras are an object: a copy of the storage shares them. Storage belongs to one
/// backing data, which alone changes it; copies are only read.
struct SlotStorage {
    /// One value per slot: an attribute's value or a relationship fault's identifiers; not
    /// read where ``others`` holds the slot.
    private(set) var values: [PersistentValue]
    /// `nil`, or one entry per slot: `nil` where the slot is the attribute value in ``values``.
    ///
    /// Beside the extras rather than in them: a fetched model that loads a relationship
    /// (a prefetched graph's owners) then keeps it apart without a change-tracking object,
    /// and the backing data still fits its 96-byte allocation.
    private(set) var others: ContiguousArray<ManagedSlot?>?
    /// The change tracking; `nil` for a model that has none (a fetched model that was only
    /// read, or one saved since its last change).
    private(set) var extras: ManagedExtras?

    /// The extras, made when first needed.
    mutating func extrasMaking() -> ManagedExtras {
        if let extras { return extras }
        let made = ManagedExtras()
        extras = made
        return made
    }

    /// Drops the extras: the caller checked they hold nothing (no change, no kept owner).
    mutating func dropExtras() {
        extras = nil
    }

    /// Whether the storage holds another model or tracks a change: it keeps slots apart
    /// (where loaded relationships are) or has extras.
    var holdsMoreThanValues: Bool { others != nil || extras != nil }

    /// Slots taken from a snapshot's aligned values, with `others` for the slots they do not hold.
    init(values: [PersistentValue], others: ContiguousArray<ManagedSlot?>?) {
        self.values = values
        self.others = others
    }

    /// Empty storage with room for `capacity` slots, to be filled with ``append(_:)``.
    init(capacity: Int) {
        values = []
        values.reserveCapacity(capacity)
    }

    /// Storage holding `slots`.
    init<S: Collection<ManagedSlot>>(_ slots: S) {
        self.init(capacity: slots.count)
        for slot in slots { append(slot) }
    }

    /// The value a slot holding `value` keeps in ``values``, or `nil` when it belongs in
    /// ``others``: an attribute is its value.
    private static func plainValue(of value: BackingValue) -> PersistentValue? {
        guard case .attribute(let plain) = value else { return nil }
        switch plain {
        case .identifier, .identifiers: return nil  // stand for faults in ``values``
        default: return plain
        }
    }

    /// The value `slot` keeps in ``values``, or `nil` when it belongs in ``others``: a loaded
    /// attribute is its value, a fault its identifiers.
    private static func plainValue(of slot: ManagedSlot) -> PersistentValue? {
        switch slot {
        case .loaded(let value): plainValue(of: value)
        case .toOneFault(let id): .identifier(id)
        case .toManyFault(let ids): .identifiers(ids)
        case .unloaded: nil
        }
    }

    /// Adds a slot holding the loaded `value` after the last one.
    ///
    /// Inlined: a new model's initializer appends each property's value through it, and the
    /// call cost an insert about 95 instructions a model.
    @inline(__always)
    mutating func append(loaded value: BackingValue) {
        if let plain = Self.plainValue(of: value) {
            values.append(plain)
            others?.append(nil)
        } else {
            appendOther(.loaded(value))
        }
    }

    /// Adds a slot after the last one.
    mutating func append(_ slot: ManagedSlot) {
        if let plain = Self.plainValue(of: slot) {
            values.append(plain)
            others?.append(nil)
        } else {
            appendOther(slot)
        }
    }

    /// Adds a slot that ``values`` does not hold.
    private mutating func appendOther(_ slot: ManagedSlot) {
        if others == nil { makeOthers(capacity: Swift.max(values.capacity, values.count + 1)) }
        values.append(.null)
        others!.append(slot)
    }

    /// The number of slots.
    var count: Int { values.count }

    /// The number of slots there is room for without growing.
    var capacity: Int { values.capacity }

    /// Makes room for `capacity` slots.
    mutating func reserveCapacity(_ capacity: Int) {
        values.reserveCapacity(capacity)
        others?.reserveCapacity(capacity)
    }

    /// Stops keeping slots apart once none is: the storage of a new model whose initial
    /// values were written ahead of the slots before them, once those were written too.
    mutating func dropPlainOthers() {
        guard let others, others.allSatisfy({ if case .none = $0 { true } else { false } }) else { return }
        self.others = nil
    }

    subscript(slot: Int) -> ManagedSlot {
        get {
            if let others, let other = others[slot] { return other }
            switch values[slot] {
            case .identifier(let id): return .toOneFault(id)
            case .identifiers(let ids): return .toManyFault(ids)
            case let value: return .loaded(.attribute(value))
            }
        }
        set {
            if let stored = Self.plainValue(of: newValue) {
                setPlain(stored, at: slot)
            } else {
                if others == nil { makeOthers(capacity: values.count) }
                others![slot] = newValue
                values[slot] = .null
            }
        }
    }

    /// Puts the loaded `value` in `slot`: what `self[slot] = .loaded(value)` does, without
    /// wrapping an attribute in a slot only to take it out again (a property write).
    @inline(__always)
    mutating func set(loaded value: BackingValue, at slot: Int) {
        if let plain = Self.plainValue(of: value) {
            setPlain(plain, at: slot)
        } else {
            self[slot] = .loaded(value)
        }
    }

    /// Puts `plain` in ``values`` at `slot`, no longer kept apart.
    @inline(__always)
    private mutating func setPlain(_ plain: PersistentValue, at slot: Int) {
        values[slot] = plain
        if others != nil { others![slot] = nil }
    }

    /// Lets go of the models a loaded relationship in `slot` holds, which then reads as `nil`
    /// or empty: what `self[slot] = .loaded(.toOne(nil))` or `.toManyFault([])` does, without
    /// copying the loaded value out first to find its kind (a retain and a release of the
    /// collection and a copy of its existential, about 300 instructions a model at a context's end).
    mutating func dropLoadedRelationship(at slot: Int) {
        guard others != nil else { return }
        switch others![slot] {
        case .loaded(.toOne(.some))?:
            others![slot] = .loaded(.toOne(nil))
        case .loaded(.toMany)?:
            others![slot] = nil
            values[slot] = .identifiers([])
        default:
            break  // a fault or an attribute holds no model
        }
    }

    /// The loaded value of `slot`, or `nil` when it is a fault or was not fetched.
    func loadedValue(at slot: Int) -> BackingValue? {
        if let others, let other = others[slot] {
            if case .loaded(let value) = other { return value }
            return nil
        }
        switch values[slot] {
        case .identifier, .identifiers: return nil
        case let value: return .attribute(value)
        }
    }

    /// Adds unset slots up to `slot`.
    mutating func extend(through slot: Int) {
        guard values.count <= slot else { return }
        let added = slot + 1 - values.count
        if others == nil { makeOthers(capacity: slot + 1) }
        values.append(contentsOf: repeatElement(.null, count: added))
        others!.append(contentsOf: repeatElement(.loaded(.unset), count: added))
    }

    /// Starts keeping slots apart, with room for `capacity` slots (at least as many as the
    /// values have). A new model's slots arrive one at a time, so its caller asks for the
    /// values' capacity: growing the array at each slot made it again and again. A model
    /// whose slots are all there asks for just their number: one spare entry took a fetched
    /// trip's three slots from a 112-byte allocation to a 144-byte one, past the allocator's
    /// fast bins, and freeing those made glibc consolidate its free lists at nearly every
    /// such model of a context's end (1,822 times for 2,000 trips, 4% of the graph workload).
    private mutating func makeOthers(capacity: Int) {
        var made = ContiguousArray<ManagedSlot?>()
        made.reserveCapacity(Swift.max(capacity, values.count))
        // One at a time: appending `repeatElement(nil, count:)` went through the generic
        // sequence append, about 220 instructions for a model's few slots.
        for _ in 0..<values.count { made.append(nil) }
        others = made
    }

    /// The first slot that was not fetched.
    var firstUnloaded: Int? {
        others?.firstIndex { if case .unloaded? = $0 { true } else { false } }
    }
}
