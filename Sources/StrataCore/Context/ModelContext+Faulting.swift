import Foundation

// How fetched snapshots become registered models, and how faults load.
extension ModelContext {
    /// Loads what a faulted slot refers to and stores it in the slot.
    ///
    /// A property read cannot throw, so a fault the store fails to load reads as `nil`, an
    /// empty collection, or for an attribute left out by `propertiesToFetch` whose stored
    /// value is damaged, a stand-in (``StoredValueCheck/standIn(for:)``); it is
    /// logged as an error and stays a fault to be tried again; the slot is remembered, and
    /// a save that would overwrite it throws instead.
    func resolveFault<M: PersistentModel>(of data: ManagedBackingData<M>, at slot: Int) -> BackingValue {
        do {
            return try loadFault(of: data, at: slot)
        } catch {
            data.failedFaultSlots.insert(slot)
            mayHoldFailedFaults = true
            StrataLog.logger.error(
                "\(ModelLayout.propertyName(of: M.self, slot: slot)) of \(data.persistentModelID.map { "\($0)" } ?? "a new model") could not be loaded: \(error)")
            if case .unloaded = data[slot: slot], let attribute = try? runtime(for: data.entityName).attributeBySlot[slot],
                let standIn = StoredValueCheck.standIn(for: attribute)
            {
                return .attribute(standIn)
            }
            return data.unresolvedValue(at: slot)
        }
    }

    private func loadFault<M: PersistentModel>(of data: ManagedBackingData<M>, at slot: Int) throws -> BackingValue {
        switch data[slot: slot] {
        case .loaded(let value):
            return value
        case .toOneFault(let id):
            let model = try registered[id] ?? existingModels(for: [id]).first
            data[slot: slot] = .loaded(.toOne(model))
            return .toOne(model)
        case .toManyFault(let ids):
            guard let type = data.layout.collectionType(at: slot) else { return .unset }
            let collection = try RelationshipEditing.make(type, registeredAs: ids, in: self) ?? RelationshipEditing.make(type, existingModels(for: ids))
            let value = BackingValue.toMany(collection)
            data[slot: slot] = .loaded(value)
            return value
        case .unloaded:
            guard let id = data.persistentModelID else { return .unset }
            guard let snapshot = try lookupSnapshots([id]).first else {
                throw SwiftDataError.missingModelContext.with(details: "\(id) is no longer in its store")
            }
            let full = try slots(from: snapshot, runtime: try runtime(for: data.entityName), partial: false)
            for index in 0..<data.slotCount where index < full.count {
                if case .unloaded = data[slot: index] { data[slot: index] = full[index] }
            }
            if case .unloaded = data[slot: slot] { return .unset }
            return try loadFault(of: data, at: slot)
        }
    }

    /// The registered model with `id`, or the one its store holds.
    ///
    /// - Throws: ``SwiftDataError/missingModelContext`` when no store holds `id`, or the store's error.
    func existingModel(for id: PersistentIdentifier) throws -> any PersistentModel {
        guard let model = try existingModels(for: [id]).first else {
            throw SwiftDataError.missingModelContext.with(details: "no store holds \(id)")
        }
        return model
    }

    /// The models with `ids`, in order, looking the unregistered ones up in one request per
    /// entity; models that are gone from their store are left out.
    ///
    /// - Throws: The store's error.
    func existingModels(for ids: [PersistentIdentifier]) throws -> [any PersistentModel] {
        // Most often every model is registered already (a prefetched or re-read relationship): one probe each.
        var models: [any PersistentModel] = []
        models.reserveCapacity(ids.count)
        for id in ids {
            guard let model = registered[id] else { break }
            models.append(model)
        }
        if models.count == ids.count { return models }
        var missing: [PersistentIdentifier] = []
        for id in ids where !registered.contains(id) && knownSnapshots[id] == nil { missing.append(id) }
        if !missing.isEmpty {
            for snapshot in try lookupSnapshots(missing) { knownSnapshots[snapshot.persistentIdentifier] = snapshot }
        }
        models.removeAll(keepingCapacity: true)
        for id in ids {
            if let model = registered[id] {
                models.append(model)
            } else if let snapshot = knownSnapshots[id] {
                models.append(try materialize(snapshot))
            }
        }
        return models
    }

