import Foundation

// Unique constraints, applied by the core: an insert that collides with a stored model or
// an earlier insert becomes an update of that model.
extension ModelContext {
    /// Turns inserts that collide on a unique constraint into updates of the model they collide with.
    ///
    /// Collisions among this save's inserts are found by key; collisions with stored models
    /// by one store query per insert when there are few, or one scan of the entity's stored
    /// keys per constraint when there are many, so large imports stay linear.
    func resolveUniqueness() throws {
        guard core.hasUniquenessConstraints else { return }
        // Classes of one hierarchy share their store entity and its constraints: a `#Unique`
        // of the root class spans every subclass. Inserts are grouped by store entity, then
        // by class, each class's in the order they were inserted.
        var groups: [String: [(runtime: EntityRuntime, models: [any PersistentModel])]] = [:]
        var order: [String] = []
        for model in inserted.models {
            guard let data = managedAny(model), !data.isDeleted else { continue }
            let runtime = try runtime(for: data.entityName)
            guard !runtime.entity.uniquenessConstraints.isEmpty else { continue }
            let key = runtime.storageEntityName
            if groups[key] == nil {
                order.append(key)
                groups[key] = []
            }
            // Appended in place: a large import must not copy the lists per insert.
            if let index = groups[key]!.firstIndex(where: { $0.runtime === runtime }) {
                groups[key]![index].models.append(model)
            } else {
                groups[key]!.append((runtime, [model]))
            }
        }
        for storageEntityName in order {
            let classes = groups[storageEntityName]!
            let root = try runtime(for: storageEntityName)
            var constraints: [[String]] = []
            for (runtime, _) in classes {
                for constraint in runtime.entity.uniquenessConstraints where !constraints.contains(constraint) {
                    constraints.append(constraint)
                }
            }
            var merged = Set<ObjectIdentifier>()
            for names in constraints {
                var pendingByKey: [[PersistentValue]: any PersistentModel] = [:]
                var candidates: [(any PersistentModel, [PersistentValue])] = []
                for (runtime, models) in classes {
                    // A constraint of a subclass does not apply to its superclass's models.
                    let slots = names.compactMap { runtime.slotByName[$0] }
                    guard slots.count == names.count else { continue }
                    for model in models where !merged.contains(ObjectIdentifier(model)) {
                        let key = slots.map { uniqueValue(of: model, slot: $0, runtime: runtime) }
                        if key.contains(.null) { continue }
                        if let earlier = pendingByKey[key] {
                            try merge(model, into: earlier, on: names)
                            merged.insert(ObjectIdentifier(model))
                            continue
                        }
                        pendingByKey[key] = model
                        candidates.append((model, key))
                    }
                }
                if candidates.count > 32 {
                    let stored = try storedKeys(of: names, type: root.modelType)
                    for (model, key) in candidates {
                        guard let id = stored[key], let existing = try liveModel(for: id), existing !== model else { continue }
                        try merge(model, into: existing, on: names)
                        merged.insert(ObjectIdentifier(model))
                    }
                } else {
                    for (model, key) in candidates {
                        guard let existing = try storedModel(matching: names, key, type: root.modelType), existing !== model else { continue }
                        try merge(model, into: existing, on: names)
                        merged.insert(ObjectIdentifier(model))
                    }
                }
            }
        }
    }

    /// The stored identifiers of `T`'s store entity by their values for the properties `names`.
    private func storedKeys<T: PersistentModel>(of names: [String], type: T.Type) throws -> [[PersistentValue]: PersistentIdentifier] {
        let entityName = Schema.entityName(for: T.self)
        var keys: [[PersistentValue]: PersistentIdentifier] = [:]
        var plan = FetchPlan<T>(filter: nil, store: try core.store(for: entityName))
        for snapshot in try plan.rows(in: self).snapshots {
            let key = names.map { snapshot[$0] ?? .null }
            if keys[key] == nil { keys[key] = snapshot.persistentIdentifier }
        }
        return keys
    }

    /// The registered model for `id` unless it is being deleted, else the stored one.
    private func liveModel(for id: PersistentIdentifier) throws -> (any PersistentModel)? {
        if let model = registered[id] {
            return managedAny(model)?.isDeleted == true ? nil : model
        }
        return try existingModels(for: [id]).first
    }

    private func uniqueValue(of model: any PersistentModel, slot: Int, runtime: EntityRuntime) -> PersistentValue {
        var related: [PersistentIdentifier: any BackingData] = [:]
        let layout = ModelLayout.of(runtime.modelType)
        return SnapshotCapture.persistentValue(of: model.anyBackingData.value(at: slot), slot: slot, layout: layout, related: &related)
    }

