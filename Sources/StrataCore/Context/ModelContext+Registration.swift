import Foundation

// How models enter a context, how their faults resolve, and how the two sides of a
// relationship stay in step.
extension ModelContext {
    func runtime(for entityName: String) throws -> EntityRuntime {
        try container.runtime(for: entityName)
    }

    func managed<T: PersistentModel>(_ model: T) -> ManagedBackingData<T>? {
        guard let data = model.persistentBackingData as? ManagedBackingData<T>, data.context === self else { return nil }
        return data
    }

    func managedAny(_ model: any PersistentModel) -> (any ManagedData)? {
        guard let data = model.anyBackingData as? any ManagedData, data.context === self else { return nil }
        return data
    }

    /// Registers a detached model (and, recursively, the detached models it refers to) as inserted.
    func adopt(_ model: any PersistentModel, collecting added: inout [any PersistentModel]) {
        adoptOpened(model, collecting: &added)
    }

    private func adoptOpened<M: PersistentModel>(_ model: M, collecting added: inout [any PersistentModel]) {
        if let data = model.persistentBackingData as? ManagedBackingData<M> {
            if data.context === self {
                if data.isDeleted {
                    data.isDeleted = false
                    deleted.remove(model)
                }
                return
            }
            if data.context != nil { return }
        }
        let source = model.persistentBackingData
        let count = ModelLayout.of(M.self).propertyNames.count
        var slots = ContiguousArray<ManagedSlot>()
        slots.reserveCapacity(count)
        var related: [any PersistentModel] = []
        for slot in 0..<count {
            let value = source.value(at: slot)
            switch value {
            case .toOne(let other?): related.append(other)
            case .toMany(let collection): related.append(contentsOf: collection._persistentModels as [any PersistentModel])
            default: break
            }
            slots.append(.loaded(value))
        }
        let entityName = ModelLayout.of(M.self).entityName
        let identifier = source.persistentModelID ?? PersistentIdentifier.temporary(entityName: entityName)
        let data = ManagedBackingData<M>(slots: slots, identifier: identifier, context: self, entityName: entityName)
        data.owner = model
        data.isInserted = true
        model.persistentBackingData = data
        registered[identifier] = WeakModel(model)
        inserted.insert(model)
        added.append(model)
        for other in related { adopt(other, collecting: &added) }
    }

    /// Makes the inverse side of every relationship of a newly inserted model point back at it.
    func linkInverses(ofInserted model: any PersistentModel) {
        guard let data = managedAny(model), let runtime = try? runtime(for: data.entityName) else { return }
        for relationship in runtime.relationships where relationship.inverseSlot != nil {
            let current = relatedModels(in: data.slots[relationship.slot])
            guard !current.isEmpty else { continue }
            maintainInverse(of: model, relationship, removed: [], added: current)
        }
    }

    // MARK: Changes

    func backingDataDidChange<M: PersistentModel>(
        _ model: M, _ data: ManagedBackingData<M>, slot: Int, old: ManagedSlot, new: BackingValue
    ) {
        if !data.isInserted && !data.isDeleted && !data.isChanged {
            data.isChanged = true
            changed.insert(model)
        }
        scheduleAutosave()
        guard !maintainingInverses, let runtime = try? runtime(for: data.entityName),
            let relationship = runtime.relationshipBySlot[slot]
        else { return }
        let before = relatedModels(in: old)
        let after = relatedModels(in: .loaded(new))
        var added: [any PersistentModel] = []
        for other in after where managedAny(other) == nil { adopt(other, collecting: &added) }
        for other in added { linkInverses(ofInserted: other) }
        let beforeIDs = Set(before.map { ObjectIdentifier($0) })
        let afterIDs = Set(after.map { ObjectIdentifier($0) })
        maintainInverse(
            of: model, relationship,
            removed: before.filter { !afterIDs.contains(ObjectIdentifier($0)) },
            added: after.filter { !beforeIDs.contains(ObjectIdentifier($0)) })
    }

    /// The models a slot refers to, faulting identifiers in when needed.
    func relatedModels(in slot: ManagedSlot) -> [any PersistentModel] {
        switch slot {
        case .loaded(.toOne(let model?)): return [model]
        case .loaded(.toMany(let collection)): return collection._persistentModels
        case .toOneFault(let id): return (try? existingModel(for: id)).map { [$0] } ?? []
        case .toManyFault(let ids): return (try? existingModels(for: ids)) ?? []
        default: return []
        }
    }