    /// The stored snapshots of `ids`, through a lookup plan per entity; identifiers their
    /// store lacks are left out.
    ///
    /// - Throws: The store's error.
    func lookupSnapshots(_ ids: [PersistentIdentifier]) throws -> [DefaultSnapshot] {
        var result: [DefaultSnapshot] = []
        for (entityName, group) in Dictionary(grouping: ids, by: \.entityName) {
            result += try lookupSnapshots(group, type: try runtime(for: entityName).modelType)
        }
        return result
    }

    private func lookupSnapshots<T: PersistentModel>(_ ids: [PersistentIdentifier], type: T.Type) throws -> [DefaultSnapshot] {
        var plan = FetchPlan<T>.lookup(ids, store: try store(for: layout(of: T.self).entityName))
        let rows = try plan.rows(in: self)
        remember(rows.related)
        return rows.snapshots
    }

    /// Keeps snapshots a store sent along with a fetch, to resolve faults without a trip.
    func remember(_ related: RelatedSnapshots) {
        related.forEach { snapshot in
            let id = snapshot.persistentIdentifier
            if !registered.contains(id) { knownSnapshots[id] = snapshot }
        }
    }

    /// Registers a fetched snapshot: the live registered model (refreshed if unchanged) or a new one.
    func materialize(_ snapshot: consuming DefaultSnapshot, partial: Bool = false) throws -> any PersistentModel {
        let id = snapshot.persistentIdentifier
        if let model = registered[id] { return try refreshed(model, from: snapshot, partial: partial) }
        if !knownSnapshots.isEmpty { knownSnapshots[id] = nil }
        let runtime = try runtime(of: snapshot)
        return try register(&snapshot, runtime: runtime, partial: partial)
    }

    /// A registered model, with the values of a newer `snapshot` of it unless it has unsaved changes.
    private func refreshed(_ model: any PersistentModel, from snapshot: DefaultSnapshot, partial: Bool) throws -> any PersistentModel {
        if let data = managedAny(model), !data.hasChangesPending {
            try refresh(data, from: snapshot, runtime: try runtime(for: data.entityName), partial: partial)
        }
        return model
    }

    /// Makes the model of `snapshot`, a row of `runtime`'s class, and registers it; a model
    /// registered as its identifier already (a store that listed a row twice) is kept and returned.
    /// The model may take the snapshot's values, leaving it none (see ``slots(taking:runtime:partial:)``).
    /// Inlined into its two callers: the call cost every fetched model about 30 instructions.
    @inline(__always)
    private func register(_ snapshot: inout DefaultSnapshot, runtime: EntityRuntime, partial: Bool) throws -> any PersistentModel {
        let made = try makeModel(taking: &snapshot, runtime: runtime, partial: partial)
        return registered.registerIfAbsent(made, as: snapshot.persistentIdentifier) ?? made
    }

    /// Makes the model of `snapshot`, a row of `runtime`'s class, unregistered; it may take
    /// the snapshot's values (see ``slots(taking:runtime:partial:)``).
    @inline(__always)
    private func makeModel(taking snapshot: inout DefaultSnapshot, runtime: EntityRuntime, partial: Bool) throws -> any PersistentModel {
        runtime.makeModel(try slots(taking: &snapshot, runtime: runtime, partial: partial), snapshot.persistentIdentifier, self)
    }

    /// Registers the models of fetched snapshots and returns those of type `T`, in order.
    ///
    /// The per-row path of every fetch: a context that has nothing registered (a new one, as
    /// an import or a background job uses) inserts each model into its identity map without
    /// looking first, and the entity's run-time description is looked up once per run of rows.
    /// Each snapshot's values are freed once its model holds them (the snapshots keep their
    /// identifiers), so a large fetch never holds every row twice.
    ///
    /// - Parameters:
    ///   - range: The snapshots to register, all of them when `nil`.
    ///   - unregistered: The caller checked that no snapshot's model is registered and that
    ///     the context knows none of the snapshots, so none is probed for.
    /// - Throws: As ``materialize(_:partial:)``.
    func materialize<T: PersistentModel>(
        _ snapshots: inout [DefaultSnapshot], in range: Range<Int>? = nil, partial: Bool, unregistered: Bool = false, as type: T.Type
    ) throws -> [T] {
        let range = range ?? snapshots.indices
        var run = startMaterializing(partial: partial, unregistered: unregistered)
        run.reserveCapacity(range.count)
        if !range.isEmpty { registered.reserveCapacity(adding: range.count, like: snapshots[range.lowerBound].persistentIdentifier) }
        // Each snapshot read in place: `snapshots[index]` handed to the call was a copy of it
        // (its identifier and a retain and release of each array).
        try snapshots.withUnsafeMutableBufferPointer { snapshots in
            for index in range {
                defer { snapshots[index].releaseValues() }
                try materialize(&snapshots[index], in: &run, as: T.self)
            }
        }
        return finish(&run, as: T.self)
    }

