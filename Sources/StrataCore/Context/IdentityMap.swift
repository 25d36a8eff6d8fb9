/// The models a context registered: one live object per identifier, owned by the map.
///
/// The map holds its models strongly and models hold their context weakly, so there is no
/// cycle between a context and what it registered. Relationships between registered models
/// may form cycles (a trip and its items); the context breaks them when it is freed (see
/// ``ManagedData/release(keepingIdentifiers:)``), so a graph is freed with the context that fetched it.
///
/// Models with an integer key (every row of the SQLite store) or a temporary one (every
/// inserted model until it is saved) sit in one table per store, entity and kind of key,
/// keyed by the integer alone. Keys that are dense, as SQLite's row ids and temporary keys
/// are, index an array directly: 8 bytes a model and no hashing. A key far beyond the ones
/// held goes to a dictionary instead (24-byte entries, at most three quarters of the buckets
/// full: 63 bytes a model at 100,000). Other keys (UUID, string) share one dictionary.
struct IdentityMap {
    /// The models with an integer key, or with a temporary one, of one store and entity.
    private struct Group {
        /// The store and entity, held unretained as identifiers hold them (scopes live as long
        /// as the process) and compared by address, which retains neither scope.
        let scope: Unmanaged<PersistentIdentifier.Scope>
        let isTemporary: Bool
        /// The models whose key less `base` is a position of this array, as bare references
        /// (8 bytes rather than an existential's 16): each comes back as a model through
        /// ``modelType`` when it is of that class, the first one's, or through a cast
        /// otherwise (a subclass in a class hierarchy's table).
        var dense: ContiguousArray<AnyObject?> = []
        /// The key at `dense`'s first position: the first key the empty table was given, so a
        /// batch of rows far from 1 (an `enumerate`'s later pages) is dense as well.
        var base: Int64 = 0
        /// How many positions of `dense` hold a model.
        var denseCount = 0
        /// The models whose key is negative or too far beyond `dense` to grow it.
        var sparse: [Int64: any PersistentModel] = [:]
        /// The model type of the first model put in `dense`.
        private var modelType: (any PersistentModel.Type)?

        init(scope: Unmanaged<PersistentIdentifier.Scope>, isTemporary: Bool) {
            self.scope = scope
            self.isTemporary = isTemporary
        }

        var count: Int { denseCount + sparse.count }

        /// `object`, a model `dense` holds, as a model.
        private func model(_ object: AnyObject) -> (any PersistentModel)? {
            if let modelType, ObjectIdentifier(type(of: object)) == ObjectIdentifier(modelType) { return Self.model(object, of: modelType) }
            return object as? any PersistentModel
        }

        private static func model<M: PersistentModel>(_ object: AnyObject, of type: M.Type) -> any PersistentModel {
            unsafeDowncast(object, to: M.self)
        }

        /// `model` as `dense` holds it, noting its type when it is the first.
        private mutating func reference(_ model: any PersistentModel) -> AnyObject {
            if modelType == nil { modelType = type(of: model) }
            return model
        }

        /// `key`'s position in `dense`, which may be past its end; `nil` below `base` or on overflow.
        private func offset(_ key: Int64) -> Int? {
            let (offset, overflow) = key.subtractingReportingOverflow(base)
            return overflow || offset < 0 ? nil : Int(offset)
        }

        /// Whether a model is at `key`, found without taking a reference to it.
        @inline(__always)
        func contains(_ key: Int64) -> Bool {
            if let offset = offset(key), offset < dense.count { return dense[offset] != nil }
            return !sparse.isEmpty && sparse[key] != nil
        }

        @inline(__always)
        subscript(key: Int64) -> (any PersistentModel)? {
            if let offset = offset(key), offset < dense.count, let object = dense[offset] { return model(object) }
            return sparse.isEmpty ? nil : sparse[key]
        }

        /// `key`'s position in `dense`, growing the array when the key lies close enough beyond
        /// its end that the array stays at least half full; `nil` when the key belongs in `sparse`.
        ///
        /// A position `dense` has already is found inline: the call cost every model a fetch
        /// registers about 25 instructions.
        @inline(__always)
        private mutating func denseOffset(_ key: Int64) -> Int? {
            if let offset = offset(key), offset < dense.count { return offset }
            return denseOffsetGrowing(key)
        }

