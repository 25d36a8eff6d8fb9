import Foundation

// `delete(model:where:)`: a delete by predicate that runs in the store at the next save.
extension ModelContext {
    /// A delete by predicate waiting for the next save.
    ///
    /// After the save, the store holds no model of the entity that matches: the batch runs
    /// after the store took the save's other changes, so models inserted or changed to match
    /// in the same save are deleted too.
    struct PendingBatchDelete {
        /// The store entity of the deleted models (the root entity of their class hierarchy).
        let entityName: String
        /// Whether a model matches, on the values the context holds.
        let matches: (any PersistentModel) throws -> Bool
        /// Deletes the matches from `store`, and what their delete rules reach.
        let run: (ModelContext, StoreBox) throws -> BatchDeleteOutcome
    }

    /// What a delete by predicate changed in the stores.
    struct BatchDeleteOutcome {
        /// The models deleted: the matches, and what `.cascade` reached.
        var deleted: [PersistentIdentifier] = []
        /// The surviving models whose inverse relationships lost deleted models, with the
        /// values of those relationships only.
        var updated: [DefaultSnapshot] = []
    }

    /// Marks every model of a type that matches `predicate` for deletion at the next save.
    ///
    /// The matches are not loaded as models. At the next save, after the store took the
    /// save's other changes, the store lists them. When deleting the type changes no other
    /// model (it has no `.cascade` or `.deny` relationship and no `.nullify` relationship
    /// with an inverse), the store deletes them itself through ``DataStoreBatching`` (one that
    /// adopts ``DataStoreBatchDeleteListing`` lists them in the delete's own transaction), or,
    /// for a store without batch deletes, by identifier. Otherwise the core reads their stored
    /// snapshots a chunk at a time to apply the delete rules: `.cascade` deletes the
    /// destinations too, `.deny` refuses the save, and `.nullify` removes the deleted models
    /// from the surviving destinations' inverse; then everything goes by identifier.
    ///
    /// Until the save, this context's fetches leave the matches out.
    ///
    /// - Throws: An error of the store or of in-memory evaluation of the predicate.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        applyInbox()
        // The classes the delete reaches: `T`, and with `includeSubclasses`, those inheriting from it.
        let runtime = try runtime(for: Schema.entityName(for: T.self))
        let appliesRules = try (includeSubclasses ? runtime.hierarchyNames : [runtime.entity.name]).contains { name in
            try !self.runtime(for: name).relationships.allSatisfy(\.deleteReachesNoOtherModel)
        }
        func matches(_ model: any PersistentModel) throws -> Bool {
            guard let model = model as? T, includeSubclasses || type(of: model) == T.self else { return false }
            return try predicate?.evaluate(model) ?? true
        }
        // Unsaved inserts that match never reach the store.
        for model in inserted.models where try matches(model) { delete(model) }
        pendingBatchDeletes.append(
            PendingBatchDelete(entityName: ModelLayout.of(T.self).identifierEntityName, matches: matches) { context, store in
                try context.runBatchDelete(predicate, includeSubclasses: includeSubclasses, appliesRules: appliesRules, in: store)
            })
        scheduleAutosave()
    }

    /// Deletes the stored matches of `predicate`: through the store's batch delete where it
    /// has one, can run the filter and no delete rule reaches other models; else by
    /// identifier, with the delete rules applied on stored snapshots.
    private func runBatchDelete<T: PersistentModel>(
        _ predicate: Predicate<T>?, includeSubclasses: Bool, appliesRules: Bool, in store: StoreBox
    ) throws -> BatchDeleteOutcome {
        var plan = FetchPlan<T>(
            FetchDescriptor(predicate: predicate), store: store, mergesPendingChanges: false, includeSubclasses: includeSubclasses)
        // A store's batch delete takes the app's predicate on `T`'s store entity; a subset
        // of a class hierarchy goes by identifier, never as a predicate a store might read
        // as "every model of the hierarchy".
        var storeFilter: FilterExpression?? {
            guard plan.classNames == nil else { return nil }
            switch plan.filter {
            case .none: return .some(nil)
            case .store(let tree): return tree
            case .snapshots, .models: return nil  // the store refused it, or it has no store-neutral form
            }
        }
        func request(_ filter: FilterExpression?) -> DataStoreBatchDeleteRequest<T> {
            DataStoreBatchDeleteRequest(
                editingState: editingState, predicate: predicate, includeSubclasses: includeSubclasses, filter: .success(filter))
        }
        func refused() {
            StrataLog.fallback("batch delete of \(plan.entityName)", reason: "\(store.identifier) asked to select the models in memory")
        }
        // A store that lists its batch deletes selects and deletes in one transaction.
        if !appliesRules, let filter = storeFilter {
            do {
                if let deleted = try store.deleteListing(request(filter)) { return BatchDeleteOutcome(deleted: deleted) }
            } catch DataStoreError.preferInMemoryFilter {
                refused()
            }
        }
        let identifiers = try plan.identifiers(in: self)
        guard !identifiers.isEmpty else { return BatchDeleteOutcome() }
        if appliesRules { return try deleteApplyingRules(identifiers) }
        // A store that lists its batch deletes and refused this one above would refuse again.
        if store.supportsBatchDelete, !store.listsBatchDeletes, let filter = storeFilter {
            do {
                try store.delete(request(filter))
                return BatchDeleteOutcome(deleted: identifiers)
            } catch DataStoreError.preferInMemoryFilter {
                refused()
            }
        }
        try writeStored(deleting: identifiers)
        return BatchDeleteOutcome(deleted: identifiers)
    }

    /// Deletes `matches` and what their delete rules reach, reading stored snapshots rather
    /// than loading models: the surviving destinations of `.nullify` relationships lose the
    /// deleted models first, then every deleted model goes.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when a `.deny` rule refuses (nothing
    ///   is written then), or a store's error.
    private func deleteApplyingRules(_ matches: [PersistentIdentifier]) throws -> BatchDeleteOutcome {
        let rules = try StoredDeleteRules(matches: matches, in: self)
        try rules.refuseDenied()
        let updated = try rules.nullifiedValues(in: self)
        try writeStored(updating: updated)
        try writeStored(deleting: rules.deleting)
        return BatchDeleteOutcome(deleted: rules.deleting, updated: updated)
    }

    /// Sends each store the deletes of its models among `ids`, a chunk per save request:
    /// bare identifiers to a store that updates partially, whole snapshots to the others.
    private func writeStored(deleting ids: [PersistentIdentifier]) throws {
        for chunk in ids.chunks(of: Self.batchDeleteChunk) {
            for (store, group) in try groupedByStore(Array(chunk), \.self) {
                let snapshots = store.updatesPartially
                    ? group.map { DefaultSnapshot(persistentIdentifier: $0, propertyNames: [], values: []) }
                    : try lookupSnapshots(group)
                _ = try store.save(editingState: editingState, inserted: [], updated: [], deleted: snapshots)
            }
        }
    }

    /// Sends each store the updates of its models among `changes` (snapshots of the changed
    /// properties only), a chunk per save request: as they are to a store that updates
    /// partially, laid over the whole stored snapshot for the others.
    private func writeStored(updating changes: [DefaultSnapshot]) throws {
        for chunk in changes.chunks(of: Self.batchDeleteChunk) {
            for (store, group) in try groupedByStore(Array(chunk), \.persistentIdentifier) {
                var snapshots = group
                if !store.updatesPartially {
                    let changed = Dictionary(uniqueKeysWithValues: group.map { ($0.persistentIdentifier, $0) })
                    snapshots = try lookupSnapshots(group.map(\.persistentIdentifier)).map { stored in
                        var whole = stored
                        for (name, value) in zip(changed[stored.persistentIdentifier]!.propertyNames, changed[stored.persistentIdentifier]!.values) {
                            if let index = whole.propertyNames.firstIndex(of: name) { whole[index: index] = value }
                        }
                        return whole
                    }
                }
                _ = try store.save(editingState: editingState, inserted: [], updated: snapshots, deleted: [])
            }
        }
    }

    /// `items` grouped by the store that holds the model each identifies, in the container's store order.
    private func groupedByStore<Item>(_ items: [Item], _ id: (Item) -> PersistentIdentifier) throws -> [(StoreBox, [Item])] {
        var groups: [String: [Item]] = [:]
        for item in items { groups[try store(for: id(item).entityName).identifier, default: []].append(item) }
        return core.stores.compactMap { store in groups[store.identifier].map { (store, $0) } }
    }

    /// How many models a store without batch deletes is asked to delete per save request.
    static let batchDeleteChunk = 5000

    /// Runs the pending batch deletes of `store`'s entities after the store took the rest of
    /// the save; forgets the deleted models this context registered and refreshes the
    /// registered survivors whose inverse relationships lost them, telling their observers.
    func runPendingBatchDeletes(in store: StoreBox) throws -> BatchDeleteOutcome {
        var outcome = BatchDeleteOutcome()
        while let index = pendingBatchDeletes.firstIndex(where: { store.entityNames.contains($0.entityName) }) {
            let batch = try pendingBatchDeletes[index].run(self, store)
            pendingBatchDeletes.remove(at: index)
            // The store took this save's inserts before the batch ran, so none of these is pending
            // as an insert. A context that holds no model (one made for the delete) looks up none.
            if !registered.isEmpty {
                for id in batch.deleted {
                    if let model = registered[id] { finishDelete(model) }
                }
            }
            for snapshot in batch.updated {
                guard let model = registered[snapshot.persistentIdentifier], let data = managedAny(model), !data.hasChangesPending
                else { continue }
                for slot in try refresh(data, from: snapshot, runtime: try runtime(for: data.entityName), partial: true) {
                    notifyObservers(of: model, slot: slot)
                }
            }
            outcome.deleted.append(taking: batch.deleted)
            outcome.updated.append(taking: batch.updated)
        }
        return outcome
    }

    /// Whether a pending delete by predicate will delete `model` at the next save.
    func isBatchDeleted(_ model: any PersistentModel) throws -> Bool {
        for batch in pendingBatchDeletes {
            if try batch.matches(model) { return true }
        }
        return false
    }
}

extension EntityRuntime.RelationshipSlot {
    /// Whether deleting a model leaves every other model as it is: the rule deletes,
    /// refuses or clears nothing on the other side.
    var deleteReachesNoOtherModel: Bool {
        switch deleteRule {
        case .noAction: true
        case .nullify: inverseSlot == nil
        case .cascade, .deny: false
        }
    }
}
