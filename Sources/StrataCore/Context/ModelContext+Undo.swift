import Foundation

// Undo and redo: a context with an undo manager records the reverse of every insert, delete
// and property change, slot by slot, including the other sides of relationships it kept in
// step. Undoing replays those reverses last first, without relationship upkeep, so values
// and relationships come back exactly.
extension ModelContext {
    /// Records `action` as the undo of a change just made, unless there is no undo manager
    /// or the context is making changes of its own (a save).
    func registerUndo(_ action: @escaping (ModelContext) -> Void) {
        guard let undoManager, !suspendsUndoRegistration else { return }
        let box = UndoAction(action)
        undoManager.registerUndo(withTarget: self) { box.action($0) }
    }

    /// Ends the undo group a change opened, as the end of an event would on Apple platforms.
    func closeUndoEventGroup() {
        guard let undoManager else { return }
        #if canImport(Darwin)
        if undoManager.groupsByEvent && undoManager.groupingLevel == 1 { undoManager.endUndoGrouping() }
        #else
        undoManager.closeEventGroup()
        #endif
    }

    /// Puts `value` back in `slot` of `model` as the undo or redo of a change, recording the
    /// reverse in turn, and tells the model's observers.
    func restore(_ model: any PersistentModel, slot: Int, to value: ManagedSlot) {
        guard let data = managedAny(model), slot < data.slotCount else { return }
        let current = data[slot: slot]
        registerUndo { $0.restore(model, slot: slot, to: current) }
        data.restore(value, at: slot)
        if !data.isInserted && !data.isDeleted && !data.isChanged {
            data.isChanged = true
            changed.insertNew(model, data)
        }
        notifyObservers(of: model, slot: slot)
        scheduleAutosave()
    }

    /// Tells the observers of `model`'s property in `slot` that it changed outside its setter.
    func notifyObservers(of model: any PersistentModel, slot: Int) {
        let keyPaths = ModelLayout.of(type(of: model)).keyPaths
        guard slot < keyPaths.count else { return }
        model._notifyObservers(ofChangeAt: keyPaths[slot])
    }

    /// Takes back an insert: an unsaved model leaves the context (keeping its values), a
    /// saved one is deleted at the next save.
    func undoInsert(_ model: any PersistentModel) {
        guard let data = managedAny(model) else { return }
        guard inserted.contains(model) else {
            deleteAny(model)
            return
        }
        inserted.remove(model)
        deleted.remove(model)
        if let id = data.identifier { registered.remove(id) }
        data.detach()
        data.isDeleted = false
        registerUndo { $0.reinsert(model) }
    }

    /// Takes back a delete: a pending one is cancelled; a saved one inserts the model again,
    /// as a new model with its values and the related models this context still holds.
    func undoDelete(_ model: any PersistentModel) {
        if let data = managedAny(model) {
            guard data.isDeleted else { return }
            data.isDeleted = false
            deleted.remove(model)
            registerUndo { $0.deleteAny(model) }
            return
        }
        reinsert(model)
    }

    /// Inserts a model that left the context, resolving the relationships it held as
    /// identifiers against the models this context registered.
    private func reinsert(_ model: any PersistentModel) {
        guard let data = model.managedData, data.context == nil else { return }
        let layout = ModelLayout.of(type(of: model))
        for slot in 0..<data.slotCount {
            switch data[slot: slot] {
            case .toOneFault(let id):
                data[slot: slot] = .loaded(.toOne(registered[id]))
            case .toManyFault(let ids):
                guard let type = layout.collectionType(at: slot) else { continue }
                data[slot: slot] = .loaded(.toMany(RelationshipEditing.make(type, ids.compactMap { registered[$0] })))
            default:
                break
            }
        }
        // A saved delete's identifier names a row that is gone: the model comes back as new.
        if data.identifier.map({ !$0.isTemporary }) ?? false { data.identifier = nil }
        data.isDeleted = false
        var added: [any PersistentModel] = []
        adopt(model, collecting: &added)
        for other in added { linkInverses(ofInserted: other) }
        scheduleAutosave()
    }

    /// ``delete(_:)`` for a model whose type is not known statically.
    func deleteAny(_ model: any PersistentModel) {
        delete(model)
    }
}

/// An undo action carried into the undo manager's handler.
///
/// The action runs on the context's own thread: an undo manager, like its context, is used
/// from one thread or actor.
private struct UndoAction: @unchecked Sendable {
    let action: (ModelContext) -> Void
    init(_ action: @escaping (ModelContext) -> Void) { self.action = action }
}
