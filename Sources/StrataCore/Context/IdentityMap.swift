/// The models a context registered: one live object per identifier, owned by the map.
///
/// The map holds its models strongly and models hold their context weakly, so there is no
/// cycle between a context and what it registered. Relationships between registered models
/// may form cycles (a trip and its items); the context breaks them when it is freed (see
/// ``ManagedData/release(keepingIdentifiers:)``), so a graph is freed with the context that fetched it.
///
/// Models with an integer key (every row of the SQLite store) or a temporary one (every
/// inserted model until it is saved) sit in one table per store, entity and kind of key,
/// keyed by the integer alone: an entry is 24 bytes rather than the 48 of a whole
/// identifier and its model, and hashing it hashes one integer. A dictionary keeps at most
/// three quarters of its buckets full and fills every bucket's page, so at 100,000 models that
/// is 63 bytes per model rather than 126. Other keys (UUID, string) share one table.
struct IdentityMap {
    /// The models with an integer key, or with a temporary one, of one store and entity.
    private struct Group {
        let scope: PersistentIdentifier.Scope
        let isTemporary: Bool
        var models: [Int64: any PersistentModel]
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
        for group in groups { count += group.models.count }
        return count
    }

    var isEmpty: Bool { others.isEmpty && groups.allSatisfy(\.models.isEmpty) }

    /// Every registered model, in no particular order.
    var all: [any PersistentModel] {
        var all: [any PersistentModel] = []
        all.reserveCapacity(count)
        for group in groups { all.append(contentsOf: group.models.values) }
        all.append(contentsOf: others.values)
        return all
    }

    /// Calls `body` with every model of an entity `includes` accepts, deciding once per store
    /// and entity rather than by hashing the entity name of every model.
    func forEachModel(ofEntitiesWhere includes: (String) -> Bool, _ body: (any PersistentModel) -> Void) {
        for group in groups where includes(group.scope.entityName) {
            for model in group.models.values { body(model) }
        }
        for (id, model) in others where includes(id.entityName) { body(model) }
    }

    /// The position in `groups` of `scope`'s table; stores and entities are few, so a scan by
    /// identity is cheaper than a hash.
    private func groupIndex(_ scope: PersistentIdentifier.Scope, isTemporary: Bool) -> Int? {
        for index in groups.indices where groups[index].scope === scope && groups[index].isTemporary == isTemporary { return index }
        return nil
    }

    /// The table of `scope` and the kind of key, made when missing.
    private mutating func groupIndexMaking(_ scope: PersistentIdentifier.Scope, isTemporary: Bool) -> Int {
        if let index = groupIndex(scope, isTemporary: isTemporary) { return index }
        groups.append(Group(scope: scope, isTemporary: isTemporary, models: [:]))
        return groups.count - 1
    }

    subscript(id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let (isTemporary, key) = Self.integerKey(of: id) else { return others[id] }
        guard let index = groupIndex(id.id.scope, isTemporary: isTemporary) else { return nil }
        return groups[index].models[key]
    }

    mutating func register(_ model: any PersistentModel, as id: PersistentIdentifier) {
        guard let (isTemporary, key) = Self.integerKey(of: id) else { return others[id] = model }
        groups[groupIndexMaking(id.id.scope, isTemporary: isTemporary)].models[key] = model
    }

    /// Registers `model` unless a model is registered as `id` already, which is returned and
    /// kept; one hash of the identifier either way.
    mutating func registerIfAbsent(_ model: any PersistentModel, as id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let (isTemporary, key) = Self.integerKey(of: id) else {
            guard let existing = others.updateValue(model, forKey: id) else { return nil }
            others[id] = existing
            return existing
        }
        let index = groupIndexMaking(id.id.scope, isTemporary: isTemporary)
        guard let existing = groups[index].models.updateValue(model, forKey: key) else { return nil }
        groups[index].models[key] = existing
        return existing
    }

    @discardableResult
    mutating func remove(_ id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let (isTemporary, key) = Self.integerKey(of: id) else { return others.removeValue(forKey: id) }
        guard let index = groupIndex(id.id.scope, isTemporary: isTemporary) else { return nil }
        let removed = groups[index].models.removeValue(forKey: key)
        // A save empties the table of temporary keys; its storage goes with it.
        if groups[index].models.isEmpty { groups.remove(at: index) }
        return removed
    }

    /// Makes room for `additional` more models of the store and entity of `id`, whose keys
    /// are of the kind of `id`'s, without growing the table as they come.
    mutating func reserveCapacity(adding additional: Int, like id: PersistentIdentifier) {
        guard let (isTemporary, _) = Self.integerKey(of: id) else { return others.reserveCapacity(others.count + additional) }
        let index = groupIndexMaking(id.id.scope, isTemporary: isTemporary)
        groups[index].models.reserveCapacity(groups[index].models.count + additional)
    }

    /// Keeps only the models `isIncluded` accepts.
    mutating func filter(_ isIncluded: (any PersistentModel) -> Bool) {
        for index in groups.indices { groups[index].models = groups[index].models.filter { isIncluded($0.value) } }
        others = others.filter { isIncluded($0.value) }
    }

    /// Forgets `id` when nothing but the map holds its model, which is then freed; models
    /// the app or another registered model still reaches stay, so identity is never split.
    ///
    /// - Returns: Whether the model was forgotten.
    @discardableResult
    mutating func evictIfUnreferenced(_ id: PersistentIdentifier) -> Bool {
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
