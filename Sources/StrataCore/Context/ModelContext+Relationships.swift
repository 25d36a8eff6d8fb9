import Foundation

// How models enter a context and how the two sides of a relationship stay in step: setting
// one side of a relationship updates the other side on the models already loaded.
extension ModelContext {
    /// The backing data of `model` when this context tracks it.
    ///
    /// Its reference to this context is compared, not the context it leads to: loading
    /// that weak reference and releasing the context again went through the context's side
    /// table (about 150 instructions per call). The reference is this context's alone, and
    /// a model that leaves the context drops it.
    func managedAny(_ model: any PersistentModel) -> ManagedData? {
        guard let data = model.managedData, data.contextReference === reference else { return nil }
        return data
    }

    /// Registers a detached model (and, recursively, the detached models it refers to) as
    /// inserted, adding to `added` those of them with relationships, whose inverses the caller
    /// links (``linkInverses(ofInserted:)``).
    func adopt(_ model: any PersistentModel, collecting added: inout [any PersistentModel]) {
        adoptOpened(model, collecting: &added)
    }

    private func adoptOpened<M: PersistentModel>(_ model: M, collecting added: inout [any PersistentModel]) {
        let layout = layout(of: M.self)
        // The backing data read once, and its class tested once: reading it again (through
        // `managedData`) called the model's getter and cast it a second time.
        let made = (model.persistentBackingData as AnyObject) as? ManagedData
        if let current = made, current.context == nil, current.isUnadopted, current.layout === layout {
            // The common insert: the values made for the new model become the registered
            // model's in place. Only slots kept apart from plain values can hold related
            // models; with none (the usual case) no list of them is made, and the backing data
            // is not held as an existential (about 130 instructions a model less: their
            // retains and releases).
            guard let others = current.storage.others else {
                adoptInPlace(model, current, layout: layout)
                noteInserted(model, current, layout: layout, collecting: &added)
                return
            }
            var related: [any PersistentModel] = []
            for case .loaded(let value)? in others { Self.collect(value, into: &related) }
            adoptInPlace(model, current, layout: layout)
            noteInserted(model, current, layout: layout, collecting: &added)
            for other in related { adopt(other, collecting: &added) }
            return
        }
        if let current = made, current.context != nil {
            if current.context === self, current.isDeleted {
                current.isDeleted = false
                deleted.remove(model)
            }
            return
        }
        // Values another backing data holds (a model that left its context, a subclass's
        // values made for its root class, a hand-written backing data): copied slot by slot.
        let source = model.persistentBackingData
        var related: [any PersistentModel] = []
        let count = layout.propertyNames.count
        var storage = SlotStorage(capacity: count)
        for slot in 0..<count {
            let value = source.value(at: slot)
            Self.collect(value, into: &related)
            storage.append(loaded: value)
        }
        // The identifier is read as stored: asking the backing data for it would make a
        // temporary one first.
        let identifier = source.persistentModelID ?? PersistentIdentifier.temporary(in: layout.temporaryScope)
        let data = layout.modelMaker.adopt(model, storage: consume storage, identifier: identifier, context: self, layout: layout)
        registered.register(model, as: identifier)
        noteInserted(model, data, layout: layout, collecting: &added)
        for other in related { adopt(other, collecting: &added) }
    }

    /// Registers `model` as inserted with `data`, the unadopted backing data made for it,
    /// which it keeps.
    @inline(__always)
    private func adoptInPlace<M: PersistentModel>(_ model: M, _ data: ManagedData, layout: ModelLayout) {
        // The identifier is read as stored: asking the backing data for it would make a
        // temporary one first.
        let identifier = data.identifier ?? PersistentIdentifier.temporary(in: layout.temporaryScope)
        layout.modelMaker.adopt(model, holding: data, as: identifier, context: self)
        registered.register(model, as: identifier)
    }

    /// Adds `model`, just registered with `data`, to the inserted models, and to `added`
    /// when it has relationships whose inverses the caller links.
    @inline(__always)
    private func noteInserted<M: PersistentModel>(_ model: M, _ data: ManagedData, layout: ModelLayout, collecting added: inout [any PersistentModel]) {
        // Not a member: a model this context holds returned before.
        inserted.insertNew(model, data)
        // Checked here: the closure's context would be allocated before registerUndo's own check.
        if undoManager != nil { registerUndo { $0.undoInsert(model) } }
        // Only a model with relationships has inverses to link: the common insert of one
        // model without any leaves `added` empty, and allocates no array.
        if !layout.relationshipSlots.isEmpty { added.append(model) }
    }

    /// Appends the models `value` refers to, if any, to `related`.
    private static func collect(_ value: BackingValue, into related: inout [any PersistentModel]) {
        switch value {
        case .toOne(let other?): related.append(other)
        case .toMany(let collection): related.append(contentsOf: collection._persistentModels as [any PersistentModel])
        default: break
        }
    }

