import Foundation

// The public reads of a context. Each one makes a ``FetchPlan`` and runs it.
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
        let layout = layout(of: T.self)
        let store = try store(for: layout.entityName)
        // A store that tells the external change count of its fetch is not asked before it:
        // asking cost SQLite a transaction of its own on every fetch.
        let deferred = store.countsExternalChangesInFetches ? store : nil
        catchUp(except: deferred)
        var plan = plan(for: descriptor, layout: layout, store: store)
        return try plan.models(in: self, noticingAfterReading: deferred != nil)
    }

    /// The number of models matching `descriptor`.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        catchUp()
        var unsorted = descriptor
        unsorted.sortBy = []  // order does not change a count, even of a window
        var plan = try plan(for: unsorted)
        return try plan.count(in: self)
    }

    /// The identifiers of the models matching `descriptor`, in its order.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        catchUp()
        var plan = try plan(for: descriptor)
        return try plan.identifiers(in: self)
    }

    /// The plan of a fetch: which steps the store runs and which run in memory, then the
    /// store's own account of its part (SQL and query plan, where it has one).
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) -> String {
        applyInbox()
        let plan: FetchPlan<T>
        do {
            plan = try self.plan(for: descriptor)
        } catch {
            return "fetch \(Schema.entityName(for: T.self)): \(error)"
        }
        var lines = plan.steps
        if let explaining = plan.store.store as? any DataStoreExplaining {
            do {
                lines.append(try explaining.explain(plan.storeRequest(editingState: editingState)))
            } catch {
                lines.append("the store could not explain the fetch: \(error)")
            }
        } else {
            lines.append("the store does not explain its plans; it may still refuse the filter or sort, which then run in memory")
        }
        return lines.joined(separator: "\n")
    }

    /// The plan of an app's fetch.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` when no store holds `T`.
    func plan<T: PersistentModel>(for descriptor: FetchDescriptor<T>) throws -> FetchPlan<T> {
        let layout = layout(of: T.self)
        return plan(for: descriptor, layout: layout, store: try store(for: layout.entityName))
    }

    /// The plan of an app's fetch of `T`, whose layout and store the caller looked up.
    func plan<T: PersistentModel>(for descriptor: FetchDescriptor<T>, layout: ModelLayout, store: StoreBox) -> FetchPlan<T> {
        let pending = descriptor.includePendingChanges && hasPendingChanges(of: T.self)
        return FetchPlan(descriptor, store: store, mergesPendingChanges: pending, layout: layout)
    }

    /// Whether models of `T`, or of its subclasses, have unsaved changes or a pending delete by predicate.
    func hasPendingChanges<T: PersistentModel>(of type: T.Type) -> Bool {
        guard hasChanges else { return false }
        let storeEntityName = ModelLayout.of(T.self).identifierEntityName
        if pendingBatchDeletes.contains(where: { $0.entityName == storeEntityName }) { return true }
        return (inserted.models + changed.models + deleted.models).contains { $0 is T }
    }

    /// Evaluates an app predicate the store could not run on fetched models; models this
    /// fetch registered that do not match are forgotten again unless something holds them.
    func keepMatches<T: PersistentModel>(_ models: [T], predicate: Predicate<T>) throws -> [T] {
        var matches: [T] = []
        var rejected: [PersistentIdentifier] = []
        for model in models {
            if try predicate.evaluate(model) {
                matches.append(model)
            } else if managedAny(model)?.hasChangesPending == false {
                rejected.append(model.persistentModelID)
            }
        }
        for id in rejected { registered.evictIfUnreferenced(id) }
        return matches
    }

    /// Adds this context's unsaved inserts and changes of `T` to stored matches, and drops
    /// pending deletes; models with unsaved changes are checked against `predicate` again.
    func mergePendingChanges<T: PersistentModel>(into models: [T], predicate: Predicate<T>?) throws -> [T] {
        var result = try models.filter { try managedAny($0)?.isDeleted != true && !isBatchDeleted($0) }
        let fromStore = Set(models.map { ObjectIdentifier($0) })
        for case let model as T in changed.models + inserted.models where !fromStore.contains(ObjectIdentifier(model)) {
            if try managedAny(model)?.isDeleted != true && !isBatchDeleted(model) { result.append(model) }
        }
        guard let predicate else { return result }
        return try result.filter { model in
            guard managedAny(model)?.hasChangesPending == true else { return true }
            return try predicate.evaluate(model)
        }
    }

    /// Loads the destinations of the named relationships of `models`, one lookup per
    /// relationship, and returns how many of the `related` snapshots it registered.
    ///
    /// A relationship whose destinations are the next of `related`'s listed snapshots, in
    /// order, takes them as they are; otherwise its destinations are looked up by identifier.
    ///
    /// - Throws: The store's error.
    func prefetch<T: PersistentModel>(
        _ keyPaths: [PartialKeyPath<T>], of models: [T], related: inout RelatedSnapshots
    ) throws -> Int {
        let layout = ModelLayout.of(T.self)
        let runtime = try runtime(for: layout.entityName)
        var taken = 0
        // The first listed snapshot not taken yet, and every related snapshot by identifier,
        // made for the first relationship whose destinations are not listed in order.
        var next = 0
        var byIdentifier: [PersistentIdentifier: DefaultSnapshot]?
        for keyPath in keyPaths {
            guard let slot = layout.slotsByKeyPath[keyPath], let relationship = runtime.relationshipBySlot[slot] else { continue }
            let repeating = try destinationsCanRepeat(relationship)
            if !repeating, let end = listedRun(of: slot, in: models, from: next, related.listed),
                let destinations = try registerListed(&related, next..<end)
            {
                // One model per listed snapshot, unless one was not of the class materialized.
                if !relationship.isToOne, destinations.count == end - next { load(slot, of: models, from: destinations) }
                taken += end - next
                next = end
                continue
            }
            var ids: [PersistentIdentifier] = []
            forEachFaultedDestination(of: slot, in: models) { id in
                ids.append(id)
                return true
            }
            if byIdentifier == nil { byIdentifier = related.byIdentifier }
            taken += try registerModels(of: ids, repeating: repeating, related: byIdentifier!)
        }
        return taken
    }

    /// Calls `visit` with each destination `models` list in `slot` as a fault (a to-one's
    /// identifier, a to-many's in its order), model by model, until it answers `false`;
    /// returns whether it saw them all.
    @discardableResult @inline(__always)
    private func forEachFaultedDestination<T: PersistentModel>(
        of slot: Int, in models: [T], _ visit: (PersistentIdentifier) -> Bool
    ) -> Bool {
        for model in models {
            guard let data = managedAny(model) else { continue }
            switch data[slot: slot] {
            case .toOneFault(let id):
                guard visit(id) else { return false }
            case .toManyFault(let list):
                for id in list { guard visit(id) else { return false } }
            default: break
            }
        }
        return true
    }

    /// How far the destinations `models` list in `slot` (as faults) run on in `listed` from
    /// `start`: the end of their run when the listed snapshots from `start` on are theirs, in
    /// their order; `nil` otherwise.
    ///
    /// Compared in place: gathering the identifiers into an array first wrote each one again
    /// (the graph's 30,000, about 530 page faults of fresh memory and a retain each), only
    /// for this comparison in the common case.
    private func listedRun<T: PersistentModel>(of slot: Int, in models: [T], from start: Int, _ listed: [DefaultSnapshot]) -> Int? {
        listed.withUnsafeBufferPointer { listed in
            var position = start
            let theirs = forEachFaultedDestination(of: slot, in: models) { id in
                guard position < listed.count, listed[position].persistentIdentifier == id else { return false }
                position += 1
                return true
            }
            return theirs ? position : nil
        }
    }

    /// Registers the models of `related`'s listed snapshots in `range`, the destinations of
    /// one prefetched relationship in order, when none of them is registered yet, and returns
    /// them in that order; `nil` when one is registered. Their values go to the models, as a
    /// fetch's rows do.
    ///
    /// With one registered already, the caller looks them up instead, which skips it: made
    /// here, its model would be made again (its initial values evaluated) only for the
    /// identity map to keep the registered one.
    ///
    /// - Throws: An error registering a model.
    private func registerListed(_ related: inout RelatedSnapshots, _ range: Range<Int>) throws -> [AnyObject]? {
        let noneRegistered = related.listed.withUnsafeBufferPointer { listed in
            range.allSatisfy { !registered.contains(listed[$0].persistentIdentifier) }
        }
        guard noneRegistered else { return nil }
        guard !range.isEmpty else { return [] }
        // What the store just read replaces what the context knew, as in `registerModels`.
        if !knownSnapshots.isEmpty {
            for index in range { knownSnapshots[related.listed[index].persistentIdentifier] = nil }
        }
        func register<M: PersistentModel>(as type: M.Type) throws -> [AnyObject] {
            // Arrays of class references share one representation.
            unsafeBitCast(try materialize(&related.listed, in: range, partial: false, unregistered: true, as: M.self), to: [AnyObject].self)
        }
        return try register(as: try runtime(for: related.listed[range.lowerBound].persistentIdentifier.entityName).modelType)
    }

    /// Loads the to-many relationship in `slot` of each of `owners` that holds it as a fault,
    /// from `destinations`: the models of their faults' identifiers, made just now in the
    /// same order (see ``listedRun(of:in:from:_:)``), so no identifier is looked up.
    ///
    /// The app asked for the relationship with the fetch; loading it at its first read
    /// instead looked each destination up in the identity map again, and kept every list
    /// of identifiers until then.
    private func load<T: PersistentModel>(_ slot: Int, of owners: [T], from destinations: [AnyObject]) {
        var position = 0
        for owner in owners {
            guard let data = managedAny(owner), case .toManyFault(let ids) = data[slot: slot] else { continue }
            let end = position + ids.count
            guard end <= destinations.count, let type = data.layout.collectionType(at: slot) else { return }
            data[slot: slot] = .loaded(.toMany(RelationshipEditing.make(type, of: destinations[position..<end])))
            position = end
        }
    }

    /// Whether a destination of `relationship` can be listed by several models: a to-one's
    /// can (models share it), and so can a to-many's, unless its inverse is a to-one (each
    /// destination then has one owner).
    private func destinationsCanRepeat(_ relationship: EntityRuntime.RelationshipSlot) throws -> Bool {
        guard !relationship.isToOne, let inverse = relationship.inverseSlot else { return true }
        return try runtime(for: relationship.destination).relationshipBySlot[inverse]?.isToOne != true
    }

    /// Registers the models of `ids` that are not registered yet, from the snapshots the store
    /// sent along with the fetch (`related`) or that the context knows, and for the rest from
    /// one lookup per entity, in one batch; `repeating` when an identifier can be listed
    /// more than once. Returns how many snapshots it took from `related`.
    ///
    /// `related` is only read: removing each snapshot taken cost more than looking it up
    /// (about 700 instructions: the deletion moves the keys after it). A caller that
    /// remembers the rest for later faults need not when every one was taken.
    private func registerModels(of ids: [PersistentIdentifier], repeating: Bool, related: [PersistentIdentifier: DefaultSnapshot]) throws -> Int {
        var snapshots: [DefaultSnapshot] = []
        snapshots.reserveCapacity(ids.count)
        var missing: [PersistentIdentifier] = []
        var listed = Set<PersistentIdentifier>()
        var taken = 0
        for id in ids where !registered.contains(id) && (!repeating || listed.insert(id).inserted) {
            let known = knownSnapshots.isEmpty ? nil : knownSnapshots.removeValue(forKey: id)
            if let snapshot = related[id] {
                snapshots.append(snapshot)
                taken += 1
            } else if let known {
                snapshots.append(known)
            } else {
                missing.append(id)
            }
        }
        // A lookup may teach the context other snapshots, so only a batch without one skips the probes.
        let unregistered = missing.isEmpty
        if !missing.isEmpty { snapshots += try lookupSnapshots(missing) }
        guard let first = snapshots.first else { return 0 }
        func register<M: PersistentModel>(as type: M.Type) throws {
            _ = try materialize(&snapshots, partial: false, unregistered: unregistered, as: M.self)
        }
        try register(as: try runtime(for: first.persistentIdentifier.entityName).modelType)
        return taken
    }
}

