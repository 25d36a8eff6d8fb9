/// The models a context registered: one live object per identifier, owned by the map.
///
/// The map holds its models strongly and models hold their context weakly, so there is no
/// cycle between a context and what it registered. Relationships between registered models
/// may form cycles (a trip and its items); the context breaks them when it is freed (see
/// ``ManagedData/release(keepingIdentifiers:)``), so a graph is freed with the context that fetched it.
struct IdentityMap {
    private var models: [PersistentIdentifier: any PersistentModel] = [:]

    var count: Int { models.count }
    var all: Dictionary<PersistentIdentifier, any PersistentModel>.Values { models.values }

    /// Every registered model with its identifier, without a lookup per model.
    var entries: [PersistentIdentifier: any PersistentModel] { models }

    subscript(id: PersistentIdentifier) -> (any PersistentModel)? { models[id] }

    mutating func register(_ model: any PersistentModel, as id: PersistentIdentifier) {
        models[id] = model
    }

    /// Registers `model` unless a model is registered as `id` already, which is returned and
    /// kept; one hash of the identifier either way.
    mutating func registerIfAbsent(_ model: any PersistentModel, as id: PersistentIdentifier) -> (any PersistentModel)? {
        guard let existing = models.updateValue(model, forKey: id) else { return nil }
        models[id] = existing
        return existing
    }

    @discardableResult
    mutating func remove(_ id: PersistentIdentifier) -> (any PersistentModel)? {
        models.removeValue(forKey: id)
    }

    mutating func reserveCapacity(_ capacity: Int) {
        models.reserveCapacity(capacity)
    }

    /// Keeps only the models `isIncluded` accepts.
    mutating func filter(_ isIncluded: (any PersistentModel) -> Bool) {
        models = models.filter { isIncluded($0.value) }
    }

    /// Forgets `id` when nothing but the map holds its model, which is then freed; models
    /// the app or another registered model still reaches stay, so identity is never split.
    ///
    /// - Returns: Whether the model was forgotten.
    @discardableResult
    mutating func evictIfUnreferenced(_ id: PersistentIdentifier) -> Bool {
        // The map's reference ends with this statement; a model someone else holds survives it.
        let probe = WeakModel(models.removeValue(forKey: id))
        guard let survivor = probe.model else { return true }
        models[id] = survivor
        return false
    }
}

/// A weak reference to a model.
private struct WeakModel {
    weak var object: AnyObject?
    init(_ model: (any PersistentModel)?) { object = model }
    var model: (any PersistentModel)? { object as? any PersistentModel }
}
