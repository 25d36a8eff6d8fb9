import Foundation
import Strata

/// Strata's SQLite store through `ModelContainer` and `ModelContext`, as an app writes it.
///
/// Opening the container (schema check, connection, PRAGMAs) is untimed, like opening the
/// raw connection and GRDB's queue; contexts are made inside the timed part.
enum StrataRuns {
    /// Prepares Strata's version of `workload`; with `undo`, its context records undo.
    static func make(_ workload: Workload, fixtures: Fixtures, history: HistoryRetention, undo: Bool = false) throws -> any WorkloadRun {
        func container(_ url: URL) throws -> ModelContainer { try StrataRuns.container(url, history: history) }
        switch workload {
        case .insert:
            return StrataInsert(
                container: try container(fixtures.runFile("strata-insert.store")), rows: TripValues.rows(fixtures.count), undo: undo)
        case .fetch:
            return StrataFetch(container: try container(fixtures.freshCopy(for: .strata)))
        case .filter:
            return StrataFilter(container: try container(fixtures.freshCopy(for: .strata)))
        case .lookup:
            return StrataLookup(container: try container(fixtures.freshCopy(for: .strata)), keys: TripValues.lookupKeys(count: fixtures.count))
        case .update:
            let container = try container(fixtures.freshCopy(for: .strata))
            let context = ModelContext(container)
            if undo { context.undoManager = UndoManager() }
            return StrataUpdate(context: context, trips: try context.fetch(FetchDescriptor<BenchTrip>()))
        case .delete where undo:
            // A delete by predicate records no undo, so the undo backend deletes model by model.
            let container = try container(fixtures.freshCopy(for: .strata))
            let context = ModelContext(container)
            context.undoManager = UndoManager()
            return StrataDeleteEach(context: context, trips: try context.fetch(FetchDescriptor<BenchTrip>()))
        case .delete:
            let container = try container(fixtures.freshCopy(for: .strata))
            return StrataDelete(container: container, count: try ModelContext(container).fetchCount(FetchDescriptor<BenchTrip>()))
        case .enumerate:
            return StrataEnumerate(container: try container(fixtures.freshCopy(for: .strata)))
        case .graph:
            return StrataGraph(container: try GraphSeeds.strataContainer(fixtures.freshGraphCopy(for: .strata), history: history))
        case .memfilter:
            return try StrataMemoryFilter.make(rows: TripValues.rows(fixtures.count), history: history)
        case .json:
            return try StrataJSONSave(url: fixtures.runFile("strata.json"), rows: TripValues.rows(fixtures.count), history: history)
        case .pginsert, .pgfetch:
            return try PostgresRuns.make(history == .disabled ? .strataNoHistory : .strata, workload, fixtures: fixtures)
        }
    }

    /// A container for `BenchTrip` in a SQLite file at `url`.
    static func container(_ url: URL, history: HistoryRetention = .unlimited) throws -> ModelContainer {
        var configuration = ModelConfiguration(url: url)
        configuration.historyRetention = history
        return try ModelContainer(for: BenchTrip.self, configurations: configuration)
    }
}

/// `context.insert` of N new models, then `context.save()`; with `undo`, the context has an `UndoManager`.
final class StrataInsert: WorkloadRun {
    let container: ModelContainer
    let rows: [TripRow]
    let undo: Bool

    init(container: ModelContainer, rows: [TripRow], undo: Bool = false) {
        self.container = container
        self.rows = rows
        self.undo = undo
    }

    func run() throws -> Int {
        try Self.insert(rows[...], into: container, undo: undo)
    }

    @discardableResult
    static func insert(_ rows: ArraySlice<TripRow>, into container: ModelContainer, undo: Bool = false) throws -> Int {
        let context = ModelContext(container)
        if undo { context.undoManager = UndoManager() }
        for row in rows { context.insert(BenchTrip(row)) }
        try context.save()
        return rows.count
    }

    /// Writes a seed file, one context and save per `seedChunk` rows so a seed of a million
    /// trips does not hold a million models (a seed of up to one chunk is one save, as before).
    static func write(_ rows: [TripRow], to url: URL) throws {
        let container = try StrataRuns.container(url)
        for start in stride(from: 0, to: rows.count, by: seedChunk) {
            try insert(rows[start..<min(start + seedChunk, rows.count)], into: container)
        }
    }