extension ModelContext {
    /// The models matching `descriptor`, loaded `batchSize` at a time as the collection is read.
    ///
    /// Models deleted elsewhere between batches are skipped: the collection then ends
    /// earlier than its first count said. A batch the store fails to load ends the
    /// collection there, and the error is logged.
    ///
    /// - Throws: ``SwiftDataError/includePendingChangesWithBatchSize`` when the descriptor
    ///   includes pending changes and the context has some; the store's error.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        let identifiers = try batchedIdentifiers(descriptor)
        let loader = BatchLoader<T>(identifiers: identifiers, batchSize: max(batchSize, 1)) { [weak self] ids, previous in
            guard let self else { return [] }
            for id in previous { self.forgetIfUnused(id) }
            return try self.existingModels(for: ids).compactMap { $0 as? T }
        }
        return FetchResultsCollection(loader: loader)
    }

    /// The identifiers matching `descriptor`, as a collection read `batchSize` at a time.
    ///
    /// - Throws: As ``fetch(_:batchSize:)``.
    public func fetchIdentifiers<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int
    ) throws -> FetchResultsCollection<PersistentIdentifier> {
        let identifiers = try batchedIdentifiers(descriptor)
        return FetchResultsCollection(loader: BatchLoader(identifiers: identifiers, batchSize: max(batchSize, 1)) { ids, _ in ids })
    }

    private func batchedIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        if descriptor.includePendingChanges && hasPendingChanges(of: T.self) {
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
    /// Models deleted elsewhere between batches are skipped.
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
        let batchSize = max(batchSize, 1)
        catchUp()
        var last: PersistentIdentifier?
        var remaining = stored.fetchLimit ?? .max
        let plan = try plan(for: stored)
        // Paging stops at the highest match there is now, so models saved while `block` runs
        // (by it, with `allowEscapingMutations`, or elsewhere) are not visited, and a block
        // that inserts as it goes cannot make the traversal endless.
        var ceiling: PersistentIdentifier?
        if var highest = plan.page(after: nil, upTo: nil, limit: 1, ascending: false) {
            guard let top = try highest.identifiers(in: self).first else { return }
            ceiling = top
        }
        // One array of identifiers for every batch: an array of 5,000 (160 KB) made and freed
        // per batch made glibc consolidate its free lists each time.
        var ids: [PersistentIdentifier] = []
        ids.reserveCapacity(min(batchSize, remaining))
        // Page by identifier while the store runs every step: each batch is one query that
        // starts after the last model seen. A step the store refuses moves into memory,
        // where paging would read the rest of the matches for every batch; then the
        // identifiers of the rest are listed once, as for stores that cannot page.
        while remaining > 0, var page = plan.page(after: last, upTo: ceiling, limit: min(batchSize, remaining)) {
            var batch = try page.models(in: self)
            for model in batch { try block(model) }
            ids.removeAll(keepingCapacity: true)
            for model in batch { ids.append(model.persistentModelID) }
            batch = []
            try finishBatch(ids, guardClean)
            guard let newest = ids.last else { return }
            // A store that did not keep to the page (its models not all after `last`) is
            // read by identifier from here, rather than asked for the same page forever.
            let advanced = last.map { newest > $0 } ?? true
            last = max(newest, last ?? newest)
            remaining -= ids.count
            if !page.storeRunsEverything || !advanced { break }
        }
        guard remaining > 0 else { return }
        var identifiers = try fetchIdentifiers(stored)
        if let last { identifiers.removeAll { $0 <= last } }
        if remaining < identifiers.count { identifiers.removeLast(identifiers.count - remaining) }
        for chunk in identifiers.chunks(of: batchSize) {
            let wanted = Array(chunk)
            var batch = try existingModels(for: wanted).compactMap { $0 as? T }
            for model in batch { try block(model) }
            batch = []
            try finishBatch(wanted, guardClean)
        }
    }

    /// Ends a batch of ``enumerate(_:batchSize:allowEscapingMutations:block:)``: drops the
    /// snapshots it loaded, checks for unsaved changes, and forgets its models unless
    /// something else holds them.
    private func finishBatch(_ ids: [PersistentIdentifier], _ guardClean: () throws -> Void) throws {
        knownSnapshots = [:]
        try guardClean()
        for id in ids { forgetIfUnused(id) }
    }

    /// Forgets a model a batch loaded when it has no unsaved changes and nothing but this
    /// context holds it, so batches do not accumulate in the identity map.
    func forgetIfUnused(_ id: PersistentIdentifier) {
        // The map holds only models whose data is this context's; the check reads no context,
        // whose weak reference would retain and release it (through its side table) per model.
        registered.evictIfUnreferenced(id) { $0.managedData?.hasChangesPending ?? true }
    }
}
