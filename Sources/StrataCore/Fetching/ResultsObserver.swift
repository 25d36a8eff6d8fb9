import Foundation
import Observation

/// The live results of a fetch: refetched when a save touches the fetched entity.
///
/// SwiftData's `@Query` lives in SwiftUI; `ResultsObserver`, SwiftData's own type for the
/// same job outside views, works anywhere. It is `Observable`: read ``results`` inside
/// `withObservationTracking` and you hear of the next relevant save. It is also an
/// `AsyncSequence` of result arrays through ``updates``.
/// ```swift
/// let upcoming = try ResultsObserver<Trip, Never>(
///     filterBy: #Predicate { $0.startDate > now }, sortBy: [SortDescriptor(\.startDate)],
///     modelContext: context)
/// for await trips in upcoming.updates { render(trips) }
/// ```
///
/// A save by any context of the same container that inserts, updates or deletes a model of
/// `Element`'s entity, and ``ModelContainer/erase()``, mark the results stale and tell their
/// observers; saves of other entities do not. The refetch happens when ``results`` is next
/// read, on the reader's thread, which must be the context's, with the same predicate, sort
/// and window. Changes another process commits to a SQLite store count once a context of
/// this container notices them (at its next fetch).
public final class ResultsObserver<Element, SectionTitle>: Observable, StaleMarking where Element: PersistentModel, SectionTitle: Hashable {
    /// The context the results are fetched in.
    public let modelContext: ModelContext

    /// The fetch: predicate, sort, window and options.
    public private(set) var fetchDescriptor: FetchDescriptor<Element>

