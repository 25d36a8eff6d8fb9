import Foundation

/// How one fetch runs: the predicate and sort translated once, and for each step (filter,
/// sort, window, pending changes) whether the store or the context does it.
///
/// Every read of a context goes through a plan: `fetch`, `fetchCount`, `fetchIdentifiers`,
/// batched fetches, `enumerate`, `delete(model:where:)`, and the context's own lookups
/// (faults, prefetching, unique checks). ``ModelContext/explain(_:)`` prints the plan.
///
/// A step the store refuses (it throws ``DataStoreError/preferInMemoryFilter`` or
/// ``DataStoreError/preferInMemorySort``) moves to the context, which then runs the store's
/// filter tree or sort keys on snapshots; only an app predicate or sort that has no
/// store-neutral form runs on model objects.
struct FetchPlan<T: PersistentModel> {
    /// Where the filter runs.
    enum FilterStep {
        /// Every model matches.
        case none
        /// The store runs the filter tree.
        case store(FilterExpression)
        /// The context runs the filter tree on the store's snapshots.
        case snapshots(FilterExpression)
        /// The predicate has no store-neutral form: the context evaluates the descriptor's
        /// predicate on models.
        case models(reason: String)
    }

    /// Where the sort runs.
    ///
    /// Neither step holds the descriptor's predicate or sort itself: their types depend on
    /// `T`, which gave the steps a layout known only at run time, and each look at a step
    /// asked the runtime for its type metadata (about 330 instructions, several times a fetch).
    enum SortStep {
        case none
        case store([FilterSortKey])
        case snapshots([FilterSortKey])
        /// The context sorts models by the descriptor's sort descriptors.
        case models(reason: String)
    }

    let entityName: String
    let store: StoreBox
    /// The store entity the plan reads: `T`'s, or the root entity of `T`'s class hierarchy
    /// (see ``Schema/storageSchema``).
    let storeEntityName: String
    /// The classes whose models the plan keeps, when its store entity holds others too:
    /// `T` and the classes inheriting from it. `nil` keeps every model of the store entity.
    let classNames: [String]?
    /// Whether `T`'s store entity holds more than one class, so snapshots carry the discriminator.
    let sharesStoreEntity: Bool
    /// Unsaved inserts, changes and deletes of the entity are merged in, so the sort and
    /// the window run in memory after the merge.
    let mergesPendingChanges: Bool
    /// Identifiers looked up directly, in this order, for the context's own faults.
    let identifiers: [PersistentIdentifier]?
    /// The filter is the core's own, sent without a predicate: a store written to SwiftData's
    /// API may ignore it, so the context checks the store's answer against it.
    let rechecksStoreFilter: Bool

    // The fields whose layout depends on `T` come last: a plan's code is compiled once for
    // every model type, and reaching a field declared after one of them asks the runtime
    // for the plan's type metadata (about 330 instructions), several times a fetch.
    private(set) var descriptor: FetchDescriptor<T>
    private(set) var filter: FilterStep { didSet { updateShape() } }
    private(set) var sort: SortStep { didSet { updateShape() } }

    /// Plans an app's fetch.
    ///
    /// `includeSubclasses: false` keeps only models of `T` itself, not of its subclasses.
    /// `layout` is `T`'s, passed by a caller that has it (each look-up costs a lock and a hash).
    init(
        _ descriptor: FetchDescriptor<T>, store: StoreBox, mergesPendingChanges: Bool, includeSubclasses: Bool = true,
        layout: ModelLayout = .of(T.self)
    ) {
        self.descriptor = descriptor
        self.entityName = layout.entityName
        self.store = store
        self.mergesPendingChanges = mergesPendingChanges
        self.identifiers = nil
        self.rechecksStoreFilter = false
        (storeEntityName, classNames, sharesStoreEntity) = Self.hierarchy(of: layout, includeSubclasses: includeSubclasses)
        if let predicate = descriptor.predicate {
            do {
                let tree = try PredicateTranslator.translate(predicate, layout: layout)
                filter = .store(classNames.map { .and(Self.classTest($0), tree) } ?? tree)
            } catch {
                // The store still keeps to `T`'s classes; the models step checks them again.
                filter = .models(reason: (error as? SwiftDataError)?.details ?? "\(error)")
            }
        } else {
            filter = Self.keeping(classNames, nil).map { .store($0) } ?? .none
        }
        // `count`, not `isEmpty`: in this code, compiled once for every `T`, `isEmpty` is a call
        // through `Collection` after three metadata and witness-table requests.
        if descriptor.sortBy.count == 0 {
            sort = .none
        } else {
            do {
                sort = .store(try PredicateTranslator.translate(descriptor.sortBy))
            } catch {
                sort = .models(reason: (error as? SwiftDataError)?.details ?? "\(error)")
            }
        }
        updateShape()
    }