        /// ``denseOffset(_:)`` for a key outside `dense`.
        private mutating func denseOffsetGrowing(_ key: Int64) -> Int? {
            if dense.isEmpty && sparse.isEmpty { base = key }
            if key < base && key >= 0 && base - key <= Int64(dense.count) + 64 {
                // A key a little below the first: move the start down, at least by the array's
                // length, so keys arriving in descending or random order move it rarely.
                let newBase = max(0, base - max(base - key, Int64(dense.count), 16))
                dense.insert(contentsOf: repeatElement(nil, count: Int(base - newBase)), at: 0)
                base = newBase
                moveSparseKeysIntoDense()
            }
            guard let offset = offset(key) else { return nil }
            if offset < dense.count { return offset }
            guard offset < 2 * (count + 1) + 64 else { return nil }
            let size = max(offset + 1, dense.count * 2, 16)
            dense.reserveCapacity(size)
            dense.append(contentsOf: repeatElement(nil, count: size - dense.count))
            moveSparseKeysIntoDense()
            return offset
        }

        /// Moves the keys of `sparse` that now index `dense` there: a key lives in one place.
        private mutating func moveSparseKeysIntoDense() {
            guard !sparse.isEmpty else { return }
            for moved in sparse.keys {
                guard let position = offset(moved), position < dense.count, let model = sparse.removeValue(forKey: moved) else { continue }
                dense[position] = reference(model)
                denseCount += 1
            }
        }

        /// Puts `model` at `key`, returning the model that was there.
        @discardableResult
        mutating func update(_ model: any PersistentModel, at key: Int64) -> (any PersistentModel)? {
            guard let offset = denseOffset(key) else { return sparse.updateValue(model, forKey: key) }
            // An empty position (every model of a fetch into a new context) is filled without
            // copying out its `nil` and releasing it again.
            if dense[offset] == nil {
                dense[offset] = reference(model)
                denseCount += 1
                return nil
            }
            let previous = dense[offset]
            dense[offset] = reference(model)
            return previous.flatMap(self.model)
        }

        /// Puts `object`, a model of class `type`, at `key`, returning the object that was
        /// there: ``update(_:at:)`` for a model the caller holds as a bare reference.
        ///
        /// Written out rather than calling or called by ``update(_:at:)``: made one through the
        /// other, a filtered fetch counted about 0.15% more (its keys go to the dictionary), or an
        /// insert 5.8% more (its models' types read out of their existentials).
        @inline(__always)
        mutating func update(object: AnyObject, of type: any PersistentModel.Type, at key: Int64) -> AnyObject? {
            guard let offset = denseOffset(key) else {
                return sparse.updateValue(Self.model(object, of: type), forKey: key).map { $0 as AnyObject }
            }
            if modelType == nil { modelType = type }
            if dense[offset] == nil {
                dense[offset] = object
                denseCount += 1
                return nil
            }
            let previous = dense[offset]
            dense[offset] = object
            return previous
        }

        /// Puts each of `objects`, models of class `type`, that `key` gives a key (`key` is
        /// asked for its position) at the empty position of `dense` its key has; returns the
        /// positions of the others.
        ///
        /// Each fills its position in place: through ``update(object:of:at:)``, every model
        /// checked the array's uniqueness, and retained and released its empty position's `nil`.
        @inline(__always)
        mutating func fill(_ objects: UnsafeBufferPointer<AnyObject>, key: (Int) -> Int64?, type: any PersistentModel.Type) -> [Int] {
            if modelType == nil { modelType = type }
            let base = self.base
            var others: [Int] = []
            var filled = 0
            dense.withUnsafeMutableBufferPointer { dense in
                for position in objects.indices {
                    guard let key = key(position) else { continue }
                    let (offset, overflow) = key.subtractingReportingOverflow(base)
                    guard !overflow, offset >= 0, offset < dense.count, let slot = dense.baseAddress.map({ $0 + Int(offset) }) else {
                        others.append(position)
                        continue
                    }
                    guard slot.pointee == nil else {
                        others.append(position)
                        continue
                    }
                    // An empty position holds no reference to release.
                    slot.initialize(to: objects[position])
                    filled &+= 1
                }
            }
            denseCount += filled
            return others
        }

        /// Puts `previous` back at `key`, where ``update(object:of:at:)`` just replaced it.
        mutating func restore(_ previous: AnyObject, at key: Int64) {
            if let offset = offset(key), offset < dense.count {
                dense[offset] = previous
            } else if let model = previous as? any PersistentModel {
                sparse[key] = model
            }
        }