    /// Starts registering fetched snapshots one at a time with ``materialize(_:in:)``, as
    /// ``materialize(_:partial:unregistered:as:)`` does and a store that streams them hands them over.
    ///
    /// - Parameter unregistered: As for ``materialize(_:partial:unregistered:as:)``.
    func startMaterializing(partial: Bool, unregistered: Bool = false) -> MaterializingRun {
        MaterializingRun(partial: partial, fresh: unregistered || (registered.isEmpty && knownSnapshots.isEmpty))
    }

    /// Registers the model of one fetched snapshot (see ``materialize(_:partial:unregistered:as:)``)
    /// and adds it to `run`'s models when it is a `T`. A new model may take the snapshot's
    /// values, leaving it its identifier (see ``slots(taking:runtime:partial:)``).
    ///
    /// - Throws: As ``materialize(_:partial:)``.
    func materialize<T: PersistentModel>(_ snapshot: inout DefaultSnapshot, in run: inout MaterializingRun, as type: T.Type) throws {
        if !run.fresh {
            if let model = registered[snapshot.persistentIdentifier] {
                if let model = try refreshed(model, from: snapshot, partial: run.partial) as? T { run.append(model) }
                return
            }
            if !knownSnapshots.isEmpty { knownSnapshots[snapshot.persistentIdentifier] = nil }
        }
        // The run's last entity recognized by its identifiers' shared scope, compared by
        // address: copying the entity's name out of the scope to compare it retained and
        // released it (about 60 instructions a model).
        let scope = snapshot.persistentIdentifier.id.scopeAddress
        let stored: Unmanaged<EntityRuntime>
        if let lastRuntime = run.lastRuntime, run.lastScope == scope {
            stored = lastRuntime
        } else {
            // Unretained: the container's core holds every runtime as long as the context.
            stored = Unmanaged.passUnretained(try runtime(for: snapshot.persistentIdentifier.entityName))
            (run.lastScope, run.lastRuntime) = (scope, stored)
        }
        // The runtime lent to the row rather than held: held, it was retained twice and
        // released twice a model (about 65 instructions).
        try stored._withUnsafeGuaranteedRef { stored in
            // `runtime(of:stored:)` makes the same test first; made here, a row outside a class
            // hierarchy skips the call and its retain of the runtime (inlining the test into
            // that function instead counted 0.04% more for a fetch).
            if stored.isInHierarchy {
                try materialize(&snapshot, as: try self.runtime(of: snapshot, stored: stored), in: &run, of: T.self)
            } else {
                try materialize(&snapshot, as: stored, in: &run, of: T.self)
            }
        }
    }

    /// Registers the model of `snapshot`, a row of `runtime`'s class, and adds it to `run`'s
    /// models when it is a `T`.
    @inline(__always)
    private func materialize<T: PersistentModel>(
        _ snapshot: inout DefaultSnapshot, as runtime: EntityRuntime, in run: inout MaterializingRun, of type: T.Type
    ) throws {
        guard runtime.modelType == T.self else {
            if let model = try register(&snapshot, runtime: runtime, partial: run.partial) as? T { run.append(model) }
            return
        }
        // A `T` with an integer key of the run's store and entity (every row of a SQLite
        // fetch) is registered with the others when the run ends (``MaterializingRun/finish(registeringIn:as:)``).
        if case .int(let key) = snapshot.persistentIdentifier.id.primaryKey,
            run.defersRegistering(key, of: snapshot.persistentIdentifier.id.scopeReference)
        {
            run.append(taking: try makeModel(taking: &snapshot, runtime: runtime, partial: run.partial), registeringAs: key)
            return
        }
        run.append(taking: try register(&snapshot, runtime: runtime, partial: run.partial))
    }