    /// Updates the other side of `relationship` of `owner` after models were removed from or added to it.
    func maintainInverse(
        of owner: any PersistentModel, _ relationship: EntityRuntime.RelationshipSlot,
        removed: [any PersistentModel], added: [any PersistentModel]
    ) {
        guard let inverseSlot = relationship.inverseSlot,
            let inverse = try? runtime(for: relationship.destination).relationshipBySlot[inverseSlot]
        else { return }
        let wasMaintaining = maintainingInverses
        maintainingInverses = true
        defer { maintainingInverses = wasMaintaining }
        for other in removed {
            let data = other.anyBackingData
            if inverse.isToOne {
                if case .toOne(let current?) = data.value(at: inverseSlot), current === owner {
                    data.setValue(.toOne(nil), at: inverseSlot)
                }
            } else if case .toMany(let collection) = data.value(at: inverseSlot) {
                data.setValue(.toMany(RelationshipEditing.removing(owner, from: collection)), at: inverseSlot)
            }
        }
        for other in added {
            let data = other.anyBackingData
            if inverse.isToOne {
                let current: (any PersistentModel)?
                if case .toOne(let model) = data.value(at: inverseSlot) { current = model } else { current = nil }
                if let current, current === owner { continue }
                if let previous = current {
                    // `other` moves from `previous` to `owner`: take it out of `previous`'s side.
                    let previousData = previous.anyBackingData
                    if relationship.isToOne {
                        if case .toOne(let held?) = previousData.value(at: relationship.slot), held === other {
                            previousData.setValue(.toOne(nil), at: relationship.slot)
                        }
                    } else if case .toMany(let collection) = previousData.value(at: relationship.slot) {
                        previousData.setValue(.toMany(RelationshipEditing.removing(other, from: collection)), at: relationship.slot)
                    }
                }
                data.setValue(.toOne(owner), at: inverseSlot)
            } else {
                switch data.value(at: inverseSlot) {
                case .toMany(let collection):
                    if !collection._persistentModels.contains(where: { $0 === owner }) {
                        data.setValue(.toMany(RelationshipEditing.appending(owner, to: collection)), at: inverseSlot)
                    }
                default:
                    if let type = inverse.collectionType {
                        data.setValue(.toMany(RelationshipEditing.make(type, [owner])), at: inverseSlot)
                    }
                }
            }
        }
    }

    // MARK: Faults and materialisation

    /// Loads what a faulted slot refers to and stores it in the slot.
    func resolveFault<M: PersistentModel>(of data: ManagedBackingData<M>, at slot: Int) -> BackingValue {
        switch data.slots[slot] {
        case .loaded(let value):
            return value
        case .toOneFault(let id):
            let model = try? existingModel(for: id)
            data.slots[slot] = .loaded(.toOne(model))
            return .toOne(model)
        case .toManyFault(let ids):
            let models = (try? existingModels(for: ids)) ?? []
            guard let type = (try? runtime(for: data.entityName))?.relationshipBySlot[slot]?.collectionType else {
                return .unset
            }
            let value = BackingValue.toMany(RelationshipEditing.make(type, models))
            data.slots[slot] = .loaded(value)
            return value
        case .unloaded:
            guard let id = data.persistentModelID, let snapshot = try? fetchSnapshot(for: id),
                let runtime = try? runtime(for: data.entityName)
            else { return .unset }
            let full = (try? slots(from: snapshot, runtime: runtime, partial: false)) ?? []
            for index in data.slots.indices where index < full.count {
                if case .unloaded = data.slots[index] { data.slots[index] = full[index] }
            }
            if case .loaded(let value) = data.slots[slot] { return value }
            return resolveFault(of: data, at: slot)
        }
    }

    /// The registered model with `id`, or the one its store holds.
    ///
    /// - Throws: ``SwiftDataError/missingModelContext`` when no store holds `id`, or the store's error.
    func existingModel(for id: PersistentIdentifier) throws -> any PersistentModel {
        if let model = registered[id]?.model { return model }
        let snapshot = try fetchSnapshot(for: id)
        return try materialize(snapshot)
    }

    /// The models with `ids`, in order, fetching the unregistered ones in one request per store.
    func existingModels(for ids: [PersistentIdentifier]) throws -> [any PersistentModel] {
        var missing: [PersistentIdentifier] = []
        for id in ids where registered[id]?.model == nil && knownSnapshots[id] == nil { missing.append(id) }
        if !missing.isEmpty {
            for (entityName, group) in Dictionary(grouping: missing, by: \.entityName) {
                let runtime = try runtime(for: entityName)
                for snapshot in try fetchSnapshots(ids: group, runtime: runtime) { knownSnapshots[snapshot.persistentIdentifier] = snapshot }
            }
        }
        return ids.compactMap { try? existingModel(for: $0) }
    }

