import Foundation

/// The rows a plan's store part and snapshot steps selected.
struct FetchedRows {
    var snapshots: [DefaultSnapshot]
    /// Snapshots of related models the store sent along.
    var related: RelatedSnapshots
}

extension FetchPlan {
    /// The models the plan selects, registered in `context`, in order and window.
    ///
    /// - Parameter noticingAfterReading: Whether the context did not ask the store for
    ///   external changes before the fetch (``ModelContext/catchUp(except:)``), so it does
    ///   after the rows are read, with the count a streamed fetch returned.
    /// - Throws: The store's error, an error evaluating the filter or sort in memory, or an
    ///   error loading a prefetched relationship.
    mutating func models(in context: ModelContext, noticingAfterReading: Bool = false) throws -> [T] {
        if case .models(let reason) = filter { StrataLog.fallback("fetch of \(entityName)", reason: reason) }
        if case .models(let reason) = sort { StrataLog.fallback("sort of \(entityName)", reason: reason) }
        var rows: FetchedRows
        var models: [T]
        var reported: Int64?
        if let streamed = try streamedModels(in: context) {
            (models, rows, reported) = streamed
        } else {
            rows = try self.rows(in: context)
            // The fetched rows first: a context that knows no other snapshots registers them without probing.
            models = try context.materialize(&rows.snapshots, partial: !descriptor.propertiesToFetch.asAnyKeyPaths.isEmpty, as: T.self)
        }
        if noticingAfterReading { context.catchUp(after: store, reported: reported) }
        let prefetching = !descriptor.relationshipKeyPathsForPrefetching.asAnyKeyPaths.isEmpty
        if !prefetching { context.remember(rows.related) }
        if case .models = filter, let predicate = descriptor.predicate {
            models = try context.keepMatches(models, predicate: predicate)
        }
        if mergesPendingChanges {
            models = try context.mergePendingChanges(into: models, predicate: descriptor.predicate)
        }
        if needsModels {
            if !descriptor.sortBy.isEmpty, mergesPendingChanges || isSortedOnModels { models.sort(using: descriptor.sortBy) }
            models = Self.window(models, offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
        }
        if prefetching {
            // The store's related snapshots go straight to the prefetched models, in order,
            // rather than into the context's cache of known snapshots and out again.
            let taken = try context.prefetch(descriptor.relationshipKeyPathsForPrefetching, of: models, related: &rows.related)
            if taken < rows.related.count { context.remember(rows.related) }
        }
        return models
    }

    /// Whether the plan's models are made as its store reads each row: the store streams
    /// (``DataStoreStreaming``) and no step runs on the rows between the store and the models.
    var streamsRows: Bool {
        guard store.streams, identifiers == nil, classNames == nil else { return false }
        switch filter {
        case .snapshots: return false
        case .store where rechecksStoreFilter: return false
        case .none, .store, .models: break
        }
        if case .snapshots = sort { return false }
        return true
    }

    /// The models of the store's rows, each registered as the store reads its row, the
    /// related snapshots and the external change count the store told; `nil` when the plan
    /// does not stream its rows (``streamsRows``) or the store refused a step, which then
    /// moves into memory.
    ///
    /// Rows of another entity than the plan's store entity are skipped, as ``rows(in:)`` skips them.
    ///
    /// - Throws: The store's error, or an error registering a model.
    private mutating func streamedModels(in context: ModelContext) throws -> (models: [T], rows: FetchedRows, externalChangeCount: Int64?)? {
        guard streamsRows else { return nil }
        var run = context.startMaterializing(partial: !descriptor.propertiesToFetch.asAnyKeyPaths.isEmpty)
        let storeEntityName = storeEntityName
        do {
            // The scope of the last identifier of the store entity, compared by address first:
            // comparing each row's entity name copied it out of the scope (about 45 instructions a row).
            var entityScope: UnsafeMutableRawPointer?
            // Each row's model takes the snapshot's values.
            let streamed = try store.fetch(storeRequest(editingState: context.editingState)) { (snapshot: inout DefaultSnapshot) in
                let scope = snapshot.persistentIdentifier.id.scopeAddress
                if scope != entityScope {
                    guard snapshot.persistentIdentifier.entityName == storeEntityName else { return }
                    entityScope = scope
                }
                try context.materialize(&snapshot, in: &run, as: T.self)
            }
            guard let streamed else { return nil }
            return (context.finish(&run, as: T.self), FetchedRows(snapshots: [], related: streamed.related), streamed.externalChangeCount)
        } catch let error as DataStoreError where error == .preferInMemoryFilter || error == .preferInMemorySort {
            guard storeRefused(error) else { throw error }
            return nil
        }
    }

    /// The number of models the plan selects, counted by the store when it runs every step.
    ///
    /// - Throws: As ``models(in:)``.
    mutating func count(in context: ModelContext) throws -> Int {
        if storeRunsEverything && identifiers == nil {
            do {
                return try store.fetchCount(storeRequest(editingState: context.editingState))
            } catch let error as DataStoreError where error == .preferInMemoryFilter || error == .preferInMemorySort {
                guard storeRefused(error) else { throw error }
            }
        }
        if !needsModels { return try rows(in: context).snapshots.count }
        return try models(in: context).count
    }

    /// The identifiers of the models the plan selects, listed by the store when it runs every step.
    ///
    /// - Throws: As ``models(in:)``.
    mutating func identifiers(in context: ModelContext) throws -> [PersistentIdentifier] {
        if storeRunsEverything && identifiers == nil {
            do {
                return try store.fetchIdentifiers(storeRequest(editingState: context.editingState))
            } catch let error as DataStoreError where error == .preferInMemoryFilter || error == .preferInMemorySort {
                guard storeRefused(error) else { throw error }
            }
        }
        if !needsModels { return try rows(in: context).snapshots.map(\.persistentIdentifier) }
        return try models(in: context).map(\.persistentModelID)
    }

    /// Runs the store's part, moving what it refuses into memory, then the steps that run on snapshots.
    ///
    /// - Throws: The store's error, or an error evaluating the filter tree or sort keys.
    mutating func rows(in context: ModelContext) throws -> FetchedRows {
        var rows = try storeRows(editingState: context.editingState)
        if rows.snapshots.contains(where: { $0.persistentIdentifier.entityName != storeEntityName }) {
            rows.snapshots.removeAll { $0.persistentIdentifier.entityName != storeEntityName }
        }
        if let classNames, identifiers == nil {
            // A store that ran no filter (one written to SwiftData's API reads only the
            // predicate, which a subclass's plan cannot send) returns every class.
            let kept = Set(classNames)
            rows.snapshots.removeAll { snapshot in
                if case .string(let name)? = snapshot[Schema.entityDiscriminator] { return !kept.contains(name) }
                return true
            }
        }
        if let identifiers { rows.snapshots = Self.ordered(rows.snapshots, as: identifiers) }
        let resolver = SnapshotResolver(rows: rows, context: context)
        let evaluator = FilterEvaluator(resolve: resolver.snapshot(for:))
        switch filter {
        case .snapshots(let tree),
            .store(let tree) where rechecksStoreFilter:
            rows.snapshots = try rows.snapshots.filter { try evaluator.matches($0, tree) }
        default:
            break
        }
        if case .snapshots(let keys) = sort {
            rows.snapshots = needsModels
                ? try evaluator.sortedWindow(rows.snapshots, by: keys, offset: nil, limit: nil)
                : try evaluator.sortedWindow(rows.snapshots, by: keys, offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
        } else if !needsModels && !storeRunsEverything {
            rows.snapshots = Self.window(rows.snapshots, offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
        }
        try resolver.throwFirstError()
        return rows
    }

    private mutating func storeRows(editingState: EditingState) throws -> FetchedRows {
        while true {
            do {
                let result = try store.fetch(storeRequest(editingState: editingState))
                return FetchedRows(snapshots: result.snapshots, related: RelatedSnapshots(result.related))
            } catch let error as DataStoreError where error == .preferInMemoryFilter || error == .preferInMemorySort {
                guard storeRefused(error) else { throw error }
            }
        }
    }

    private var isSortedOnModels: Bool {
        if case .models = sort { return true }
        return false
    }

    /// `snapshots` in the order of `identifiers`, each once; identifiers the store lacks are skipped.
    private static func ordered(_ snapshots: [DefaultSnapshot], as identifiers: [PersistentIdentifier]) -> [DefaultSnapshot] {
        var byID: [PersistentIdentifier: DefaultSnapshot] = [:]
        byID.reserveCapacity(snapshots.count)
        for snapshot in snapshots { byID[snapshot.persistentIdentifier] = snapshot }
        var result: [DefaultSnapshot] = []
        result.reserveCapacity(min(identifiers.count, snapshots.count))
        for id in identifiers {
            if let snapshot = byID.removeValue(forKey: id) { result.append(snapshot) }
        }
        return result
    }

    static func window<Element>(_ elements: [Element], offset: Int?, limit: Int?) -> [Element] {
        guard offset != nil || limit != nil else { return elements }
        let start = min(max(offset ?? 0, 0), elements.count)
        var window = elements[start...]
        if let limit, limit >= 0 { window = window.prefix(limit) }
        return Array(window)
    }
}

/// Finds the snapshots of related models while a filter tree or sort runs in memory: those
/// the store sent along, those the context knows, then the store's, looked up by identifier.
final class SnapshotResolver {
    private let fetched: [DefaultSnapshot]
    /// The fetched rows by identifier, indexed at the first lookup that needs them: most
    /// filters never follow a relationship, and a fetch should not pay for an index it skips.
    private lazy var rows: [PersistentIdentifier: DefaultSnapshot] = {
        var byID: [PersistentIdentifier: DefaultSnapshot] = [:]
        byID.reserveCapacity(fetched.count)
        for snapshot in fetched { byID[snapshot.persistentIdentifier] = snapshot }
        return byID
    }()
    private let related: [PersistentIdentifier: DefaultSnapshot]
    private unowned let context: ModelContext
    private var looked: [PersistentIdentifier: DefaultSnapshot?] = [:]
    private var firstError: (any Error)?

    init(rows: FetchedRows, context: ModelContext) {
        self.fetched = rows.snapshots
        self.related = rows.related.byIdentifier
        self.context = context
    }

    func snapshot(for id: PersistentIdentifier) -> DefaultSnapshot? {
        if let snapshot = related[id] ?? rows[id] ?? context.knownSnapshots[id] { return snapshot }
        if let known = looked[id] { return known }
        do {
            let found = try context.lookupSnapshots([id]).first
            looked[id] = found
            return found
        } catch {
            firstError = firstError ?? error
            looked[id] = .some(nil)
            return nil
        }
    }

    /// Throws the first error a lookup met, so a failed lookup never reads as a missing model.
    func throwFirstError() throws {
        if let firstError { throw firstError }
    }
}