    /// Makes the inverse side of every relationship of a newly inserted model point back at it.
    func linkInverses(ofInserted model: any PersistentModel) {
        // A model without relationships, the common insert, needs no runtime lookup by name.
        guard let data = managedAny(model), !data.layout.relationshipSlots.isEmpty, let runtime = try? runtime(for: data.entityName)
        else { return }
        for relationship in runtime.relationships where relationship.inverseSlot != nil {
            let current = loadedModels(in: data[slot: relationship.slot])
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
            changed.insertNew(model, data)
        }
        // Checked here: the closure's context would be allocated before registerUndo's own check.
        if undoManager != nil { registerUndo { $0.restore(model, slot: slot, to: old) } }
        scheduleAutosave()
        if maintainingInverses {
            // The other side of a relationship: its setter did not run, so tell its observers here.
            notifyObservers(of: model, slot: slot)
            return
        }
        // An attribute has no other side: no runtime lookup for the common write.
        guard data.layout.relationshipSlots.contains(slot), let runtime = try? runtime(for: data.entityName),
            let relationship = runtime.relationshipBySlot[slot]
        else { return }
        // The old destinations must learn they left, so a fault is loaded here (a setter,
        // not a save); if it cannot be, the save refuses to write this slot.
        let before: [any PersistentModel]
        do {
            before = try relatedModels(in: old)
        } catch {
            data.failedFaultSlots.insert(slot)
            mayHoldFailedFaults = true
            StrataLog.logger.error("the old value of \(relationship.name) of \(model.persistentModelID) could not be loaded: \(error)")
            before = []
        }
        let after = loadedModels(in: .loaded(new))
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

    /// The models a slot refers to, faulting identifiers in when needed; models that are
    /// gone from their store are left out.
    ///
    /// - Throws: The store's error while faulting.
    func relatedModels(in slot: ManagedSlot) throws -> [any PersistentModel] {
        switch slot {
        case .loaded(.toOne(let model?)): return [model]
        case .loaded(.toMany(let collection)): return collection._persistentModels
        case .toOneFault(let id): return try existingModels(for: [id])
        case .toManyFault(let ids): return try existingModels(for: ids)
        default: return []
        }
    }

    /// The models a slot already holds, without loading anything.
    func loadedModels(in slot: ManagedSlot) -> [any PersistentModel] {
        switch slot {
        case .loaded(.toOne(let model?)): [model]
        case .loaded(.toMany(let collection)): collection._persistentModels
        default: []
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
}

/// Edits of type-erased relationship collections.
enum RelationshipEditing {
    static func make(_ type: any RelationshipCollection.Type, _ models: [any PersistentModel]) -> any RelationshipCollection {
        makeTyped(type, models)
    }

    /// A collection of `type` holding the models `context` registered as `ids`, in their
    /// order, as ``make(_:_:)`` makes it from them; `nil` when one of them is not registered.
    ///
    /// A relationship loaded after a prefetch or a fetch of its models finds them all
    /// registered: they go straight into the array of objects, without the array of
    /// existentials listing them first (an allocation and a copy of each, about 450
    /// instructions a collection of three).
    static func make(_ type: any RelationshipCollection.Type, registeredAs ids: [PersistentIdentifier], in context: ModelContext) -> (any RelationshipCollection)? {
        makeTyped(type, ids, context)
    }

    private static func makeTyped<C: RelationshipCollection>(_ type: C.Type, _ ids: [PersistentIdentifier], _ context: ModelContext) -> (any RelationshipCollection)? {
        let elementType = C.PersistentElement.self
        var elements: [AnyObject] = []
        elements.reserveCapacity(ids.count)
        for id in ids {
            guard let model = context.registered[id] else { return nil }
            append(model, ifAnElementOf: type, elementType, to: &elements)
        }
        return collection(type, of: elements)
    }

    /// A collection of `type` holding `models`, in order, those of its element class: the
    /// destinations a prefetch just made, with no identifier to look up.
    static func make(_ type: any RelationshipCollection.Type, of models: ArraySlice<AnyObject>) -> any RelationshipCollection {
        makeTyped(type, models)
    }

    private static func makeTyped<C: RelationshipCollection>(_ type: C.Type, _ models: ArraySlice<AnyObject>) -> any RelationshipCollection {
        let elementType = ObjectIdentifier(C.PersistentElement.self)
        // Usually every model is of the element class: the slice is copied as it is, where
        // appending the models one by one retained each twice.
        if models.allSatisfy({ ObjectIdentifier(Swift.type(of: $0)) == elementType }) { return collection(type, of: Array(models)) }
        return collection(type, of: models.filter { $0 is C.PersistentElement })
    }

    private static func makeTyped<C: RelationshipCollection>(_ type: C.Type, _ models: [any PersistentModel]) -> any RelationshipCollection {
        let elementType = C.PersistentElement.self
        var elements: [AnyObject] = []
        elements.reserveCapacity(models.count)
        for model in models { append(model, ifAnElementOf: type, elementType, to: &elements) }
        return collection(type, of: elements)
    }

    /// Appends `model` to `elements` when it is of the element class of `type`, which the
    /// caller looked up once as `elementType`; a model of exactly that class (the usual case)
    /// needs no dynamic cast.
    @inline(__always)
    private static func append<C: RelationshipCollection>(
        _ model: any PersistentModel, ifAnElementOf type: C.Type, _ elementType: C.PersistentElement.Type, to elements: inout [AnyObject]
    ) {
        if Swift.type(of: model) == elementType || model is C.PersistentElement { elements.append(model as AnyObject) }
    }

    /// A collection of `type` holding `elements`, objects of its element class.
    ///
    /// The makers run unspecialized, where building an array of the element type asked the
    /// runtime for its metadata and went through unspecialized `reserveCapacity` and
    /// `append` (about 1,000 instructions a collection). The models go into an array of
    /// objects, in code specialized for it, read here as an array of the element class:
    /// arrays of class references share one representation (as `asAnyKeyPaths` relies on).
    @inline(__always)
    private static func collection<C: RelationshipCollection>(_ type: C.Type, of elements: [AnyObject]) -> C {
        C(_persistentModels: unsafeBitCast(elements, to: [C.PersistentElement].self))
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
