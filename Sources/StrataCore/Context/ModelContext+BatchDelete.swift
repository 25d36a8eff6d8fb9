import Foundation

// `delete(model:where:)`: a delete by predicate that runs in the store at the next save.
extension ModelContext {
    /// A delete by predicate waiting for the next save.
    ///
    /// After the save, the store holds no model of the entity that matches: the batch runs
    /// after the store took the save's other changes, so models inserted or changed to match
    /// in the same save are deleted too.
    struct PendingBatchDelete {
        let entityName: String
        /// Whether a model matches, on the values the context holds.
        let matches: (any PersistentModel) throws -> Bool
        /// Deletes the matches from `store`; returns their identifiers.
        let run: (ModelContext, StoreBox) throws -> [PersistentIdentifier]
    }

    /// Marks every model of a type that matches `predicate` for deletion at the next save.
    ///
    /// When deleting the matches needs no change to other models (the type has no
    /// `.cascade` or `.deny` relationships and no `.nullify` relationship with an inverse),
    /// the matches are not loaded: at the next save the store deletes them itself through
    /// ``DataStoreBatching``, or, for a store without batch deletes, by identifier. Otherwise
    /// the matches are loaded and deleted like ``delete(_:)`` so their delete rules apply.
    ///
    /// - Throws: An error of the store or of in-memory evaluation of the predicate.
    public func delete<T: PersistentModel>(
        model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true
    ) throws {
        applyInbox()
        let entityName = Schema.entityName(for: T.self)
        guard try runtime(for: entityName).relationships.allSatisfy(\.deleteReachesNoOtherModel) else {
            var descriptor = FetchDescriptor<T>(predicate: predicate)
            descriptor.includePendingChanges = true
            for match in try fetch(descriptor) { delete(match) }
            return
        }
        func matches(_ model: any PersistentModel) throws -> Bool {
            guard let model = model as? T else { return false }
            return try predicate?.evaluate(model) ?? true
        }
        // Unsaved inserts that match never reach the store.
        for model in inserted.models where try matches(model) { delete(model) }
        pendingBatchDeletes.append(
            PendingBatchDelete(entityName: entityName, matches: matches) { context, store in
                try context.runBatchDelete(predicate, includeSubclasses: includeSubclasses, in: store)
            })
        scheduleAutosave()
    }

    /// Deletes the stored matches of `predicate`, through the store's batch delete where it
    /// has one and can run the filter, else by identifier through its save.
    ///
    /// - Returns: The identifiers of the deleted models.
    private func runBatchDelete<T: PersistentModel>(
        _ predicate: Predicate<T>?, includeSubclasses: Bool, in store: StoreBox
    ) throws -> [PersistentIdentifier] {
        var plan = FetchPlan<T>(FetchDescriptor(predicate: predicate), store: store, mergesPendingChanges: false)
        let identifiers = try plan.identifiers(in: self)
        guard !identifiers.isEmpty else { return [] }
        let storeFilter: FilterExpression??
        switch plan.filter {
        case .none: storeFilter = .some(nil)
        case .store(let tree): storeFilter = tree
        case .snapshots, .models: storeFilter = nil  // the store refused it, or it has no store-neutral form
        }
        if store.supportsBatchDelete, let storeFilter {
            do {
                try store.delete(
                    DataStoreBatchDeleteRequest(
                        editingState: editingState, predicate: predicate, includeSubclasses: includeSubclasses,
                        filter: .success(storeFilter)))
                return identifiers
            } catch DataStoreError.preferInMemoryFilter {
                StrataLog.fallback("batch delete of \(plan.entityName)", reason: "\(store.identifier) asked to select the models in memory")
            }
        }
        let partial = store.store is any DataStorePartialUpdating
        for chunk in identifiers.chunks(of: Self.batchDeleteChunk) {
            let snapshots = partial
                ? chunk.map { DefaultSnapshot(persistentIdentifier: $0, propertyNames: [], values: []) }
                : try lookupSnapshots(Array(chunk))
            _ = try store.save(editingState: editingState, inserted: [], updated: [], deleted: snapshots)
        }
        return identifiers
    }

    /// How many models a store without batch deletes is asked to delete per save request.
    static let batchDeleteChunk = 5000

    /// Runs the pending batch deletes of `store`'s entities after the store took the rest of
    /// the save, and forgets the deleted models this context registered.
    ///
    /// - Returns: The identifiers of the deleted models.
    func runPendingBatchDeletes(in store: StoreBox) throws -> [PersistentIdentifier] {
        var deletedIDs: [PersistentIdentifier] = []
        while let index = pendingBatchDeletes.firstIndex(where: { store.entityNames.contains($0.entityName) }) {
            let ids = try pendingBatchDeletes[index].run(self, store)
            pendingBatchDeletes.remove(at: index)
            // The store took this save's inserts before the batch ran, so none of these is pending as an insert.
            for id in ids {
                if let model = registered[id] { finishDelete(model) }
            }
            deletedIDs += ids
        }
        return deletedIDs
    }

    /// Whether a pending delete by predicate will delete `model` at the next save.
    func isBatchDeleted(_ model: any PersistentModel, entityName: String) throws -> Bool {
        for batch in pendingBatchDeletes where batch.entityName == entityName {
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
