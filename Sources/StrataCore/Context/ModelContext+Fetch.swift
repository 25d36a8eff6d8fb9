import Foundation

extension ModelContext {
    /// The models matching `descriptor`, in its order and window.
    ///
    /// What the store cannot filter or sort (it throws ``DataStoreError/preferInMemoryFilter``
    /// or ``DataStoreError/preferInMemorySort``, or the predicate has no store-neutral form)
    /// is done here, with offset and limit applied afterwards. Unsaved changes are reflected
    /// unless ``FetchDescriptor/includePendingChanges`` is `false`.
    ///
    /// - Throws: The store's error, or an error evaluating the predicate in memory.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        applyInbox()
        return try run(descriptor).models.compactMap { $0 as? T }
    }

    /// The number of models matching `descriptor`.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        applyInbox()
        let entityName = Schema.entityName(for: T.self)
        let pending = descriptor.includePendingChanges && hasPendingChanges(for: entityName)
        if !pending, let filter = try? translateFilter(descriptor.predicate).get() {
            let store = try container.store(for: entityName)
            var storeDescriptor = descriptor
            storeDescriptor.sortBy = []
            let request = DataStoreFetchRequest(
                editingState: editingState, descriptor: storeDescriptor, filter: .success(filter), sort: .success([]))
            do {
                return try store.fetchCount(request)
            } catch DataStoreError.preferInMemoryFilter {
                StrataLog.fallback("count of \(entityName)", reason: "the store asked to filter in memory")
            }
        }
        return try run(descriptor).models.count
    }

    /// The identifiers of the models matching `descriptor`, in its order.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        applyInbox()
        let entityName = Schema.entityName(for: T.self)
        let pending = descriptor.includePendingChanges && hasPendingChanges(for: entityName)
        if !pending, let filter = try? translateFilter(descriptor.predicate).get(),
            let sort = try? translateSort(descriptor.sortBy).get()
        {
            let store = try container.store(for: entityName)
            let request = DataStoreFetchRequest(
                editingState: editingState, descriptor: descriptor, filter: .success(filter), sort: .success(sort))
            do {
                return try store.fetchIdentifiers(request)
            } catch DataStoreError.preferInMemoryFilter, DataStoreError.preferInMemorySort {
                StrataLog.fallback("identifiers of \(entityName)", reason: "the store asked to filter or sort in memory")
            }
        }
        return try run(descriptor).models.map(\.persistentModelID)
    }

    /// Which parts of a fetch a store runs and which run in memory.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) -> String {
        let entityName = Schema.entityName(for: T.self)
        var lines = ["fetch \(entityName)"]
        switch translateFilter(descriptor.predicate) {
        case .success(nil): lines.append("filter: none")
        case .success(let filter?): lines.append("filter: in the store: \(filter)")
        case .failure(let error): lines.append("filter: in memory (\(error.details))")
        }
        switch translateSort(descriptor.sortBy) {
        case .success(let keys) where keys.isEmpty: lines.append("sort: none")
        case .success(let keys): lines.append("sort: in the store: \(keys.map { "\($0.path.joined(separator: ".")) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", "))")
        case .failure(let error): lines.append("sort: in memory (\(error.details))")
        }
        if descriptor.includePendingChanges && hasPendingChanges(for: entityName) {
            lines.append("pending changes: merged in memory, then sorted and windowed in memory")
        }
        if let store = try? container.store(for: entityName) {
            lines.append("store: \(store.identifier) (\(type(of: store.store)))")
            let request = DataStoreFetchRequest(
                editingState: editingState, descriptor: descriptor, filter: translateFilter(descriptor.predicate),
                sort: translateSort(descriptor.sortBy))
            if let explaining = store.store as? any DataStoreExplaining {
                do {
                    lines.append(try explaining.explain(request))
                } catch {
                    lines.append("the store could not explain the fetch: \(error)")
                }
            } else {
                lines.append("the store does not explain its plans; it may still refuse the filter or sort, which then run in memory")
            }
        }
        return lines.joined(separator: "\n")
    }

    // MARK: The fetch pipeline

    struct FetchOutcome {
        var models: [any PersistentModel]
    }

    func translateFilter<T: PersistentModel>(_ predicate: Predicate<T>?) -> Result<FilterExpression?, SwiftDataError> {
        guard let predicate else { return .success(nil) }
        do {
            return .success(try PredicateTranslator.translate(predicate))
        } catch let error as SwiftDataError {
            return .failure(error)
        } catch {
            return .failure(SwiftDataError.unsupportedPredicate.with(details: "\(error)"))
        }
    }

    func translateSort<T: PersistentModel>(_ sortBy: [SortDescriptor<T>]) -> Result<[FilterSortKey], SwiftDataError> {
        guard !sortBy.isEmpty else { return .success([]) }
        do {
            return .success(try PredicateTranslator.translate(sortBy))
        } catch let error as SwiftDataError {
            return .failure(error)
        } catch {
            return .failure(SwiftDataError.unsupportedSortDescriptor.with(details: "\(error)"))
        }
    }

    func hasPendingChanges(for entityName: String) -> Bool {
        guard hasChanges else { return false }
        return (inserted.models + changed.models + deleted.models).contains {
            (managedAny($0)?.entityName ?? Schema.entityName(for: type(of: $0))) == entityName
        }
    }

    func run<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> FetchOutcome {
        let entityName = Schema.entityName(for: T.self)
        let store = try container.store(for: entityName)
        let pending = descriptor.includePendingChanges && hasPendingChanges(for: entityName)
        let filter = translateFilter(descriptor.predicate)
        let sort = translateSort(descriptor.sortBy)
        var filterInMemory = false
        var sortInMemory = pending
        if case .failure(let error) = filter {
            filterInMemory = true
            StrataLog.fallback("fetch of \(entityName)", reason: error.details)
        }
        if case .failure(let error) = sort {
            sortInMemory = true
            StrataLog.fallback("sort of \(entityName)", reason: error.details)
        }
        var fetched: (snapshots: [DefaultSnapshot], related: [PersistentIdentifier: DefaultSnapshot])
        while true {
            var storeDescriptor = descriptor
            if filterInMemory { storeDescriptor.predicate = nil }
            if sortInMemory { storeDescriptor.sortBy = [] }
            if filterInMemory || sortInMemory {
                storeDescriptor.fetchLimit = nil
                storeDescriptor.fetchOffset = nil
            }
            let request = DataStoreFetchRequest(
                editingState: editingState, descriptor: storeDescriptor,
                filter: filterInMemory ? .success(nil) : filter, sort: sortInMemory ? .success([]) : sort)
            do {
                fetched = try store.fetch(request)
                break
            } catch DataStoreError.preferInMemoryFilter where !filterInMemory {
                filterInMemory = true
                StrataLog.fallback("fetch of \(entityName)", reason: "\(store.identifier) asked to filter in memory")
            } catch DataStoreError.preferInMemorySort where !sortInMemory {
                sortInMemory = true
                StrataLog.fallback("sort of \(entityName)", reason: "\(store.identifier) asked to sort in memory")
            }
        }
        for (id, snapshot) in fetched.related where registered[id]?.model == nil { knownSnapshots[id] = snapshot }
        let partial = !descriptor.propertiesToFetch.isEmpty
        var models: [any PersistentModel] = []
        models.reserveCapacity(fetched.snapshots.count)
        registered.reserveCapacity(registered.count + fetched.snapshots.count)
        for snapshot in fetched.snapshots where snapshot.persistentIdentifier.entityName == entityName {
            models.append(try materialize(snapshot, partial: partial))
        }

        if pending {
            let fromStore = Set(models.map { ObjectIdentifier($0) })
            models.removeAll { model in managedAny(model)?.isDeleted == true }
            for model in changed.models + inserted.models where model is T && !fromStore.contains(ObjectIdentifier(model)) {
                if managedAny(model)?.isDeleted == true { continue }
                models.append(model)
            }
        }
        if let predicate = descriptor.predicate, filterInMemory || pending {
            let needsCheck: (any PersistentModel) -> Bool = { model in
                filterInMemory || (self.managedAny(model)?.hasChangesPending ?? false)
            }
            models = try models.filter { model in
                guard needsCheck(model), let typed = model as? T else { return true }
                return try predicate.evaluate(typed)
            }
        }
        if sortInMemory {
            var typed = models.compactMap { $0 as? T }
            if !descriptor.sortBy.isEmpty { typed.sort(using: descriptor.sortBy) }
            models = typed
        }
        if filterInMemory || sortInMemory {
            let offset = min(max(descriptor.fetchOffset ?? 0, 0), models.count)
            var window = Array(models[offset...])
            if let limit = descriptor.fetchLimit, limit >= 0, limit < window.count { window = Array(window.prefix(limit)) }
            models = window
        }
        if !descriptor.relationshipKeyPathsForPrefetching.isEmpty { prefetch(descriptor.relationshipKeyPathsForPrefetching, of: models) }
        return FetchOutcome(models: models)
    }

    /// Loads the destinations of the named relationships of `models`, one request per relationship.
    func prefetch<T: PersistentModel>(_ keyPaths: [PartialKeyPath<T>], of models: [any PersistentModel]) {
        let layout = ModelLayout.of(T.self)
        guard let runtime = try? runtime(for: layout.entityName) else { return }
        for keyPath in keyPaths {
            guard let slot = layout.slotsByKeyPath[keyPath], runtime.relationshipBySlot[slot] != nil else { continue }
            var ids: [PersistentIdentifier] = []
            for model in models {
                guard let data = managedAny(model) else { continue }
                switch data.slots[slot] {
                case .toOneFault(let id): ids.append(id)
                case .toManyFault(let list): ids.append(contentsOf: list)
                default: break
                }
            }
            _ = try? existingModels(for: ids)
        }
    }

    /// Fetches the snapshots of `ids` of one entity from its store.
    func fetchSnapshots(ids: [PersistentIdentifier], runtime: EntityRuntime) throws -> [DefaultSnapshot] {
        try fetchSnapshots(ids: ids, type: runtime.modelType)
    }

    private func fetchSnapshots<T: PersistentModel>(ids: [PersistentIdentifier], type: T.Type) throws -> [DefaultSnapshot] {
        let filter = FilterExpression.contains(collection: .list(ids.map { .identifier($0) }), element: .property(variable: 0, path: []))
        let result = try storeSnapshots(T.self, filter: filter)
        let wanted = Set(ids)
        for (id, snapshot) in result.related where registered[id]?.model == nil && !wanted.contains(id) {
            knownSnapshots[id] = snapshot
        }
        return result.snapshots.filter { wanted.contains($0.persistentIdentifier) }
    }
}

