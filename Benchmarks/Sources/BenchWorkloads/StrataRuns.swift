import Foundation
import Strata

/// Strata's SQLite store through `ModelContainer` and `ModelContext`, as an app writes it.
///
/// Opening the container (schema check, connection, PRAGMAs) is untimed, like opening the
/// raw connection and GRDB's queue; contexts are made inside the timed part.
enum StrataRuns {
    static func make(_ workload: Workload, fixtures: Fixtures, history: HistoryRetention) throws -> any WorkloadRun {
        func container(_ url: URL) throws -> ModelContainer { try StrataRuns.container(url, history: history) }
        switch workload {
        case .insert:
            return StrataInsert(container: try container(fixtures.runFile("strata-insert.store")), rows: TripValues.rows(fixtures.count))
        case .fetch:
            return StrataFetch(container: try container(fixtures.freshCopy(for: .strata)))
        case .filter:
            return StrataFilter(container: try container(fixtures.freshCopy(for: .strata)))
        case .lookup:
            return StrataLookup(container: try container(fixtures.freshCopy(for: .strata)), keys: TripValues.lookupKeys(count: fixtures.count))
        case .update:
            let container = try container(fixtures.freshCopy(for: .strata))
            let context = ModelContext(container)
            return StrataUpdate(context: context, trips: try context.fetch(FetchDescriptor<BenchTrip>()))
        }
    }

    /// A container for `BenchTrip` in a SQLite file at `url`.
    static func container(_ url: URL, history: HistoryRetention = .unlimited) throws -> ModelContainer {
        var configuration = ModelConfiguration(url: url)
        configuration.historyRetention = history
        return try ModelContainer(for: BenchTrip.self, configurations: configuration)
    }
}

/// `context.insert` of N new models, then `context.save()`.
final class StrataInsert: WorkloadRun {
    let container: ModelContainer
    let rows: [TripRow]

    init(container: ModelContainer, rows: [TripRow]) {
        self.container = container
        self.rows = rows
    }

    func run() throws -> Int {
        try Self.insert(rows, into: container)
    }

    @discardableResult
    static func insert(_ rows: [TripRow], into container: ModelContainer) throws -> Int {
        let context = ModelContext(container)
        for row in rows { context.insert(BenchTrip(row)) }
        try context.save()
        return rows.count
    }

    /// Writes a seed file.
    static func write(_ rows: [TripRow], to url: URL) throws {
        try insert(rows, into: StrataRuns.container(url))
    }
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