    /// How many trips one save of a seed writes.
    static let seedChunk = 100_000
}

/// `fetch(FetchDescriptor<BenchTrip>())` in a fresh context, reading `budget` of each.
final class StrataFetch: WorkloadRun {
    let container: ModelContainer

    init(container: ModelContainer) { self.container = container }

    func run() throws -> Int {
        let context = ModelContext(container)
        let trips = try context.fetch(FetchDescriptor<BenchTrip>())
        var touched = 0
        for trip in trips where trip.budget > 0 { touched += 1 }
        return touched
    }
}

/// `#Predicate { $0.name.contains("ab") && $0.startDate > cutoff }`, ten times, a fresh context each.
final class StrataFilter: WorkloadRun {
    let container: ModelContainer

    init(container: ModelContainer) { self.container = container }

    func run() throws -> Int {
        let needle = TripValues.filterNeedle
        let cutoff = Date(timeIntervalSinceReferenceDate: TripValues.filterCutoff)
        let descriptor = FetchDescriptor<BenchTrip>(predicate: #Predicate { $0.name.contains(needle) && $0.startDate > cutoff })
        var matched = 0
        for _ in 0..<FilterQuery.repetitions {
            let context = ModelContext(container)
            matched += try context.fetch(descriptor).count
        }
        return matched
    }
}

/// 1,000 × `fetch(FetchDescriptor(predicate: #Predicate { $0.name == key }))` in one context.
final class StrataLookup: WorkloadRun {
    let container: ModelContainer
    let keys: [String]

    init(container: ModelContainer, keys: [String]) {
        self.container = container
        self.keys = keys
    }

    func run() throws -> Int {
        let context = ModelContext(container)
        var found = 0
        for key in keys {
            let trips = try context.fetch(FetchDescriptor<BenchTrip>(predicate: #Predicate { $0.name == key }))
            if let trip = trips.first, trip.name == key { found += 1 }
        }
        return found
    }
}

/// Mutate `budget` of every fetched model, then `save()` (the fetch is untimed).
final class StrataUpdate: WorkloadRun {
    let context: ModelContext
    let trips: [BenchTrip]

    init(context: ModelContext, trips: [BenchTrip]) {
        self.context = context
        self.trips = trips
    }

    func run() throws -> Int {
        for trip in trips { trip.budget += 1 }
        try context.save()
        return trips.count
    }
}

/// `context.delete(model: BenchTrip.self)` (a delete by predicate with none), then `save()`.
final class StrataDelete: WorkloadRun {
    let container: ModelContainer
    /// The trips stored before the run, counted untimed.
    let count: Int

    init(container: ModelContainer, count: Int) {
        self.container = container
        self.count = count
    }

    func run() throws -> Int {
        let context = ModelContext(container)
        try context.delete(model: BenchTrip.self)
        try context.save()
        return count
    }

    /// Checks that no trip is left.
    func verify() throws {
        let left = try ModelContext(container).fetchCount(FetchDescriptor<BenchTrip>())
        if left != 0 { throw WorkloadCheckFailed(description: "strata delete left \(left) trips") }
    }
}

/// `context.delete(trip)` for every fetched model, then `save()` (the fetch is untimed): the
/// delete that an undo manager records.
final class StrataDeleteEach: WorkloadRun {
    let context: ModelContext
    let trips: [BenchTrip]

    init(context: ModelContext, trips: [BenchTrip]) {
        self.context = context
        self.trips = trips
    }

    func run() throws -> Int {
        for trip in trips { context.delete(trip) }
        try context.save()
        return trips.count
    }

    /// Checks that no trip is left.
    func verify() throws {
        let left = try ModelContext(context.container).fetchCount(FetchDescriptor<BenchTrip>())
        if left != 0 { throw WorkloadCheckFailed(description: "strata delete left \(left) trips") }
    }
}

/// `context.enumerate(FetchDescriptor<BenchTrip>(), batchSize: 5_000)` over every trip, reading `budget`.
final class StrataEnumerate: WorkloadRun {
    let container: ModelContainer

    init(container: ModelContainer) { self.container = container }

    func run() throws -> Int {
        let context = ModelContext(container)
        var touched = 0
        try context.enumerate(FetchDescriptor<BenchTrip>(), batchSize: EnumerateShape.batchSize) { trip in
            if trip.budget > 0 { touched += 1 }
        }
        return touched
    }
}