    /// Plans one of the context's own queries: a filter tree built by the core, or a lookup by identifier.
    init(filter: FilterExpression?, identifiers: [PersistentIdentifier]? = nil, store: StoreBox) {
        let layout = ModelLayout.of(T.self)
        self.descriptor = FetchDescriptor<T>()
        self.entityName = layout.entityName
        self.store = store
        self.mergesPendingChanges = false
        self.identifiers = identifiers
        self.rechecksStoreFilter = identifiers == nil
        (storeEntityName, classNames, sharesStoreEntity) = Self.hierarchy(of: layout, includeSubclasses: true)
        // A lookup names its models; any other query keeps to `T`'s classes.
        self.filter = (identifiers == nil ? Self.keeping(classNames, filter) : filter).map { .store($0) } ?? .none
        self.sort = .none
        updateShape()
    }

    /// Where `T`'s models are stored, which of that store entity's classes a plan keeps, and
    /// whether it holds other classes.
    private static func hierarchy(of layout: ModelLayout, includeSubclasses: Bool) -> (String, [String]?, Bool) {
        let shared = layout.identifierEntityName != layout.entityName || ModelHierarchies.hasDescendants(layout.entityName)
        guard shared else { return (layout.identifierEntityName, nil, false) }
        let family = ModelHierarchies.names(inheritingFrom: layout.entityName)
        let names = includeSubclasses ? family : [layout.entityName]
        let keepsAll = includeSubclasses && layout.identifierEntityName == layout.entityName
        return (layout.identifierEntityName, keepsAll ? nil : names, true)
    }

    /// The filter that keeps the models of `classNames`, by their stored class.
    private static func classTest(_ classNames: [String]) -> FilterExpression {
        .contains(collection: .list(classNames.map { .string($0) }), element: .property(variable: 0, path: [Schema.entityDiscriminator]))
    }

    /// `filter` restricted to the models of `classNames`; `filter` itself when `classNames` is `nil`.
    private static func keeping(_ classNames: [String]?, _ filter: FilterExpression?) -> FilterExpression? {
        guard let classNames else { return filter }
        return filter.map { .and(classTest(classNames), $0) } ?? classTest(classNames)
    }

    /// Plans a lookup of `identifiers`, answered in their order.
    static func lookup(_ identifiers: [PersistentIdentifier], store: StoreBox) -> FetchPlan {
        let filter = FilterExpression.contains(
            collection: .list(identifiers.map { .identifier($0) }), element: .property(variable: 0, path: []))
        return FetchPlan(filter: filter, identifiers: identifiers, store: store)
    }

    /// A page of this plan for ``ModelContext/enumerate(_:batchSize:allowEscapingMutations:block:)``:
    /// at most `limit` models after `last` (from the first when `nil`) and up to `ceiling`
    /// (to the last when `nil`), in identifier order (descending when not `ascending`), with
    /// the filter and the window run by the store.
    ///
    /// `nil` when the plan cannot page this way: its store does not adopt
    /// ``DataStorePagingByIdentifier``, the app sorts or skips models, or some step runs in memory.
    func page(after last: PersistentIdentifier?, upTo ceiling: PersistentIdentifier?, limit: Int, ascending: Bool = true) -> FetchPlan? {
        guard store.pagesByIdentifier, identifiers == nil, !mergesPendingChanges,
            descriptor.fetchOffset ?? 0 == 0, case .none = sort
        else { return nil }
        let identity = FilterExpression.property(variable: 0, path: [])
        var bounds: [FilterExpression] = []
        if let last { bounds.append(.comparison(.greater, identity, .value(.identifier(last)))) }
        if let ceiling { bounds.append(.comparison(.lessOrEqual, identity, .value(.identifier(ceiling)))) }
        var page = self
        switch filter {
        case .none: page.filter = bounds.isEmpty ? .none : .store(bounds.dropFirst().reduce(bounds[0]) { .and($0, $1) })
        case .store(let tree): page.filter = .store(bounds.reduce(tree) { .and($0, $1) })
        case .snapshots, .models: return nil
        }
        page.sort = .store([FilterSortKey(path: [], ascending: ascending, stringOrder: nil)])
        page.descriptor.fetchLimit = limit
        return page
    }

    // MARK: The plan's shape

    /// Whether the store runs every step, so it can also count, list identifiers and window.
    private(set) var storeRunsEverything = false

    /// Whether some step needs model objects (an untranslatable predicate or sort, or pending changes).
    private(set) var needsModels = false