        /// Grows `dense` at once to every key from `lowest` through `highest` when `adding`
        /// more models keep it as full as growing key by key would: an empty table to exactly
        /// those keys, one in use geometrically, as ``denseOffsetGrowing(_:)`` grows it. Keys
        /// it does not cover are placed one at a time as usual.
        mutating func reserveKeys(from lowest: Int64, through highest: Int64, adding: Int) {
            if dense.isEmpty && sparse.isEmpty { base = lowest }
            guard lowest >= base, let offset = offset(highest), offset >= dense.count, offset < 2 * (count + adding + 1) + 64 else { return }
            let size = dense.isEmpty ? offset + 1 : Swift.max(offset + 1, dense.count * 2, 16)
            dense.reserveCapacity(size)
            dense.append(contentsOf: repeatElement(nil, count: size - dense.count))
            moveSparseKeysIntoDense()
        }

        /// Empties `key`'s position in `dense` when the table holds the only strong reference
        /// to its model and `keep` does not ask to keep it; the model is then freed. `nil`
        /// when `dense` does not hold `key`.
        mutating func removeIfUnreferenced(_ key: Int64, unlessKeeping keep: (any PersistentModel) -> Bool) -> Bool? {
            guard let offset = offset(key), offset < dense.count else { return nil }
            do {  // the model read here is let go before the uniqueness check
                guard let object = dense[offset] else { return nil }
                guard let model = model(object), !keep(model) else { return false }
            }
            guard isKnownUniquelyReferenced(&dense[offset]) else { return false }
            dense[offset] = nil
            denseCount -= 1
            return true
        }

        mutating func remove(_ key: Int64) -> (any PersistentModel)? {
            guard let offset = offset(key), offset < dense.count, let previous = dense[offset] else {
                return sparse.removeValue(forKey: key)
            }
            dense[offset] = nil
            denseCount -= 1
            return model(previous)
        }

        func forEach(_ body: (any PersistentModel) -> Void) {
            if denseCount > 0 {
                for case let object? in dense {
                    if let model = model(object) { body(model) }
                }
            }
            for model in sparse.values { body(model) }
        }

        mutating func filter(_ isIncluded: (any PersistentModel) -> Bool) {
            for index in dense.indices {
                guard let object = dense[index], let model = model(object), !isIncluded(model) else { continue }
                dense[index] = nil
                denseCount -= 1
            }
            sparse = sparse.filter { isIncluded($0.value) }
        }
    }

    /// The table and key of `id` when it has an integer or temporary key.
    private static func integerKey(of id: PersistentIdentifier) -> (isTemporary: Bool, key: Int64)? {
        switch id.id.primaryKey {
        case .int(let key): (false, key)
        case .temporary(let key): (true, Int64(bitPattern: key))
        case .uuid, .string: nil
        }
    }

    private var groups: [Group] = []
    private var others: [PersistentIdentifier: any PersistentModel] = [:]

    /// The number of registered models.
    var count: Int {
        var count = others.count
        for group in groups { count += group.count }
        return count
    }

    /// Whether no model is registered; read with exclusive access, as ``subscript(_:)`` is.
    var isEmpty: Bool {
        mutating get { others.isEmpty && groups.allSatisfy { $0.count == 0 } }
    }

    /// Every registered model, in no particular order.
    var all: [any PersistentModel] {
        var all: [any PersistentModel] = []
        all.reserveCapacity(count)
        for group in groups { group.forEach { all.append($0) } }
        all.append(contentsOf: others.values)
        return all
    }

    /// Calls `body` with every model of an entity `includes` accepts, deciding once per store
    /// and entity rather than by hashing the entity name of every model.
    func forEachModel(ofEntitiesWhere includes: (String) -> Bool, _ body: (any PersistentModel) -> Void) {
        for group in groups where includes(group.scope.takeUnretainedValue().entityName) { group.forEach(body) }
        for (id, model) in others where includes(id.entityName) { body(model) }
    }

    /// The position in `groups` of `scope`'s table; stores and entities are few, so a scan by
    /// identity is cheaper than a hash.
    private func groupIndex(_ id: PersistentIdentifier.ID, isTemporary: Bool) -> Int? {
        let address = id.scopeAddress
        return groups.withUnsafeBufferPointer { groups in
            for index in groups.indices where groups[index].scope.toOpaque() == address && groups[index].isTemporary == isTemporary { return index }
            return nil
        }
    }