    /// The predicate of ``fetchDescriptor``; setting it refetches.
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set {
            fetchDescriptor.predicate = newValue
            invalidate()
        }
    }

    /// The sort of ``fetchDescriptor``; setting it refetches.
    ///
    /// With sectioning, the sort by ``sectionBy`` comes first, and setting a sort that does
    /// not start with it puts it in front again, so each section's models are contiguous.
    public var sortBy: [SortDescriptor<Element>] {
        get { fetchDescriptor.sortBy }
        set {
            fetchDescriptor.sortBy = sectioning?.sorted(newValue) ?? newValue
            invalidate()
        }
    }

    /// The key path the results are grouped by, or `nil` without sectioning.
    public var sectionBy: PartialKeyPath<Element>? { sectioning?.keyPath }

    /// The results grouped by ``sectionBy``, in the order each title first appears in the
    /// sorted results; `nil` when the observer was made without `sectionBy`
    /// (`SectionTitle == Never`).
    public var sections: SectionedResults<Element, SectionTitle>? {
        guard let sectioning else { return nil }
        let models = results
        if let cached = currentSections { return cached }
        let grouped = SectionedResults(models: models, title: sectioning.title)
        currentSections = grouped
        return grouped
    }

    /// The current results, refetched first when a relevant save made them stale.
    ///
    /// A refetch that fails keeps the previous results and logs the error, which
    /// ``fetchError`` also holds.
    public var results: FetchResultsCollection<Element> {
        registrar.access(self, keyPath: \.results)
        if state.withLock({ $0.isStale }) { refetch() }
        return current
    }

    /// The error of the last refetch, or `nil` when it succeeded.
    public private(set) var fetchError: (any Error)?

    /// Result arrays as an `AsyncSequence`: the current results first, then the results
    /// after each relevant save. Iterate it on the context's thread or actor.
    public var updates: ResultsObserverUpdates<Element, SectionTitle> { ResultsObserverUpdates(observer: self) }

    private let registrar = ObservationRegistrar()
    private let entityName: String
    private var current: FetchResultsCollection<Element> {
        didSet { currentSections = nil }
    }
    private var currentSections: SectionedResults<Element, SectionTitle>?
    private let sectioning: Sectioning?
    private let state = Locked(State())
    private var token: (any NSObjectProtocol)?
    private var externalToken: (any NSObjectProtocol)?

    private struct State {
        var isStale = false
        var generation = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// How results are grouped: the key path, a title for each model, and the sort that
    /// keeps each section's models together.
    struct Sectioning {
        let keyPath: PartialKeyPath<Element>
        let title: (Element) -> SectionTitle
        /// The section sort, as a one-element list: a `SortDescriptor` stored directly in a
        /// struct makes a release build's value witnesses refer to a metadata accessor that
        /// swift-corelibs-foundation does not export, and linking fails; an array does not.
        let sort: [SortDescriptor<Element>]

        /// `sortBy` with the section sort in front.
        func sorted(_ sortBy: [SortDescriptor<Element>]) -> [SortDescriptor<Element>] {
            sortBy.prefix(1).elementsEqual(sort) ? sortBy : sort + sortBy
        }
    }

    private init(fetchDescriptor: FetchDescriptor<Element>, sectioning: Sectioning?, modelContext: ModelContext) throws {
        var fetchDescriptor = fetchDescriptor
        if let sectioning { fetchDescriptor.sortBy = sectioning.sorted(fetchDescriptor.sortBy) }
        self.modelContext = modelContext
        self.fetchDescriptor = fetchDescriptor
        self.sectioning = sectioning
        entityName = ModelLayout.of(Element.self).identifierEntityName
        current = FetchResultsCollection(models: try modelContext.fetch(fetchDescriptor))
        let core = modelContext.core
        let entityName = entityName
        let weak = WeakObserver(self)
        token = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { note in
            guard let saver = note.object as? ModelContext, saver.core === core,
                saveTouches(note.userInfo, entityName: entityName)
            else { return }
            // Posted on the saving context's thread: only mark and tell (both thread-safe);
            // the refetch happens when the results are read.
            weak.target?.invalidate()
        }
        externalToken = NotificationCenter.default.addObserver(forName: ContainerCore.changedElsewhere, object: core, queue: nil) { note in
            guard let names = note.userInfo?[ContainerCore.entityNamesKey] as? Set<String>, names.contains(entityName) else { return }
            weak.target?.invalidate()
        }
    }

    deinit {
        for token in [token, externalToken].compactMap({ $0 }) { NotificationCenter.default.removeObserver(token) }
        Self.wake(state)
    }

    private static func wake(_ state: Locked<State>) {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Marks the results stale and tells their observers and waiting iterators; safe from any thread.
    func invalidate() {
        registrar.withMutation(of: self, keyPath: \.results) {
            state.withLock { $0.isStale = true }
        }
        Self.wake(state)
    }

    private func refetch() {
        state.withLock { $0.isStale = false }
        do {
            current = FetchResultsCollection(models: try modelContext.fetch(fetchDescriptor))
            fetchError = nil
        } catch {
            fetchError = error
            StrataLog.logger.error("ResultsObserver<\(entityName)> could not refetch; it keeps the previous results: \(error)")
        }
    }

    /// Waits until the results change after `generation`; returns the new generation.
    func change(after generation: Int, isolation: isolated (any Actor)? = #isolation) async -> Int {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard state.generation == generation else { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        return state.withLock { $0.generation }
    }

    var generation: Int { state.withLock { $0.generation } }
}

/// The results of a ``ResultsObserver`` as an `AsyncSequence` of arrays: the current
/// results first, then the results after each relevant save.
public struct ResultsObserverUpdates<Model: PersistentModel, SectionTitle: Hashable>: AsyncSequence {
    public typealias Element = [Model]
    public typealias Failure = Never
    let observer: ResultsObserver<Model, SectionTitle>

    public func makeAsyncIterator() -> Iterator {
        Iterator(observer: observer, seen: nil)
    }

    /// Yields the current results, then waits for each relevant save.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Failure = Never
        let observer: ResultsObserver<Model, SectionTitle>
        var seen: Int?

        /// The next results: at once the first time, then after the next relevant save.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> [Model]? {
            if let seen {
                self.seen = await observer.change(after: seen)
            } else {
                seen = observer.generation
            }
            return Array(observer.results)
        }

        public mutating func next() async -> [Model]? {
            await next(isolation: nil)
        }
    }
}

extension ResultsObserver where SectionTitle == Never {
    /// Observes the results of `fetchDescriptor` in `modelContext`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectioning: nil, modelContext: modelContext)
    }

    /// Observes the models that match `filterBy`, sorted by `sortBy`, in `modelContext`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectioning: nil, modelContext: modelContext)
    }

    /// Observes the results of `fetchDescriptor` in a new context of `modelContainer`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectioning: nil, modelContext: ModelContext(modelContainer))
    }

    /// Observes the models that match `filterBy`, sorted by `sortBy`, in a new context of `modelContainer`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectioning: nil, modelContext: ModelContext(modelContainer))
    }
}

