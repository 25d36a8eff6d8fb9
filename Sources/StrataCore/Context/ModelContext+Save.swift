import Foundation

extension ModelContext {
    /// Writes the context's inserts, changes and deletes to their stores.
    ///
    /// Delete rules apply first: `.cascade` deletes related models, `.nullify` clears the
    /// other side, `.deny` refuses. Inserts that collide with a stored model (or with an
    /// earlier insert of this save) on a unique constraint update that model instead.
    /// Each store saves in one transaction of its own.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when a `.deny` rule refuses a
    ///   delete (nothing changes then), or a store's error; changes of stores that failed
    ///   stay pending.
    public func save() throws {
        applyInbox()
        guard hasChanges else { return }
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)
        try applyDeleteRules()
        try resolveUniqueness()

        var groups: [String: (inserted: [any PersistentModel], updated: [any PersistentModel], deleted: [any PersistentModel])] = [:]
        func add(_ model: any PersistentModel, _ path: WritableKeyPath<(inserted: [any PersistentModel], updated: [any PersistentModel], deleted: [any PersistentModel]), [any PersistentModel]>) throws {
            let entityName = managedAny(model)?.entityName ?? Schema.entityName(for: type(of: model))
            let store = try container.store(for: entityName)
            groups[store.identifier, default: ([], [], [])][keyPath: path].append(model)
        }
        for model in inserted.models where managedAny(model)?.isDeleted != true { try add(model, \.inserted) }
        for model in changed.models where managedAny(model)?.isDeleted != true { try add(model, \.updated) }
        for model in deleted.models where managedAny(model)?.isInserted != true { try add(model, \.deleted) }

        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        var savedInserted: [PersistentIdentifier] = []
        var savedUpdated: [DefaultSnapshot] = []
        var savedDeleted: [PersistentIdentifier] = []
        var savedByStore: [(StoreBox, [any PersistentModel], [PersistentIdentifier])] = []
        for store in container.stores {
            guard let group = groups[store.identifier] else { continue }
            let result = try store.save(
                editingState: editingState,
                inserted: group.inserted.map(\.anyBackingData), updated: group.updated.map(\.anyBackingData),
                deleted: group.deleted.map(\.anyBackingData), remapped: remapped)
            remapped.merge(result.remapped) { _, new in new }
            let insertedIDs = group.inserted.map { finishInsert($0, remapped: remapped) }
            savedInserted.append(contentsOf: insertedIDs)
            for model in group.updated { savedUpdated.append(finishUpdate(model)) }
            for model in group.deleted { savedDeleted.append(finishDelete(model)) }
            for (id, snapshot) in result.reregister {
                guard let model = registered[id]?.model, let data = managedAny(model),
                    let runtime = try? runtime(for: id.entityName)
                else { continue }
                refresh(data, from: snapshot, runtime: runtime, partial: false)
            }
            savedByStore.append((store, group.inserted + group.updated, insertedIDs))
        }
        try resaveForwardReferences(savedByStore)
        for model in inserted.models where managedAny(model)?.isDeleted == true {
            finishDiscardedInsert(model)
        }
        inserted = ModelSet()
        changed = ModelSet()
        deleted = ModelSet()
        knownSnapshots = [:]
        container.broadcast(from: self, change: .saved(updated: savedUpdated, deleted: savedDeleted))
        NotificationCenter.default.post(
            name: ModelContext.didSave, object: self,
            userInfo: [
                NotificationKey.insertedIdentifiers.rawValue: savedInserted,
                NotificationKey.updatedIdentifiers.rawValue: savedUpdated.map(\.persistentIdentifier),
                NotificationKey.deletedIdentifiers.rawValue: savedDeleted,
            ])
    }

    // MARK: Bookkeeping after a store saved

    private func finishInsert(_ model: any PersistentModel, remapped: [PersistentIdentifier: PersistentIdentifier]) -> PersistentIdentifier {
        guard let data = managedAny(model), let temporary = data.identifier else { return model.persistentModelID }
        let permanent = remapped[temporary] ?? temporary
        if permanent != temporary {
            registered[temporary] = nil
            data.identifier = permanent
        }
        registered[permanent] = WeakModel(model)
        data.isInserted = false
        data.isChanged = false
        data.original = nil
        return permanent
    }

    private func finishUpdate(_ model: any PersistentModel) -> DefaultSnapshot {
        let data = managedAny(model)
        data?.isChanged = false
        data?.original = nil
        var related: [PersistentIdentifier: any BackingData] = [:]
        return DefaultSnapshot(from: model.anyBackingData, relatedBackingDatas: &related)
    }

    private func finishDelete(_ model: any PersistentModel) -> PersistentIdentifier {
        let id = model.persistentModelID
        registered[id] = nil
        if let data = managedAny(model) {
            data.original = nil
            data.isChanged = false
            data.context = nil
            data.isDeleted = true
        }
        return id
    }

    private func finishDiscardedInsert(_ model: any PersistentModel) {
        guard let data = managedAny(model) else { return }
        if let id = data.identifier { registered[id] = nil }
        data.detach()
        data.isDeleted = true
    }

    /// Saves again the models of earlier stores that refer to models a later store of this
    /// save gave permanent identifiers: the earlier store only saw their temporary ones.
    private func resaveForwardReferences(_ saved: [(StoreBox, [any PersistentModel], [PersistentIdentifier])]) throws {
        guard saved.count > 1 else { return }
        var later: Set<PersistentIdentifier> = []
        for position in saved.indices.reversed() {
            let (store, models, _) = saved[position]
            if !later.isEmpty {
                let stale = models.filter { model in
                    guard let data = managedAny(model) else { return false }
                    return data.slots.contains { slot in
                        relatedIdentifiers(in: slot).contains { later.contains($0) }
                    }
                }
                if !stale.isEmpty {
                    _ = try store.save(
                        editingState: editingState, inserted: [], updated: stale.map(\.anyBackingData), deleted: [],
                        remapped: [:])
                }
            }
            later.formUnion(saved[position].2)
        }
    }

    private func relatedIdentifiers(in slot: ManagedSlot) -> [PersistentIdentifier] {
        switch slot {
        case .loaded(.toOne(let model?)): [model.persistentModelID]
        case .loaded(.toMany(let collection)): collection._persistentModels.map(\.persistentModelID)
        default: []
        }
    }

    // MARK: Delete rules

    /// Extends the pending deletes by `.cascade`, refuses by `.deny`, and applies `.nullify`.
    private func applyDeleteRules() throws {
        var plan = deleted.models
        var planned = Set(plan.map { ObjectIdentifier($0) })
        var denials: [(any PersistentModel, EntityRuntime.RelationshipSlot, [any PersistentModel])] = []
        var nullify: [(any PersistentModel, EntityRuntime.RelationshipSlot, [any PersistentModel])] = []
        var index = 0
        while index < plan.count {
            let model = plan[index]
            index += 1
            guard let data = managedAny(model), let runtime = try? runtime(for: data.entityName) else { continue }
            for relationship in runtime.relationships {
                let related = relatedModels(in: data.slots[relationship.slot])
                guard !related.isEmpty else { continue }
                switch relationship.deleteRule {
                case .cascade:
                    for other in related where planned.insert(ObjectIdentifier(other)).inserted { plan.append(other) }
                case .deny:
                    denials.append((model, relationship, related))
                case .nullify:
                    nullify.append((model, relationship, related))
                case .noAction:
                    break
                }
            }
        }
        for (model, relationship, related) in denials {
            let blocking = related.filter { !planned.contains(ObjectIdentifier($0)) }
            guard !blocking.isEmpty else { continue }
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(Schema.entityName(for: type(of: model))) \(model.persistentModelID) cannot be deleted: its relationship \(relationship.name) has the .deny rule and still holds \(blocking.count) \(relationship.destination) model(s)")
        }
        for model in plan.dropFirst(deleted.count) {
            guard let data = managedAny(model) else { continue }
            data.isDeleted = true
            deleted.insert(model)
        }
        for (model, relationship, related) in nullify {
            let survivors = related.filter { !planned.contains(ObjectIdentifier($0)) }
            guard !survivors.isEmpty else { continue }
            maintainInverse(of: model, relationship, removed: survivors, added: [])
        }
    }

    // MARK: Uniqueness

    /// Turns inserts that collide on a unique constraint into updates of the model they collide with.
    ///
    /// Collisions among this save's inserts are found by key; collisions with stored models
    /// by one store query per insert when there are few, or one scan of the entity's stored
    /// keys per constraint when there are many, so large imports stay linear.
    private func resolveUniqueness() throws {
        var groups: [String: [any PersistentModel]] = [:]
        for model in inserted.models {
            guard let data = managedAny(model), !data.isDeleted else { continue }
            groups[data.entityName, default: []].append(model)
        }
        for (entityName, models) in groups {
            let runtime = try runtime(for: entityName)
            guard !runtime.uniqueSlots.isEmpty else { continue }
            var merged = Set<ObjectIdentifier>()
            for constraint in runtime.uniqueSlots {
                var pendingByKey: [[PersistentValue]: any PersistentModel] = [:]
                var candidates: [(any PersistentModel, [PersistentValue])] = []
                for model in models where !merged.contains(ObjectIdentifier(model)) {
                    let key = constraint.map { uniqueValue(of: model, slot: $0, runtime: runtime) }
                    if key.contains(.null) { continue }
                    if let earlier = pendingByKey[key] {
                        merge(model, into: earlier)
                        merged.insert(ObjectIdentifier(model))
                        continue
                    }
                    pendingByKey[key] = model
                    candidates.append((model, key))
                }
                if candidates.count > 32 {
                    let stored = try storedKeys(of: constraint, runtime: runtime)
                    for (model, key) in candidates {
                        guard let id = stored[key], let existing = try liveModel(for: id), existing !== model else { continue }
                        merge(model, into: existing)
                        merged.insert(ObjectIdentifier(model))
                    }
                } else {
                    for (model, key) in candidates {
                        guard let existing = try storedModel(matching: constraint, key, runtime: runtime), existing !== model else { continue }
                        merge(model, into: existing)
                        merged.insert(ObjectIdentifier(model))
                    }
                }
            }
        }
    }

    /// The stored identifiers of `runtime`'s entity by their values for `constraint`.
    private func storedKeys(of constraint: [Int], runtime: EntityRuntime) throws -> [[PersistentValue]: PersistentIdentifier] {
        try storedKeys(of: constraint.map { runtime.propertyNames[$0] }, type: runtime.modelType)
    }

    private func storedKeys<T: PersistentModel>(of names: [String], type: T.Type) throws -> [[PersistentValue]: PersistentIdentifier] {
        let entityName = Schema.entityName(for: T.self)
        var keys: [[PersistentValue]: PersistentIdentifier] = [:]
        for snapshot in try storeSnapshots(T.self, filter: nil).snapshots where snapshot.persistentIdentifier.entityName == entityName {
            let key = names.map { snapshot[$0] ?? .null }
            if keys[key] == nil { keys[key] = snapshot.persistentIdentifier }
        }
        return keys
    }

    /// The registered model for `id` unless it is being deleted, else the stored one.
    private func liveModel(for id: PersistentIdentifier) throws -> (any PersistentModel)? {
        if let model = registered[id]?.model {
            return managedAny(model)?.isDeleted == true ? nil : model
        }
        return try existingModel(for: id)
    }

    private func uniqueValue(of model: any PersistentModel, slot: Int, runtime: EntityRuntime) -> PersistentValue {
        var related: [PersistentIdentifier: any BackingData] = [:]
        let layout = ModelLayout.of(runtime.modelType)
        return SnapshotCapture.persistentValue(of: model.anyBackingData.value(at: slot), slot: slot, layout: layout, related: &related)
    }

    private func storedModel(matching constraint: [Int], _ key: [PersistentValue], runtime: EntityRuntime) throws -> (any PersistentModel)? {
        var filter: FilterExpression?
        for (slot, value) in zip(constraint, key) {
            let test = FilterExpression.comparison(.equal, .property(variable: 0, path: [runtime.propertyNames[slot]]), .value(value))
            filter = filter.map { .and($0, test) } ?? test
        }
        guard let filter else { return nil }
        return try storedModel(matching: filter, type: runtime.modelType)
    }

    private func storedModel<T: PersistentModel>(matching filter: FilterExpression, type: T.Type) throws -> (any PersistentModel)? {
        let candidates = try storeSnapshots(T.self, filter: filter)
        let evaluator = FilterEvaluator { id in
            candidates.related[id] ?? candidates.snapshots.first { $0.persistentIdentifier == id }
        }
        let entityName = Schema.entityName(for: T.self)
        let snapshots = try candidates.snapshots.filter {
            try $0.persistentIdentifier.entityName == entityName && evaluator.matches($0, filter)
        }
        guard let snapshot = snapshots.first else { return nil }
        if let model = registered[snapshot.persistentIdentifier]?.model {
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
    private func merge(_ model: any PersistentModel, into existing: any PersistentModel) {
        guard let source = managedAny(model), let target = managedAny(existing),
            let runtime = try? runtime(for: target.entityName)
        else { return }
        if !target.isInserted && !target.isChanged && target.original == nil { target.original = target.slots }
        var adopted: [(EntityRuntime.RelationshipSlot, [any PersistentModel])] = []
        for slot in source.slots.indices where slot < target.slots.count {
            guard let relationship = runtime.relationshipBySlot[slot] else {
                target.slots[slot] = source.slots[slot]
                continue
            }
            let incoming = relatedModels(in: source.slots[slot])
            if relationship.isToOne {
                guard let destination = incoming.first else { continue }
                target.slots[slot] = .loaded(.toOne(destination))
                adopted.append((relationship, [destination]))
            } else {
                let current = relatedModels(in: target.slots[slot])
                let added = incoming.filter { other in !current.contains { $0 === other } }
                guard !added.isEmpty, let type = relationship.collectionType else { continue }
                target.slots[slot] = .loaded(.toMany(RelationshipEditing.make(type, current + added)))
                adopted.append((relationship, added))
            }
        }
        if !target.isInserted && !target.isChanged {
            target.isChanged = true
            changed.insert(existing)
        }
        inserted.remove(model)
        if let id = source.identifier { registered[id] = nil }
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
        model.persistentBackingData = typed
    }
}
