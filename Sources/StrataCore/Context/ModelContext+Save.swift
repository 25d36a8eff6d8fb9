import Foundation

extension ModelContext {
    /// A save that reached some stores and not others.
    ///
    /// The stores in ``committedStores`` took their part of the save: those changes are no
    /// longer pending, and a retried ``ModelContext/save()`` sends only what the other stores
    /// did not take, so every change is written exactly once. ``underlyingError`` is what
    /// ``failedStore`` threw.
    ///
    /// A delete by predicate (``ModelContext/delete(model:where:includeSubclasses:)``) runs in
    /// its store right after that store took the rest of the save, in a transaction of its own.
    /// When it fails, the store can be both in ``committedStores`` (its other changes) and the
    /// ``failedStore``; the delete stays pending and runs again on the next save.
    public struct PartialSaveError: Error, CustomStringConvertible {
        /// The identifiers of the stores that committed their part, in the order they saved.
        public let committedStores: [String]
        /// The identifier of the store whose save failed; its changes are still pending.
        public let failedStore: String
        /// The failed store's error.
        public let underlyingError: any Error

        public var description: String {
            "the save reached \(committedStores.joined(separator: ", ")) but \(failedStore) failed, and its changes are still pending: \(underlyingError)"
        }
    }

    /// Writes the context's inserts, changes and deletes to their stores.
    ///
    /// Delete rules apply first: `.cascade` deletes related models, `.nullify` clears the
    /// other side, `.deny` refuses. Inserts that collide with a stored model (or with an
    /// earlier insert of this save) on a unique constraint update that model instead.
    /// Each store saves in one transaction of its own; nothing is loaded while the changes
    /// are captured. Deletes by predicate then run in their stores.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when a `.deny` rule refuses a
    ///   delete (nothing changes then), or when a change would overwrite a relationship that
    ///   failed to load; the store's error when the first store fails (nothing is saved);
    ///   ``PartialSaveError`` when a later store fails after earlier ones committed.
    public func save() throws {
        applyInbox()
        closeUndoEventGroup()
        guard hasChanges else { return }
        // What the save changes itself (delete rules, upserts) is not the app's to undo.
        suspendsUndoRegistration = true
        defer { suspendsUndoRegistration = false }
        NotificationCenter.default.post(name: ModelContext.willSave, object: self)
        try applyDeleteRules()
        try resolveUniqueness()
        try refuseOverwritingFailedFaults()
        try checkRelationshipCounts()
        try checkTransformableValues()
        discardDeletedInserts()

        var outcome = SaveOutcome()
        try saveRound(&outcome)
        // A store that saved before another store gave its inserts permanent identifiers
        // holds temporary ones for them; those models are pending again, so send them now.
        if hasChanges { try saveRound(&outcome) }

        knownSnapshots = [:]
        core.broadcast(from: self, change: .saved(updated: outcome.updated, deleted: outcome.deleted))
        var userInfo: [String: Any] = [
            NotificationKey.insertedIdentifiers.rawValue: outcome.inserted,
            NotificationKey.updatedIdentifiers.rawValue: outcome.updated.map(\.persistentIdentifier),
            NotificationKey.deletedIdentifiers.rawValue: outcome.deleted,
        ]
        if let token = outcome.historyToken { userInfo[NotificationKey.historyTokens.rawValue] = token }
        NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: userInfo)
    }

    /// What a save wrote, for the notifications and the other contexts.
    struct SaveOutcome {
        var inserted: [PersistentIdentifier] = []
        var updated: [DefaultSnapshot] = []
        var deleted: [PersistentIdentifier] = []
        var committedStores: [String] = []
        var historyTokens: [any HistoryToken] = []

        /// The history token after the save: the built-in stores' tokens merged into one
        /// ``DefaultHistoryToken``, or a store's own token when it is the only one.
        var historyToken: (any HistoryToken)? {
            let defaults = historyTokens.compactMap { $0 as? DefaultHistoryToken }
            guard defaults.count == historyTokens.count, !defaults.isEmpty else { return historyTokens.first }
            var merged: [String: Int64] = [:]
            for token in defaults { merged.merge(token.tokenValue ?? [:]) { max($0, $1) } }
            return DefaultHistoryToken(tokenValue: merged)
        }

        /// What a save throws when `store` fails with `error`: the error itself while no
        /// store has committed, else a ``PartialSaveError`` naming those that did.
        func failure(of store: StoreBox, _ error: any Error) -> any Error {
            guard !committedStores.isEmpty else { return error }
            return PartialSaveError(committedStores: committedStores, failedStore: store.identifier, underlyingError: error)
        }
    }

    /// Sends each store its part of the pending changes, in the container's store order,
    /// and settles each part as soon as its store commits.
    private func saveRound(_ outcome: inout SaveOutcome) throws {
        for part in try SavePlan(self).parts {
            let partial = part.store.updatesPartially
            let layouts = LayoutCache()
            // `capture` takes it `inout` rather than capturing it: captured, and reached
            // from the closures given to `map`, it was checked for exclusive access at run
            // time, about 80 instructions per model.
            var changedNames = ChangeCapture.ChangedNames()
            func capture(
                _ members: [ModelSet.Member], _ properties: ChangeCapture.Properties, _ changedNames: inout ChangeCapture.ChangedNames
            ) throws -> [DefaultSnapshot] {
                var snapshots: [DefaultSnapshot] = []
                snapshots.reserveCapacity(members.count)
                // The members read in place: iterating the array copied each one, a retain and
                // a release of its model and of its data.
                try members.withUnsafeBufferPointer { members in
                    // The entity of the models before, known by their layout's identity: looked
                    // up by name for each model, and handed back as a pair, it cost about 80
                    // instructions a model (the name's and the pair's retains and releases).
                    var current: (layout: ModelLayout, runtime: EntityRuntime)?
                    for index in members.indices {
                        // Lent, not held: the members keep it (a retain and release a model).
                        try Unmanaged.passUnretained(members[index].data)._withUnsafeGuaranteedRef { data in
                            if properties == .all { try loadUnloadedProperties(of: data) }
                            if current?.layout !== data.layout { current = try layouts.layout(for: data.entityName, in: self) }
                            let snapshot = try ChangeCapture.snapshot(of: data, layout: current!.layout, properties: properties, changedNames: &changedNames)
                            // Moved into the array: the conditional expression copied it and
                            // dropped the original (a retain and release of each of its arrays).
                            if current!.runtime.isInHierarchy {
                                snapshots.append(current!.runtime.storageSnapshot(of: snapshot))
                            } else {
                                snapshots.append(consume snapshot)
                            }
                        }
                    }
                }
                return snapshots
            }
            let inserted = try capture(part.inserted, .all, &changedNames)
            let updated = try capture(part.updated, partial ? .changed : .all, &changedNames)
            let deleted = try capture(part.deleted, partial ? .loaded : .all, &changedNames)
            var result = StoreBox.SaveResult()
            if !part.isEmpty {
                do {
                    result = try part.store.save(editingState: editingState, inserted: inserted, updated: updated, deleted: deleted)
                } catch {
                    throw outcome.failure(of: part.store, error)
                }
                outcome.committedStores.append(part.store.identifier)
                if let token = result.historyToken { outcome.historyTokens.append(token) }
            }
            self.inserted.remove(part.inserted)
            outcome.deleted.reserveCapacity(outcome.deleted.count + part.deleted.count)
            if let inOrder = result.insertedInOrder {
                let dropped = dropTemporaryIdentifiers(of: part.inserted, replacedBy: inOrder)
                let count = min(part.inserted.count, inOrder.count)
                // Room for the permanent identifiers at once: the table grew by doubling as
                // they came, each time into fresh memory (about 200 page faults a save of
                // 100,000 inserts).
                if let first = inOrder.first { registered.reserveCapacity(adding: count, like: first) }
                // In place, as the capture above reads them (`zip` copied each pair).
                part.inserted.withUnsafeBufferPointer { members in
                    inOrder.withUnsafeBufferPointer { permanents in
                        if dropped {
                            finishInserts(UnsafeBufferPointer(rebasing: members[..<count]), as: UnsafeBufferPointer(rebasing: permanents[..<count]))
                        } else {
                            for index in 0..<count { _ = finishInsert(members[index], as: permanents[index]) }
                        }
                    }
                }
                // Each insert took the identifier the store listed for it, so the store's list
                // is the outcome's, shared rather than copied: 100,000 inserts wrote 3.2 MB of
                // fresh pages (about 780 page faults) copying it.
                if outcome.inserted.isEmpty && count == inOrder.count {
                    outcome.inserted = inOrder
                } else {
                    outcome.inserted.append(contentsOf: inOrder[..<count])
                }
            } else {
                outcome.inserted.reserveCapacity(outcome.inserted.count + part.inserted.count)
                for member in part.inserted {
                    let temporary = member.data.identifier
                    outcome.inserted.append(finishInsert(member, as: temporary.flatMap { result.remapped[$0] } ?? temporary))
                }
            }
            changed.remove(part.updated)
            for member in part.updated { member.data.markSaved() }
            outcome.updated.append(taking: updated)
            for member in part.deleted { outcome.deleted.append(finishDelete(member.model)) }
            for (id, snapshot) in result.reregister {
                guard let model = registered[id], let data = managedAny(model) else { continue }
                try refresh(data, from: snapshot, runtime: try runtime(for: data.entityName), partial: true)
            }
            markForwardReferences(in: part.inserted)
            markForwardReferences(in: part.updated)
            do {
                let batches = try runPendingBatchDeletes(in: part.store)
                outcome.deleted.append(taking: batches.deleted)
                outcome.updated.append(taking: batches.updated)
            } catch {
                throw outcome.failure(of: part.store, error)
            }
        }
    }

    /// Refuses a save that leaves a to-many relationship with fewer models than its
    /// `minimumModelCount` or more than its `maximumModelCount` (0 is no bound). New models
    /// are checked whole; changed ones where the relationship changed.
    private func checkRelationshipCounts() throws {
        guard core.hasCountedRelationships else { return }
        for (models, isNew) in [(inserted.models, true), (changed.models, false)] {
            for model in models {
                guard let data = managedAny(model), !data.isDeleted else { continue }
                let entity = try runtime(for: data.entityName).entity
                for (slot, name) in entity.storedPropertyNames.enumerated() {
                    guard let relationship = entity.relationshipsByName[name], !relationship.isToOneRelationship,
                        relationship.minimumModelCount ?? 0 > 0 || relationship.maximumModelCount ?? 0 > 0,
                        isNew || data.changedSlots.contains(slot),
                        slot < data.slotCount, case .loaded(.toMany(let collection)) = data[slot: slot]
                    else { continue }
                    let count = collection._persistentModels.count
                    let minimum = relationship.minimumModelCount ?? 0
                    let maximum = relationship.maximumModelCount ?? 0
                    if count < minimum || (maximum > 0 && count > maximum) {
                        let bound = count < minimum ? "at least \(minimum)" : "at most \(maximum)"
                        throw SwiftDataError.modelValidationFailure.with(
                            details: "\(entity.name).\(name) of \(model.persistentModelID) holds \(count) model(s), but must hold \(bound); nothing was saved")
                    }
                }
            }
        }
    }

    /// Refuses a save that holds a transformable value no registered transformer turns into
    /// data: a transformer name nobody registered, or one that returns something else. Nothing
    /// is written then; the error names the property and the model.
    private func checkTransformableValues() throws {
        guard core.hasTransformableAttributes else { return }
        for (models, isNew) in [(inserted.models, true), (changed.models, false)] {
            for model in models {
                guard let data = managedAny(model), !data.isDeleted else { continue }
                let runtime = try runtime(for: data.entityName)
                for attribute in runtime.attributes {
                    guard let name = attribute.transformerName, isNew || data.changedSlots.contains(attribute.slot),
                        attribute.slot < data.slotCount, case .loaded(.transformable(let value?)) = data[slot: attribute.slot]
                    else { continue }
                    guard let transformer = ValueTransformer(forName: NSValueTransformerName(name)) else {
                        throw SwiftDataError.modelValidationFailure.with(
                            details: "\(runtime.entity.name).\(attribute.name) of \(model.persistentModelID) is transformed by \(name), which is not registered; register it with ValueTransformer.setValueTransformer(_:forName:) before saving. Nothing was saved")
                    }
                    guard transformer.transformedValue(value) is Data else {
                        throw SwiftDataError.modelValidationFailure.with(
                            details: "\(name) did not turn the value of \(runtime.entity.name).\(attribute.name) of \(model.persistentModelID) into Data. Nothing was saved")
                    }
                }
            }
        }
    }

    /// Refuses a save that would write a relationship or property whose stored value never loaded:
    /// writing it would replace stored destinations the app never saw.
    private func refuseOverwritingFailedFaults() throws {
        guard mayHoldFailedFaults else { return }
        for member in changed {
            let data = member.data
            guard !data.failedFaultSlots.isEmpty, let slot = data.failedFaultSlots.intersection(data.changedSlots).first else { continue }
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(ModelLayout.propertyName(of: type(of: member.model), slot: slot)) of \(member.model.persistentModelID) failed to load, so changing it would overwrite stored values unseen; fetch the model again and retry")
        }
    }

    /// Loads the properties of a partially fetched model, for a store that needs every value.
    ///
    /// - Throws: The store's error, or ``SwiftDataError/missingModelContext`` when the model is gone.
    func loadUnloadedProperties(of data: ManagedData) throws {
        guard let index = data.storage.firstUnloaded,
            let id = data.identifier
        else { return }
        guard let snapshot = try lookupSnapshots([id]).first else {
            throw SwiftDataError.missingModelContext.with(details: "\(id) is no longer in its store")
        }
        let full = try slots(from: snapshot, runtime: try runtime(for: data.entityName), partial: false)
        for slot in index..<min(data.slotCount, full.count) {
            if case .unloaded = data[slot: slot] { data[slot: slot] = full[slot] }
        }
    }

    // MARK: Bookkeeping after a store committed

    /// Gives a model its store just inserted the identifier `permanent`; `nil` keeps the one it has.
    private func finishInsert(_ member: ModelSet.Member, as permanent: PersistentIdentifier?) -> PersistentIdentifier {
        let (model, data) = (member.model, member.data)
        guard let temporary = data.identifier else { return model.persistentModelID }
        let permanent = permanent ?? temporary
        if permanent != temporary {
            registered.remove(temporary)
            data.identifier = permanent
        }
        registered.register(model, as: permanent)
        data.isInserted = false
        data.markSaved()
        return permanent
    }

    /// Gives each of `members` the identifier at its position in `permanents`, as
    /// ``finishInsert(_:as:)`` does, once ``dropTemporaryIdentifiers(of:replacedBy:)`` removed
    /// their temporary ones: every member had one, and no permanent identifier is temporary.
    /// The identity map then registers them together (about 180 instructions a model less
    /// than one at a time, each comparing its identifiers and copying its member).
    private func finishInserts(_ members: UnsafeBufferPointer<ModelSet.Member>, as permanents: UnsafeBufferPointer<PersistentIdentifier>) {
        for index in members.indices {
            // Lent, not held: the members keep it (a retain and release a model).
            Unmanaged.passUnretained(members[index].data)._withUnsafeGuaranteedRef { data in
                data.identifier = permanents[index]
                data.isInserted = false
                data.markSaved()
            }
        }
        registered.register(members, as: permanents)
    }

    /// Removes the temporary identifiers of `members`, whose store gave them `permanents`,
    /// from the identity map in one step, when they are all the temporary identifiers of
    /// one store and entity there (a save of new models of one class, the common case):
    /// removing them one at a time cost about 200 instructions a model.
    ///
    /// - Returns: Whether it did; if not, each insert's temporary identifier is removed on its own.
    private func dropTemporaryIdentifiers(of members: [ModelSet.Member], replacedBy permanents: [PersistentIdentifier]) -> Bool {
        guard members.count == permanents.count, let first = members.first?.data.identifier, first.isTemporary,
            !permanents.contains(where: \.isTemporary)
        else { return false }
        let scope = first.id.scopeAddress
        for member in members {
            guard let identifier = member.data.identifier, identifier.isTemporary, identifier.id.scopeAddress == scope else { return false }
        }
        return registered.removeTemporaries(like: first, ifExactly: members.count)
    }

    /// Forgets a model its store deleted: it leaves the identity map and the change sets,
    /// lets go of its related models, and reads as deleted.
    @discardableResult
    func finishDelete(_ model: any PersistentModel) -> PersistentIdentifier {
        deleted.remove(model)
        changed.remove(model)
        let id = model.persistentModelID
        registered.remove(id)
        if let data = managedAny(model) {
            data.markSaved()
            data.release(keepingIdentifiers: true)
            data.isDeleted = true
        }
        return id
    }

    /// Drops inserts deleted before their first save: no store ever sees them.
    private func discardDeletedInserts() {
        guard !deleted.isEmpty else { return }
        for model in inserted.models {
            guard let data = managedAny(model), data.isDeleted else { continue }
            inserted.remove(model)
            deleted.remove(model)
            if let id = data.identifier { registered.remove(id) }
            data.detach()
            data.isDeleted = true
        }
    }

    /// Marks models that a store just saved with temporary identifiers of models another
    /// store has yet to insert, so the next round sends them again with permanent ones.
    private func markForwardReferences(in members: [ModelSet.Member]) {
        for member in members {
            let data = member.data
            let relationships = data.layout.relationshipSlots
            guard !relationships.isEmpty else { continue }
            for slot in relationships where slot < data.slotCount {
                let stale = loadedModels(in: data[slot: slot]).contains { managedAny($0)?.isInserted == true }
                guard stale else { continue }
                data.changedSlots.insert(slot)
                data.isChanged = true
                changed.insert(member.model, data)
            }
        }
    }
}