extension ResultsObserver where SectionTitle == String {
    /// Observes the results of `fetchDescriptor` in `modelContext`, grouped by `sectionBy`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectioning: Self.sectioning(sectionBy), modelContext: modelContext)
    }

    /// Observes the results of `fetchDescriptor` in `modelContext`, grouped by the optional
    /// `sectionBy`; models whose title is `nil` share the section titled `""`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectioning: Self.sectioning(sectionBy), modelContext: modelContext)
    }

    /// Observes the models that match `filterBy`, sorted by `sortBy` within each section of
    /// `sectionBy`, in `modelContext`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectioning: Self.sectioning(sectionBy),
            modelContext: modelContext)
    }

    /// Observes the models that match `filterBy`, sorted by `sortBy` within each section of
    /// the optional `sectionBy`, in `modelContext`; a `nil` title is the section `""`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectioning: Self.sectioning(sectionBy),
            modelContext: modelContext)
    }

    /// Observes the results of `fetchDescriptor` in a new context of `modelContainer`,
    /// grouped by `sectionBy`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectioning: Self.sectioning(sectionBy), modelContext: ModelContext(modelContainer))
    }

    /// Observes the results of `fetchDescriptor` in a new context of `modelContainer`,
    /// grouped by the optional `sectionBy`; a `nil` title is the section `""`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, sectioning: Self.sectioning(sectionBy), modelContext: ModelContext(modelContainer))
    }

    /// Observes the models that match `filterBy`, sorted by `sortBy` within each section of
    /// `sectionBy`, in a new context of `modelContainer`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectioning: Self.sectioning(sectionBy),
            modelContext: ModelContext(modelContainer))
    }

    /// Observes the models that match `filterBy`, sorted by `sortBy` within each section of
    /// the optional `sectionBy`, in a new context of `modelContainer`; a `nil` title is the
    /// section `""`.
    ///
    /// - Throws: The error of the first fetch.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectioning: Self.sectioning(sectionBy),
            modelContext: ModelContext(modelContainer))
    }

    private static func sectioning(_ keyPath: KeyPath<Element, String>) -> Sectioning {
        Sectioning(keyPath: keyPath, title: { $0[keyPath: keyPath] }, sort: [SortDescriptor(assumeSendable(keyPath))])
    }

    private static func sectioning(_ keyPath: KeyPath<Element, String?>) -> Sectioning {
        Sectioning(keyPath: keyPath, title: { $0[keyPath: keyPath] ?? "" }, sort: [SortDescriptor(assumeSendable(keyPath))])
    }
}

/// `keyPath` as the Sendable key path `SortDescriptor` asks for. Key paths are immutable;
/// SwiftData's `sectionBy:` parameters are plain `KeyPath`s.
private func assumeSendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> KeyPath<Root, Value> & Sendable {
    unsafeBitCast(keyPath, to: (KeyPath<Root, Value> & Sendable).self)
}

extension FetchResultsCollection {
    /// A collection over models already fetched.
    init(models: [Element]) where Element: PersistentModel {
        self.init(loader: BatchLoader(identifiers: models.map(\.persistentModelID), batchSize: Swift.max(models.count, 1)) { _, _ in models })
    }
}

/// Whether a save's user info names a model of `entityName`, or invalidates everything.
private func saveTouches(_ userInfo: [AnyHashable: Any]?, entityName: String) -> Bool {
    guard let userInfo else { return false }
    if userInfo[ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue] != nil { return true }
    for key in [ModelContext.NotificationKey.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers] {
        guard let ids = userInfo[key.rawValue] as? [PersistentIdentifier] else { continue }
        if ids.contains(where: { $0.entityName == entityName }) { return true }
    }
    return false
}

/// What a save notification, on any thread, may do to a ``ResultsObserver``.
protocol StaleMarking: AnyObject {
    /// Marks the results stale and tells observers; thread-safe.
    func invalidate()
}

/// Reaches an observer from a notification on another thread, for its thread-safe part only.
private struct WeakObserver: @unchecked Sendable {
    weak var target: (any StaleMarking)?
    init(_ target: any StaleMarking) { self.target = target }
}