    /// Registers the models `run` made without registering them, and returns its models.
    @inline(__always)
    func finish<T: PersistentModel>(_ run: inout MaterializingRun, as type: T.Type) -> [T] {
        run.finish(registeringIn: &registered, as: T.self)
    }

    /// The run-time description of the class a stored snapshot belongs to: its identifier's
    /// entity, or in a class hierarchy, the entity its ``Schema/entityDiscriminator`` names.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming the row when the
    ///   discriminator names no class of the hierarchy in this container's schema.
    /// - Parameter stored: The runtime of the snapshot's identifier's entity, when the caller
    ///   has it already.
    func runtime(of snapshot: DefaultSnapshot, stored: EntityRuntime? = nil) throws -> EntityRuntime {
        let stored = try stored ?? runtime(for: snapshot.persistentIdentifier.entityName)
        guard stored.isInHierarchy else { return stored }
        switch snapshot[Schema.entityDiscriminator] {
        case nil, .null?:
            return stored
        case .string(let name)? where name == stored.entity.name:
            return stored
        case .string(let name)?:
            if let runtime = try? runtime(for: name), runtime.storageEntityName == stored.storageEntityName { return runtime }
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(snapshot.persistentIdentifier) is stored as a \(name), which is not a class of \(stored.entity.name)'s hierarchy in this container's schema; add it to the schema")
        case let other?:
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(snapshot.persistentIdentifier) has \(other) for \(stored.entity.name).\(Schema.entityDiscriminator), which names the class of each stored model")
        }
    }

    func makePlaceholder(_ type: any PersistentModel.Type, _ id: PersistentIdentifier) -> any PersistentModel {
        let layout = ModelLayout.of(type)
        let storage = SlotStorage(repeatElement(.loaded(.unset), count: layout.propertyNames.count))
        return layout.modelMaker.makeModel(storage: storage, identifier: id, context: self, layout: layout)
    }

    /// Takes a model's values from a newer snapshot; properties the snapshot lacks keep theirs.
    ///
    /// - Throws: As ``slots(from:runtime:partial:)``.
    @discardableResult
    func refresh(_ data: ManagedData, from snapshot: DefaultSnapshot, runtime: EntityRuntime, partial: Bool) throws -> [Int] {
        let fresh = try slots(from: snapshot, runtime: runtime, partial: partial)
        var refreshed: [Int] = []
        for index in 0..<fresh.count {
            if case .unloaded = fresh[index] { continue }
            data[slot: index] = fresh[index]
            refreshed.append(index)
        }
        data.markSaved()
        return refreshed
    }

    /// As ``slots(from:runtime:partial:)``, moving the snapshot's values into the slots when
    /// they are the slots as they are (the usual fetched row), which leaves the snapshot no
    /// values: copied, the array was retained here and released with the snapshot, about 40
    /// instructions a model.
    ///
    /// - Throws: As ``slots(from:runtime:partial:)``.
    @inline(__always)
    func slots(taking snapshot: inout DefaultSnapshot, runtime: EntityRuntime, partial: Bool) throws -> SlotStorage {
        // A store that reads rows in the entity's shape hands each the runtime's own array of
        // names: found so inline, before the call that compares arrays (about 25 instructions a model).
        guard snapshot.propertyNames.sharesStorage(with: runtime.propertyNames) || snapshot.propertyNames == runtime.propertyNames,
            runtime.holdsAsSlots(snapshot.values)
        else {
            return try slots(from: snapshot, runtime: runtime, partial: partial)
        }
        return SlotStorage(values: snapshot.takeValues(), others: nil)
    }