/// The pending changes of a context grouped by the store that takes them, in the
/// container's store order.
struct SavePlan {
    struct Part {
        let store: StoreBox
        var inserted: [ModelSet.Member] = []
        var updated: [ModelSet.Member] = []
        var deleted: [ModelSet.Member] = []

        /// Whether the part has no inserts, updates or deletes of models (it may still have deletes by predicate).
        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    let parts: [Part]

    /// Groups `context`'s pending changes.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` for a model no store holds.
    init(_ context: ModelContext) throws {
        // A handful of stores at most: found by identity in an array, and the models of a
        // save come in runs of one entity, so most models reuse the last part.
        var found: [Part] = []
        var last: (entityName: String, index: Int)?
        func part(for entityName: String) throws -> Int {
            if let last, last.entityName == entityName { return last.index }
            let store = try context.core.store(for: entityName)
            let index: Int
            if let existing = found.firstIndex(where: { $0.store === store }) {
                index = existing
            } else {
                // Room for every delete (most saves reach one store), so that the array does
                // not grow by copying; room never written costs no memory. The inserts' and
                // updates' room is made when they are copied (below).
                var new = Part(store: store)
                new.deleted.reserveCapacity(context.deleted.count)
                found.append(new)
                index = found.count - 1
            }
            last = (entityName, index)
            return index
        }
        // The members of `set` that go to each store's part (a part's inserts or updates),
        // the stores found from the classes the set was given: when one store takes them all,
        // none was removed and `whole` allows (the usual save), the set's storage as it is.
        // Copying it member by member walked every model's backing data and object again, a
        // retain of each that missed the cache (about 23 ns a model at 100,000 inserts,
        // against 5 instructions counted); that copy takes the members `includes` accepts.
        func filed(
            _ set: ModelSet, whole: Bool, where includes: (ModelSet.Member) -> Bool
        ) throws -> [(part: Int, members: [ModelSet.Member])] {
            var parts: [Int] = []
            for layout in set.layouts {
                let index = try part(for: layout.entityName)
                if !parts.contains(index) { parts.append(index) }
            }
            if whole, parts.count == 1, let storage = set.storageIfWhole { return [(parts[0], storage)] }
            var filed: [(part: Int, members: [ModelSet.Member])] = []
            for member in set where includes(member) {
                let index = try part(for: member.data.entityName)
                if let position = filed.firstIndex(where: { $0.part == index }) {
                    filed[position].members.append(member)
                } else {
                    var members: [ModelSet.Member] = []
                    members.reserveCapacity(set.count)
                    members.append(member)
                    filed.append((index, members))
                }
            }
            return filed
        }
        for (index, members) in try filed(context.inserted, whole: true, where: { _ in true }) { found[index].inserted = members }
        // A changed model that is deleted is in the set of deletes too (deleting a model adds
        // it there, and every other way of marking one deleted takes it out of the set of
        // changes), so with no deletes no changed model is skipped and the set can be taken
        // whole: the walk that tested each one's data was update's first touch of every
        // changed model's data after the changes, about 10% of its time.
        for (index, members) in try filed(context.changed, whole: context.deleted.isEmpty, where: { !$0.data.isDeleted }) {
            found[index].updated = members
        }
        for member in context.deleted {
            found[try part(for: member.data.entityName)].deleted.append(member)
        }
        for batch in context.pendingBatchDeletes { _ = try part(for: batch.entityName) }
        parts = context.core.stores.compactMap { store in found.first { $0.store === store } }
    }
}

/// The layouts of the entities one save touches, looked up once each. The capture keeps
/// the last one itself, by the layout's identity (a save's models come in runs of one entity).
private final class LayoutCache {
    private var layouts: [String: (ModelLayout, EntityRuntime)] = [:]

    func layout(for entityName: String, in context: ModelContext) throws -> (ModelLayout, EntityRuntime) {
        if let found = layouts[entityName] { return found }
        let runtime = try context.runtime(for: entityName)
        let found = (ModelLayout.of(runtime.modelType), runtime)
        layouts[entityName] = found
        return found
    }
}