    /// The table of `id`'s scope and the kind of key, made when missing.
    private mutating func groupIndexMaking(_ id: PersistentIdentifier.ID, isTemporary: Bool) -> Int {
        if let index = groupIndex(id, isTemporary: isTemporary) { return index }
        groups.append(Group(scope: id.scopeReference, isTemporary: isTemporary))
        return groups.count - 1
    }

    /// The model registered as `id`.
    ///
    /// Read with exclusive access (`mutating get`), as are ``contains(_:)`` and ``isEmpty``:
    /// a context reads its own map, and a read through a class's stored property copied the
    /// map first, retaining and releasing its array of tables and its dictionary (about 90
    /// instructions a read), which access through `inout` does not need. Inlined, with the
    /// table's own subscript: called, the table was copied to be lent to it (its array and
    /// dictionary retained and released, about 300 instructions a lookup of a fetch by key).
    @inline(__always)
    subscript(id: PersistentIdentifier) -> (any PersistentModel)? {
        mutating get {
            guard let (isTemporary, key) = Self.integerKey(of: id) else { return others[id] }
            guard let index = groupIndex(id.id, isTemporary: isTemporary) else { return nil }
            // Read in place: `groups[index]` copied the table (retaining its buffers) per lookup.
            return groups.withUnsafeBufferPointer { $0[index][key] }
        }
    }

    /// Whether a model is registered as `id`, found without taking a reference to it.
    @inline(__always)
    mutating func contains(_ id: PersistentIdentifier) -> Bool {
        guard let (isTemporary, key) = Self.integerKey(of: id) else { return others[id] != nil }
        guard let index = groupIndex(id.id, isTemporary: isTemporary) else { return false }
        return groups.withUnsafeBufferPointer { $0[index].contains(key) }
    }

    mutating func register(_ model: any PersistentModel, as id: PersistentIdentifier) {
        guard let (isTemporary, key) = Self.integerKey(of: id) else { return others[id] = model }
        groups[groupIndexMaking(id.id, isTemporary: isTemporary)].update(model, at: key)
    }

    /// Registers the model of each of `members` as the identifier at its position in `ids`
    /// (as many as the shorter holds), finding their table once when every identifier is an
    /// integer key of the first one's store and entity: a save's inserts of one class, the
    /// common case. One at a time, each model looked its table up and checked the array of
    /// tables for uniqueness again.
    mutating func register(_ members: UnsafeBufferPointer<ModelSet.Member>, as ids: UnsafeBufferPointer<PersistentIdentifier>) {
        let count = min(members.count, ids.count)
        guard let first = ids.first, case .int = first.id.primaryKey,
            ids.allSatisfy({ id in
                guard case .int = id.id.primaryKey else { return false }
                return id.id.scopeAddress == first.id.scopeAddress
            })
        else {
            for index in 0..<count { register(members[index].model, as: ids[index]) }
            return
        }
        let group = groupIndexMaking(first.id, isTemporary: false)
        groups.withUnsafeMutableBufferPointer { groups in
            for index in 0..<count {
                guard case .int(let key) = ids[index].id.primaryKey else { continue }  // each is, as checked above
                groups[group].update(members[index].model, at: key)
            }
        }
    }

    /// Registers each of `models` that `key` gives a key (`key` is asked for its position)
    /// as that integer key of `scope`; every such model is of class `type`, and their keys
    /// lie from `lowest` through `highest`. Returns the positions whose key was registered
    /// already (a store that listed a row twice), with that model, which stays.
    ///
    /// A fetch's new models are registered together when it has read them all: one at a
    /// time, each looked its table up, checked the array of tables for uniqueness and grew
    /// the table by doubling (about 150 instructions a model; issue I). Inlined into its
    /// caller, each `key` function makes its own loop.
    @inline(__always)
    mutating func registerRun(
        _ models: UnsafeBufferPointer<AnyObject>, key: (Int) -> Int64?, from lowest: Int64, through highest: Int64, adding count: Int,
        scope: Unmanaged<PersistentIdentifier.Scope>, type: any PersistentModel.Type
    ) -> [(position: Int, registered: AnyObject)] {
        let group = groupIndexMaking(PersistentIdentifier.ID(scopeReference: scope, primaryKey: .int(lowest)), isTemporary: false)
        var repeated: [(position: Int, registered: AnyObject)] = []
        groups.withUnsafeMutableBufferPointer { groups in
            groups[group].reserveKeys(from: lowest, through: highest, adding: count)
            func place(_ position: Int, _ key: Int64) {
                guard let previous = groups[group].update(object: models[position], of: type, at: key) else { return }
                groups[group].restore(previous, at: key)
                repeated.append((position, previous))
            }
            // Keys too sparse for the array go one at a time without looking for positions first.
            if groups[group].dense.isEmpty {
                for position in models.indices {
                    if let key = key(position) { place(position, key) }
                }
            } else {
                for position in groups[group].fill(models, key: key, type: type) {
                    if let key = key(position) { place(position, key) }
                }
            }
        }
        return repeated
    }