    /// Turns snapshot values into slots, checking each attribute's kind.
    ///
    /// A snapshot in the entity's own shape lends its value array to the slots as it is
    /// (see ``SlotStorage``): only slots that are not a stored attribute value are made.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming the property when a store
    ///   returned a value of the wrong kind, or none for a required property of a full fetch.
    func slots(from snapshot: DefaultSnapshot, runtime: EntityRuntime, partial: Bool) throws -> SlotStorage {
        let aligned = snapshot.propertyNames == runtime.propertyNames
        // A class of a hierarchy reads its slots out of its store entity's snapshot.
        let stored = !aligned && runtime.isInHierarchy && snapshot.propertyNames == runtime.storagePropertyNames
        let count = runtime.propertyNames.count
        var values: [PersistentValue]
        if aligned {
            values = snapshot.values
        } else {
            values = []
            values.reserveCapacity(count)
        }
        var others: ContiguousArray<ManagedSlot?>?
        // The snapshot's own array holds its values already; any other shape is built slot by slot.
        func keep(_ value: PersistentValue) {
            if !aligned { values.append(value) }
        }
        func set(_ other: ManagedSlot, at slot: Int) {
            if others == nil { others = ContiguousArray(repeating: nil, count: count) }
            others![slot] = other
            keep(.null)
        }
        // The common row: every slot such a value, checked before the loop below copies each one out.
        if aligned, runtime.holdsAsSlots(values) { return SlotStorage(values: values, others: nil) }
        for slot in 0..<count {
            let value: PersistentValue? =
                aligned ? values[slot]
                : stored ? snapshot.values[runtime.storageIndexBySlot[slot]] : snapshot[runtime.propertyNames[slot]]
            // The common case first: an attribute the store returned in its own kind, or a
            // relationship's fault, which stays in the values as the store sent it (see
            // `SlotStorage`) and loads when first read.
            if let value, runtime.keepsAsIs(value.kind, at: slot) {
                keep(value)
                continue
            }
            let name = runtime.propertyNames[slot]
            guard let value else {
                if partial { set(.unloaded, at: slot); continue }
                if let attribute = runtime.attributeBySlot[slot], attribute.isOptional {
                    keep(.null)
                    continue
                }
                if let relationship = runtime.relationshipBySlot[slot] {
                    set(relationship.isToOne ? .loaded(.toOne(nil)) : .toManyFault([]), at: slot)
                    continue
                }
                throw SwiftDataError.modelValidationFailure.with(
                    details: "the store returned \(snapshot.persistentIdentifier) without a value for \(runtime.entity.name).\(name)")
            }
            if let attribute = runtime.attributeBySlot[slot] {
                let made = try attributeSlot(value, attribute, entity: runtime.entity.name, row: snapshot.persistentIdentifier)
                if case .loaded(.attribute(let checked)) = made {
                    keep(checked)
                } else {
                    set(made, at: slot)
                }
            } else if let relationship = runtime.relationshipBySlot[slot] {
                // A fault of the relationship's shape was kept above; a null is an empty one.
                switch value {
                case .null: set(relationship.isToOne ? .loaded(.toOne(nil)) : .toManyFault([]), at: slot)
                default:
                    throw SwiftDataError.modelValidationFailure.with(
                        details: "the store returned \(value.kind.map { "a \($0.rawValue)" } ?? "nil") for the relationship \(runtime.entity.name).\(name)")
                }
            }
        }
        return SlotStorage(values: values, others: others)
    }

    /// The slot of an attribute's stored value, once the value is known to read back as the
    /// attribute's declared type.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming the entity, the property and
    ///   the row when it does not: a value of another kind, `nil` for a required property, an
    ///   integer out of range, a raw value no case has, JSON that does not decode, or data its
    ///   transformer cannot turn back into a value of the declared type.
    private func attributeSlot(
        _ value: PersistentValue, _ attribute: EntityRuntime.AttributeSlot, entity: String, row: PersistentIdentifier
    ) throws -> ManagedSlot {
        func damaged(_ problem: String) -> SwiftDataError {
            SwiftDataError.modelValidationFailure.with(
                details: "\(row) cannot be read: \(entity).\(attribute.name) \(problem). Fetch the row's identifiers, or the other properties through propertiesToFetch, to read past it")
        }
        if let transformer = attribute.transformerName {
            let object: Any?
            switch value {
            case .data(let data):
                guard let registered = ValueTransformer(forName: NSValueTransformerName(transformer)) else {
                    throw damaged("is transformed by \(transformer), which is not registered")
                }
                object = registered.reverseTransformedValue(data)
            case .null:
                object = nil
            default:
                throw damaged("holds a \(value.kind?.rawValue ?? "nil") where its transformer stored data")
            }
            guard attribute.isDeclaredType(object) else {
                throw damaged("holds data \(transformer) does not turn back into its declared type")
            }
            return .loaded(.transformable(object))
        }
        switch (value, attribute.kind) {
        case (.null, _) where attribute.isOptional: return .loaded(.attribute(.null))
        case (.int, .double), (.int, .decimal), (.int, .bool): return .loaded(.attribute(value))
        case (.double, .decimal): return .loaded(.attribute(value))
        default:
            guard value.kind == attribute.kind else {
                throw damaged(
                    "holds \(value.kind.map { "a \($0.rawValue)" } ?? "nil"), but is \(attribute.isOptional ? "an optional " : "")\(attribute.kind.rawValue)")
            }
            if let problem = attribute.check?.problem(value) { throw damaged(problem) }
            return .loaded(.attribute(value))
        }
    }
}