    /// Sets ``storeRunsEverything`` and ``needsModels`` from the steps. Kept as stored flags,
    /// set whenever a step changes, because a fetch asks them several times and each look at
    /// a step of this generic plan costs a metadata lookup (~330 instructions).
    private mutating func updateShape() {
        switch (filter, sort) {
        case (.none, .none), (.none, .store), (.store, .none), (.store, .store): storeRunsEverything = !mergesPendingChanges
        default: storeRunsEverything = false
        }
        needsModels = mergesPendingChanges
        if case .models = filter { needsModels = true }
        if case .models = sort { needsModels = true }
    }

    /// The request for the store's part of the plan, for `T`'s store entity: for a class of
    /// a hierarchy, a request for the hierarchy's root type that carries the translated
    /// filter (the class test included), sort and property names, without the app's
    /// predicate, which is written for `T`.
    func storeRequest(editingState: EditingState) -> DataStoreFetchRequest<T.Root> {
        var request = descriptor
        var storeFilter: FilterExpression?
        // A step that is `.none` has nothing in the descriptor to clear; writing it anyway
        // asked the runtime for the metadata of the predicate's or sort's type.
        switch filter {
        case .store(let tree): storeFilter = tree
        case .none: break
        case .snapshots, .models: request.predicate = nil
        }
        var storeSort: [FilterSortKey] = []
        switch sort {
        case .store(let keys): storeSort = keys
        case .none: break
        case .snapshots, .models: request.sortBy = []
        }
        if !storeRunsEverything {
            request.fetchLimit = nil
            request.fetchOffset = nil
        }
        var propertyNames: [String]?
        if sharesStoreEntity && !request.propertiesToFetch.asAnyKeyPaths.isEmpty {
            let layout = ModelLayout.of(T.self)
            propertyNames = layout.propertyNames(toFetch: request.propertiesToFetch) + [Schema.entityDiscriminator]
        }
        let descriptor: FetchDescriptor<T.Root>
        if let same = request as? FetchDescriptor<T.Root> {
            descriptor = same
        } else {
            var root = FetchDescriptor<T.Root>()
            root.fetchLimit = request.fetchLimit
            root.fetchOffset = request.fetchOffset
            root.includePendingChanges = request.includePendingChanges
            descriptor = root
        }
        var result = DataStoreFetchRequest(
            editingState: editingState, descriptor: descriptor, filter: .success(storeFilter), sort: .success(storeSort),
            identifiers: identifiers)
        result.propertyNameOverride = propertyNames
        return result
    }

    /// Moves the step the store refused into memory.
    ///
    /// - Returns: `false` when the refusal names a step the store was not asked to run.
    mutating func storeRefused(_ error: DataStoreError) -> Bool {
        switch (error, filter, sort) {
        case (.preferInMemoryFilter, .store(let tree), _):
            filter = .snapshots(tree)
            StrataLog.fallback("fetch of \(entityName)", reason: "\(store.identifier) asked to filter in memory")
            return true
        case (.preferInMemorySort, _, .store(let keys)):
            sort = .snapshots(keys)
            StrataLog.fallback("sort of \(entityName)", reason: "\(store.identifier) asked to sort in memory")
            return true
        default:
            return false
        }
    }

    /// The plan as text, one step a line, for ``ModelContext/explain(_:)``.
    var steps: [String] {
        var lines = ["fetch \(entityName)", "store: \(store.identifier) (\(type(of: store.store)))"]
        if let identifiers { lines.append("lookup: \(identifiers.count) identifier(s), in the store") }
        switch filter {
        case .none: lines.append("filter: none")
        case .store(let tree): lines.append("filter: in the store: \(tree)")
        case .snapshots(let tree): lines.append("filter: in memory on snapshots (the store refused it): \(tree)")
        case .models(let reason): lines.append("filter: in memory on models (\(reason))")
        }
        switch sort {
        case .none: lines.append("sort: none")
        case .store(let keys): lines.append("sort: in the store: \(Self.describe(keys))")
        case .snapshots(let keys): lines.append("sort: in memory on snapshots (the store refused it): \(Self.describe(keys))")
        case .models(let reason): lines.append("sort: in memory on models (\(reason))")
        }
        if mergesPendingChanges {
            lines.append("pending changes: merged in memory, then sorted and windowed in memory")
        }
        if descriptor.fetchLimit != nil || descriptor.fetchOffset != nil {
            lines.append("window: \(storeRunsEverything ? "in the store" : "in memory, after the steps above")")
        }
        return lines
    }

    private static func describe(_ keys: [FilterSortKey]) -> String {
        keys.map { "\($0.path.joined(separator: ".")) \($0.ascending ? "ascending" : "descending")" }.joined(separator: ", ")
    }
}