    /// Registers `model` unless a model is registered as `id` already, which is returned and
    /// kept; one hash of the identifier either way.
    mutating func registerIfAbsent(_ model: any PersistentModel, as id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let (isTemporary, key) = Self.integerKey(of: id) else {
            guard let existing = others.updateValue(model, forKey: id) else { return nil }
            others[id] = existing
            return existing
        }
        let index = groupIndexMaking(id.id, isTemporary: isTemporary)
        guard let existing = groups[index].update(model, at: key) else { return nil }
        groups[index].update(existing, at: key)
        return existing
    }

    @discardableResult
    mutating func remove(_ id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let (isTemporary, key) = Self.integerKey(of: id) else { return others.removeValue(forKey: id) }
        guard let index = groupIndex(id.id, isTemporary: isTemporary) else { return nil }
        let removed = groups[index].remove(key)
        // A save empties the table of temporary keys; its storage goes with it.
        if groups[index].count == 0 { groups.remove(at: index) }
        return removed
    }

    /// Forgets every model registered under a temporary key of `id`'s store and entity, when
    /// exactly `count` are: the models a save just gave permanent identifiers, dropped with
    /// their table in one step rather than one key at a time.
    ///
    /// - Returns: Whether the table held `count` models and is gone.
    mutating func removeTemporaries(like id: PersistentIdentifier, ifExactly count: Int) -> Bool {
        guard case .temporary = id.id.primaryKey, let index = groupIndex(id.id, isTemporary: true), groups[index].count == count else {
            return false
        }
        groups.remove(at: index)
        return true
    }

    /// Makes room for `additional` more models of the store and entity of `id`, whose keys
    /// are of the kind of `id`'s, without growing the table as they come.
    mutating func reserveCapacity(adding additional: Int, like id: PersistentIdentifier) {
        guard let (isTemporary, _) = Self.integerKey(of: id) else { return others.reserveCapacity(others.count + additional) }
        let index = groupIndexMaking(id.id, isTemporary: isTemporary)
        // Geometrically, as appending would: an exact reservation per batch would copy the array each time.
        let wanted = groups[index].dense.count + additional
        if wanted > groups[index].dense.capacity {
            groups[index].dense.reserveCapacity(max(wanted, groups[index].dense.capacity * 2))
        }
    }

    /// Keeps only the models `isIncluded` accepts.
    mutating func filter(_ isIncluded: (any PersistentModel) -> Bool) {
        for index in groups.indices { groups[index].filter(isIncluded) }
        others = others.filter { isIncluded($0.value) }
    }

    /// Forgets `id` when nothing but the map holds its model and `keep` does not ask to keep
    /// it; the model is then freed. Models the app or another registered model still reaches
    /// stay, so identity is never split.
    ///
    /// - Returns: Whether the model was forgotten.
    @discardableResult
    mutating func evictIfUnreferenced(
        _ id: PersistentIdentifier, unlessKeeping keep: (any PersistentModel) -> Bool = { _ in false }
    ) -> Bool {
        // A model in a dense table is checked where it lies: a weak reference, as below, gave
        // every model an enumeration forgets a side table, allocated, then freed with it.
        if let (isTemporary, key) = Self.integerKey(of: id), let index = groupIndex(id.id, isTemporary: isTemporary),
            let removed = groups[index].removeIfUnreferenced(key, unlessKeeping: keep)
        {
            if removed && groups[index].count == 0 { groups.remove(at: index) }
            return removed
        }
        do {  // the model read here is let go before the probe
            guard let model = self[id], !keep(model) else { return false }
        }
        // The map's reference ends with this statement; a model someone else holds survives it.
        let probe = WeakModel(remove(id))
        guard let survivor = probe.model else { return true }
        register(survivor, as: id)
        return false
    }
}

/// A weak reference to a model.
private struct WeakModel {
    weak var object: AnyObject?
    init(_ model: (any PersistentModel)?) { object = model }
    var model: (any PersistentModel)? { object as? any PersistentModel }
}