extension ManagedData {
    var hasChangesPending: Bool { isInserted || isChanged || isDeleted }
}

/// What registering a run of fetched snapshots keeps between rows, for a fetch of models of
/// class `T` (the type its `materialize` and `finish` calls name): the models made so far,
/// those waiting to be registered, and the entity's run-time description, looked up once
/// per run of rows of one entity.
///
/// This code runs unspecialized, where an append to an array of `T` asks the runtime for
/// that array type's metadata (about 330 instructions a model). Models are added as bare
/// references, and the array of them is read as an array of `T` at the end: arrays of class
/// references share one representation (as `RelationshipEditing` relies on). Moving them
/// into an array of `T` 64 at a time, as a run did before, retained and released every
/// model once more where the fetch no longer had it in cache (about 5% of a fetch's time,
/// issue I). The run itself is not generic over `T`: as a generic type, its value asked
/// for its metadata in every fetch that finished it (about 330 instructions a lookup).
struct MaterializingRun {
    /// The models added so far, in the order of their snapshots, each a `T`.
    private var models: [AnyObject] = []
    /// The models that wait to be registered and their keys: while ``inSequence``, the
    /// models from position ``sequenceStart`` on, with keys from ``firstKey`` up by one (a
    /// fetch in key order, which then lists no key); after that, in ``keys``.
    private var inSequence = true
    private var sequenceStart = 0
    private var firstKey: Int64 = 0
    /// Once the models that wait are no longer in sequence: for each of ``models``, the
    /// integer key it is registered as when the run ends, or `notWaitingKey`.
    private var keys: [Int64] = []
    /// The store and entity of the models waiting to be registered.
    private var waitingScope: Unmanaged<PersistentIdentifier.Scope>?
    /// How many models wait, and the lowest and highest of their keys.
    private var waiting = 0
    private var lowestKey = Int64.max
    private var highestKey = Int64.min
    /// The snapshots hold only the properties the fetch asked for.
    let partial: Bool
    /// No snapshot's model can be registered already, and the context knows none of the
    /// snapshots, so none is probed for.
    let fresh: Bool
    /// The scope of the last snapshot's identifier (its store and entity, see
    /// ``PersistentIdentifier/ID/scopeAddress``), and its entity's run-time description.
    fileprivate var lastScope: UnsafeMutableRawPointer?
    fileprivate var lastRuntime: Unmanaged<EntityRuntime>?

    init(partial: Bool, fresh: Bool) {
        self.partial = partial
        self.fresh = fresh
    }

    /// Makes room for `count` models in all.
    mutating func reserveCapacity(_ count: Int) {
        models.reserveCapacity(count)
    }

    /// Adds `model` after the models added so far.
    ///
    /// Always inlined: it runs once a model (when the run was generic, a call also asked for
    /// the run type's metadata, about 330 instructions).
    @inline(__always)
    mutating func append(_ model: AnyObject) {
        models.append(model)
        if waitingScope != nil { listWaitingKeys(andAppend: notWaitingKey) }
    }

    /// Adds `model`, a `T`, after the models added so far, moving the caller's reference
    /// into the array (converted in the call to `append`, it was retained and released, about
    /// 45 instructions a model); inlined, as ``append(_:)`` is.
    @inline(__always)
    mutating func append(taking model: consuming any PersistentModel) {
        let object: AnyObject = consume model
        models.append(consume object)
        if waitingScope != nil { listWaitingKeys(andAppend: notWaitingKey) }
    }