    func fetchSnapshot(for id: PersistentIdentifier) throws -> DefaultSnapshot {
        if let known = knownSnapshots[id] { return known }
        let runtime = try runtime(for: id.entityName)
        guard let snapshot = try fetchSnapshots(ids: [id], runtime: runtime).first else {
            throw SwiftDataError.missingModelContext.with(details: "no store holds \(id)")
        }
        return snapshot
    }

    /// Registers a fetched snapshot: the live registered model (refreshed if unchanged) or a new one.
    func materialize(_ snapshot: DefaultSnapshot, partial: Bool = false) throws -> any PersistentModel {
        let id = snapshot.persistentIdentifier
        let runtime = try runtime(for: id.entityName)
        if let model = registered[id]?.model {
            if let data = managedAny(model), !data.hasChangesPending {
                refresh(data, from: snapshot, runtime: runtime, partial: partial)
            }
            return model
        }
        if !knownSnapshots.isEmpty { knownSnapshots[id] = nil }
        let slots = try slots(from: snapshot, runtime: runtime, partial: partial)
        let model = makeModel(runtime.modelType, slots: slots, id: id, entityName: runtime.entity.name)
        registered[id] = WeakModel(model)
        return model
    }

    private func makeModel<M: PersistentModel>(
        _ type: M.Type, slots: ContiguousArray<ManagedSlot>, id: PersistentIdentifier, entityName: String
    ) -> M {
        let data = ManagedBackingData<M>(slots: slots, identifier: id, context: self, entityName: entityName)
        let model = M(backingData: data)
        data.owner = model
        return model
    }

    func makePlaceholder(_ type: any PersistentModel.Type, _ id: PersistentIdentifier) -> any PersistentModel {
        let count = ModelLayout.of(type).propertyNames.count
        return makeModel(type, slots: ContiguousArray(repeating: .loaded(.unset), count: count), id: id, entityName: id.entityName)
    }

    func refresh(_ data: any ManagedData, from snapshot: DefaultSnapshot, runtime: EntityRuntime, partial: Bool) {
        guard let fresh = try? slots(from: snapshot, runtime: runtime, partial: partial) else { return }
        for index in fresh.indices {
            if case .unloaded = fresh[index] { continue }
            data.slots[index] = fresh[index]
        }
        data.original = nil
    }

    /// Turns snapshot values into slots, checking each attribute's kind.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming the property when a store
    ///   returned a value of the wrong kind, or none for a required property of a full fetch.
    func slots(from snapshot: DefaultSnapshot, runtime: EntityRuntime, partial: Bool) throws -> ContiguousArray<ManagedSlot> {
        let aligned = snapshot.propertyNames == runtime.propertyNames
        var result = ContiguousArray<ManagedSlot>()
        result.reserveCapacity(runtime.propertyNames.count)
        for (slot, name) in runtime.propertyNames.enumerated() {
            let value: PersistentValue? = aligned ? snapshot.values[slot] : snapshot[name]
            guard let value else {
                if partial { result.append(.unloaded); continue }
                if let attribute = runtime.attributeBySlot[slot], attribute.isOptional {
                    result.append(.loaded(.attribute(.null)))
                    continue
                }
                if let relationship = runtime.relationshipBySlot[slot] {
                    result.append(relationship.isToOne ? .loaded(.toOne(nil)) : .toManyFault([]))
                    continue
                }
                throw SwiftDataError.modelValidationFailure.with(
                    details: "the store returned \(snapshot.persistentIdentifier) without a value for \(runtime.entity.name).\(name)")
            }
            if let attribute = runtime.attributeBySlot[slot] {
                result.append(try attributeSlot(value, attribute, entity: runtime.entity.name))
            } else if let relationship = runtime.relationshipBySlot[slot] {
                switch value {
                case .null: result.append(relationship.isToOne ? .loaded(.toOne(nil)) : .toManyFault([]))
                case .identifier(let id) where relationship.isToOne:
                    if let model = registered[id]?.model { result.append(.loaded(.toOne(model))) } else { result.append(.toOneFault(id)) }
                case .identifiers(let ids) where !relationship.isToOne:
                    result.append(.toManyFault(ids))
                default:
                    throw SwiftDataError.modelValidationFailure.with(
                        details: "the store returned \(value.kind.map { "a \($0.rawValue)" } ?? "nil") for the relationship \(runtime.entity.name).\(name)")
                }
            }
        }
        return result
    }