extension ModelContext {
    /// The snapshots of `T` a filter made by the core selects, for its own lookups (faults,
    /// unique checks); when the store refuses the filter, all of `T`'s snapshots.
    ///
    /// The request carries no predicate, and a store may ignore a filter it was not asked for
    /// through one, so callers keep only what they asked for.
    ///
    /// - Throws: The store's error.
    func storeSnapshots<T: PersistentModel>(_ type: T.Type, filter: FilterExpression?) throws -> (
        snapshots: [DefaultSnapshot], related: [PersistentIdentifier: DefaultSnapshot]
    ) {
        let store = try container.store(for: Schema.entityName(for: T.self))
        func request(_ filter: FilterExpression?) -> DataStoreFetchRequest<T> {
            DataStoreFetchRequest(editingState: editingState, descriptor: FetchDescriptor<T>(), filter: .success(filter), sort: .success([]))
        }
        do {
            return try store.fetch(request(filter))
        } catch DataStoreError.preferInMemoryFilter where filter != nil {
            return try store.fetch(request(nil))
        }
    }
}

extension ModelContext {
    /// The models matching `descriptor`, loaded `batchSize` at a time as the collection is read.
    ///
    /// - Throws: ``SwiftDataError/includePendingChangesWithBatchSize`` when the descriptor
    ///   includes pending changes and the context has some; the store's error.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        let identifiers = try batchedIdentifiers(descriptor)
        let loader = BatchLoader<T> { [unowned self] ids in
            ((try? self.existingModels(for: ids)) ?? []).compactMap { $0 as? T }
        }
        return FetchResultsCollection(identifiers: identifiers, batchSize: max(batchSize, 1), loader: loader)
    }

    /// The identifiers matching `descriptor`, as a collection read `batchSize` at a time.
    ///
    /// - Throws: As ``fetch(_:batchSize:)``.
    public func fetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<PersistentIdentifier> {
        let identifiers = try batchedIdentifiers(descriptor)
        return FetchResultsCollection(identifiers: identifiers, batchSize: max(batchSize, 1), loader: BatchLoader { $0 })
    }

    private func batchedIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        if descriptor.includePendingChanges && hasPendingChanges(for: Schema.entityName(for: T.self)) {
            throw SwiftDataError.includePendingChangesWithBatchSize.with(
                details: "a batched fetch of \(Schema.entityName(for: T.self)) cannot include pending changes; save first or set includePendingChanges to false")
        }
        var stored = descriptor
        stored.includePendingChanges = false
        return try fetchIdentifiers(stored)
    }

    /// Calls `block` with every model matching `fetch`, loading `batchSize` models at a time
    /// and releasing each batch after it is visited.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when the context has unsaved
    ///   changes (before or during the traversal) and `allowEscapingMutations` is `false`;
    ///   what `block` or the store throws.
    public func enumerate<T: PersistentModel>(
        _ fetch: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        func guardClean() throws {
            guard allowEscapingMutations || !hasChanges else {
                throw SwiftDataError.modelValidationFailure.with(
                    details: "enumerate found unsaved changes in the context; save first, or pass allowEscapingMutations: true")
            }
        }
        try guardClean()
        var stored = fetch
        stored.includePendingChanges = false
        let identifiers = try fetchIdentifiers(stored)
        var start = 0
        let size = max(batchSize, 1)
        while start < identifiers.count {
            let end = min(start + size, identifiers.count)
            let models = try existingModels(for: Array(identifiers[start..<end])).compactMap { $0 as? T }
            for model in models { try block(model) }
            knownSnapshots = [:]
            try guardClean()
            start = end
        }
    }
}