    private func storedModel(matching names: [String], _ key: [PersistentValue], type: any PersistentModel.Type) throws -> (any PersistentModel)? {
        var filter: FilterExpression?
        for (name, value) in zip(names, key) {
            let test = FilterExpression.comparison(.equal, .property(variable: 0, path: [name]), .value(value))
            filter = filter.map { .and($0, test) } ?? test
        }
        guard let filter else { return nil }
        return try storedModel(matching: filter, type: type)
    }

    private func storedModel<T: PersistentModel>(matching filter: FilterExpression, type: T.Type) throws -> (any PersistentModel)? {
        var plan = FetchPlan<T>(filter: filter, store: try core.store(for: Schema.entityName(for: T.self)))
        guard let snapshot = try plan.rows(in: self).snapshots.first else { return nil }
        if let model = registered[snapshot.persistentIdentifier] {
            return managedAny(model)?.isDeleted == true ? nil : model
        }
        return try materialize(snapshot)
    }

    /// Makes `model`, a pending insert, stand for `existing`: `existing` takes its attribute
    /// values and gains its related models, and both objects share one backing data, so the
    /// save updates `existing`'s record.
    ///
    /// Relationships merge rather than replace: a to-one keeps `existing`'s destination when
    /// the insert has none, and a to-many holds both sides' models, so an upsert never
    /// orphans what the stored model already had.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when the two are of different
    ///   classes of one hierarchy: an upsert cannot change a stored model's class.
    private func merge(_ model: any PersistentModel, into existing: any PersistentModel, on names: [String]) throws {
        guard let source = managedAny(model), let target = managedAny(existing) else { return }
        guard type(of: model) == type(of: existing) else {
            throw SwiftDataError.modelValidationFailure.with(
                details: "the new \(source.entityName) and the stored \(target.entityName) \(existing.persistentModelID) have the same \(names.joined(separator: ", ")), which must be unique across their class hierarchy; an insert cannot replace a model of another class, so nothing was saved")
        }
        let runtime = try runtime(for: target.entityName)
        var adopted: [(EntityRuntime.RelationshipSlot, [any PersistentModel])] = []
        for slot in 0..<source.slotCount where slot < target.slotCount {
            guard let relationship = runtime.relationshipBySlot[slot] else {
                target.recordOriginal(at: slot)
                target[slot: slot] = source[slot: slot]
                target.changedSlots.insert(slot)
                continue
            }
            let incoming = loadedModels(in: source[slot: slot])
            if relationship.isToOne {
                guard let destination = incoming.first else { continue }
                target.recordOriginal(at: slot)
                target[slot: slot] = .loaded(.toOne(destination))
                target.changedSlots.insert(slot)
                adopted.append((relationship, [destination]))
            } else {
                let current = try relatedModels(in: target[slot: slot])
                let added = incoming.filter { other in !current.contains { $0 === other } }
                guard !added.isEmpty, let type = relationship.collectionType else { continue }
                target.recordOriginal(at: slot)
                target[slot: slot] = .loaded(.toMany(RelationshipEditing.make(type, current + added)))
                target.changedSlots.insert(slot)
                adopted.append((relationship, added))
            }
        }
        if !target.isInserted && !target.isChanged {
            target.isChanged = true
            changed.insertNew(existing, target)
        }
        inserted.remove(model)
        if let id = source.identifier { registered.remove(id) }
        share(existing.anyBackingData, with: model)
        // The adopted models' inverse pointed at the insert; point it at `existing`.
        let wasMaintaining = maintainingInverses
        maintainingInverses = true
        defer { maintainingInverses = wasMaintaining }
        for (relationship, models) in adopted {
            guard let inverseSlot = relationship.inverseSlot,
                let inverse = try? self.runtime(for: relationship.destination).relationshipBySlot[inverseSlot]
            else { continue }
            for other in models {
                let data = other.anyBackingData
                if inverse.isToOne {
                    data.setValue(.toOne(existing), at: inverseSlot)
                } else if case .toMany(let collection) = data.value(at: inverseSlot) {
                    let replaced = RelationshipEditing.removing(model, from: collection)
                    let fixed = replaced._persistentModels.contains { $0 === existing } ? replaced : RelationshipEditing.appending(existing, to: replaced)
                    data.setValue(.toMany(fixed), at: inverseSlot)
                }
            }
        }
    }

    private func share(_ backingData: any BackingData, with model: any PersistentModel) {
        shareTyped(backingData, model)
    }

    private func shareTyped<M: PersistentModel>(_ backingData: any BackingData, _ model: M) {
        guard let typed = backingData as? any BackingData<M> else { return }
        // The data's owner is the stored model; the merged insert now writes through it too.
        if let managed = backingData as? ManagedData {
            managed.keepOwnerAlive()
            ownersKeptAlive.append(managed)
        }
        model.persistentBackingData = typed
    }
}