    private func attributeSlot(_ value: PersistentValue, _ attribute: EntityRuntime.AttributeSlot, entity: String) throws -> ManagedSlot {
        if let transformer = attribute.transformerName {
            guard case .data(let data) = value else {
                return .loaded(.transformable(nil))
            }
            let object = ValueTransformer(forName: NSValueTransformerName(transformer))?.reverseTransformedValue(data)
            return .loaded(.transformable(object))
        }
        switch (value, attribute.kind) {
        case (.null, _) where attribute.isOptional: return .loaded(.attribute(.null))
        case (.int, .double), (.int, .decimal), (.int, .bool): return .loaded(.attribute(value))
        case (.double, .decimal): return .loaded(.attribute(value))
        default:
            guard value.kind == attribute.kind else {
                throw SwiftDataError.modelValidationFailure.with(
                    details: "the store returned \(value.kind.map { "a \($0.rawValue)" } ?? "nil") for \(entity).\(attribute.name), which holds \(attribute.isOptional ? "an optional " : "")\(attribute.kind.rawValue)")
            }
            return .loaded(.attribute(value))
        }
    }

    // MARK: Other contexts

    /// Applies what other contexts saved since this context's last operation.
    func applyInbox() {
        for change in inbox.take() {
            switch change {
            case .saved(let updated, let deletedIDs):
                for snapshot in updated {
                    guard let model = registered[snapshot.persistentIdentifier]?.model, let data = managedAny(model),
                        !data.hasChangesPending, let runtime = try? runtime(for: data.entityName)
                    else { continue }
                    refresh(data, from: snapshot, runtime: runtime, partial: false)
                }
                for id in deletedIDs {
                    guard let model = registered.removeValue(forKey: id)?.model, let data = managedAny(model) else { continue }
                    data.isDeleted = true
                    changed.remove(model)
                }
            case .invalidateAll:
                for (_, entry) in registered {
                    guard let model = entry.model, let data = managedAny(model), !data.isInserted else { continue }
                    data.isDeleted = true
                }
                registered = registered.filter { entry in
                    entry.value.model.flatMap { managedAny($0)?.isInserted } ?? false
                }
                changed = ModelSet()
                deleted = ModelSet()
                knownSnapshots = [:]
            }
        }
    }

    func scheduleAutosave() {
        guard autosaveEnabled, isMainContext, !autosaveScheduled else { return }
        autosaveScheduled = true
        let context = UncheckedContext(self)
        Task { @MainActor in
            let context = context.context
            context.autosaveScheduled = false
            guard context.autosaveEnabled, context.hasChanges else { return }
            do {
                try context.save()
            } catch {
                StrataLog.logger.error("autosave of the main context failed: \(error)")
            }
        }
    }
}

extension ManagedData {
    var hasChangesPending: Bool { isInserted || isChanged || isDeleted }
}

/// Carries the main context into a main-actor task; only the main actor touches it.
struct UncheckedContext: @unchecked Sendable {
    let context: ModelContext
    init(_ context: ModelContext) { self.context = context }
}

/// Edits of type-erased relationship collections.
enum RelationshipEditing {
    static func make(_ type: any RelationshipCollection.Type, _ models: [any PersistentModel]) -> any RelationshipCollection {
        makeTyped(type, models)
    }

    private static func makeTyped<C: RelationshipCollection>(_ type: C.Type, _ models: [any PersistentModel]) -> any RelationshipCollection {
        C(_persistentModels: models.compactMap { $0 as? C.PersistentElement })
    }

    static func appending(_ model: any PersistentModel, to collection: any RelationshipCollection) -> any RelationshipCollection {
        appendingTyped(model, collection)
    }

    private static func appendingTyped<C: RelationshipCollection>(_ model: any PersistentModel, _ collection: C) -> any RelationshipCollection {
        guard let element = model as? C.PersistentElement else { return collection }
        return C(_persistentModels: collection._persistentModels + [element])
    }

    static func removing(_ model: any PersistentModel, from collection: any RelationshipCollection) -> any RelationshipCollection {
        removingTyped(model, collection)
    }

    private static func removingTyped<C: RelationshipCollection>(_ model: any PersistentModel, _ collection: C) -> any RelationshipCollection {
        C(_persistentModels: collection._persistentModels.filter { $0 !== model })
    }
}