    /// Whether the model of integer key `key` of `scope` can wait to be registered when the
    /// run ends: the run's models that wait are all of one store and entity, and the first
    /// model is registered at once (a fetch of one row, as a lookup is, gains nothing from
    /// waiting and would pay for the keys' array).
    @inline(__always)
    mutating func defersRegistering(_ key: Int64, of scope: Unmanaged<PersistentIdentifier.Scope>) -> Bool {
        guard key != notWaitingKey else { return false }
        if let waitingScope { return waitingScope.toOpaque() == scope.toOpaque() }
        guard !models.isEmpty else { return false }
        waitingScope = scope
        sequenceStart = models.count
        return true
    }

    /// Adds `model`, a new `T` that waits to be registered as the integer key `key` of the
    /// scope ``defersRegistering(_:of:)`` accepted, as ``append(taking:)`` adds a model.
    @inline(__always)
    mutating func append(taking model: consuming any PersistentModel, registeringAs key: Int64) {
        let object: AnyObject = consume model
        models.append(consume object)
        if !inSequence {
            keys.append(key)
        } else if waiting == 0 {
            firstKey = key
        } else if key != firstKey &+ Int64(waiting) {
            listWaitingKeys(andAppend: key)
        }
        waiting &+= 1
        lowestKey = Swift.min(lowestKey, key)
        highestKey = Swift.max(highestKey, key)
    }

    /// Appends `key` to ``keys`` for the model just added, first listing the keys of the
    /// models before it while they were in sequence.
    private mutating func listWaitingKeys(andAppend key: Int64) {
        if inSequence {
            inSequence = false
            keys.reserveCapacity(models.capacity)
            keys.append(contentsOf: repeatElement(notWaitingKey, count: sequenceStart))
            for offset in 0..<waiting { keys.append(firstKey &+ Int64(offset)) }
        }
        keys.append(key)
    }

    /// Registers the models that wait in `map`, and returns every model added, in order. A
    /// model whose key `map` holds already (a store that listed a row twice) gives way to the
    /// registered one, as ``IdentityMap/registerIfAbsent(_:as:)`` keeps it.
    @inline(__always)
    mutating func finish<T: PersistentModel>(registeringIn map: inout IdentityMap, as type: T.Type) -> [T] {
        if let waitingScope, waiting > 0 {
            registerWaiting(
                &models, keys: inSequence ? .inSequence(from: sequenceStart, firstKey: firstKey, count: waiting) : .listed(keys),
                from: lowestKey, through: highestKey, adding: waiting, scope: waitingScope, in: &map, as: T.self)
        }
        return unsafeBitCast(models, to: [T].self)
    }
}

/// The key ``MaterializingRun`` lists for a model that does not wait to be registered.
private let notWaitingKey = Int64.min

/// The keys of the models of a ``MaterializingRun`` that wait to be registered.
private enum WaitingKeys {
    /// `count` models from position `from` on, with keys from `firstKey` up by one.
    case inSequence(from: Int, firstKey: Int64, count: Int)
    /// For each model, its key or `notWaitingKey`.
    case listed([Int64])
}

/// ``MaterializingRun/finish(registeringIn:as:)``'s registering: the models of `keys` go
/// into `map` together, and a position whose key `map` held already gets that model, or
/// loses its place when that model is not a `type`.
private func registerWaiting(
    _ models: inout [AnyObject], keys: WaitingKeys, from lowest: Int64, through highest: Int64, adding count: Int,
    scope: Unmanaged<PersistentIdentifier.Scope>, in map: inout IdentityMap, as type: any PersistentModel.Type
) {
    let repeated = models.withUnsafeBufferPointer { models in
        switch keys {
        case .inSequence(let start, let firstKey, let waiting):
            let end = start + waiting
            return map.registerRun(
                models, key: { $0 >= start && $0 < end ? firstKey &+ Int64($0 - start) : nil },
                from: lowest, through: highest, adding: count, scope: scope, type: type)
        case .listed(let keys):
            return keys.withUnsafeBufferPointer { keys in
                map.registerRun(
                    models, key: { $0 < keys.count && keys[$0] != notWaitingKey ? keys[$0] : nil },
                    from: lowest, through: highest, adding: count, scope: scope, type: type)
            }
        }
    }
    guard !repeated.isEmpty else { return }
    func isInstance<M: PersistentModel>(_ object: AnyObject, of type: M.Type) -> Bool { object is M }
    var dropped: [Int] = []
    for (position, registered) in repeated {
        if isInstance(registered, of: type) { models[position] = registered } else { dropped.append(position) }
    }
    for position in dropped.reversed() { models.remove(at: position) }
}
