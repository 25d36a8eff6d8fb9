import Foundation
import Strata
import StrataMemory

/// The filter's predicate, ten times, each in a new context, against N trips in a
/// `MemoryStoreConfiguration` store that was filled and saved untimed.
final class StrataMemoryFilter: WorkloadRun {
    let container: ModelContainer

    /// Opens a memory store with `history` and saves `rows` into it.
    ///
    /// - Throws: A Strata error.
    init(rows: [TripRow], history: HistoryRetention) throws {
        var configuration = MemoryStoreConfiguration(name: "memfilter")
        configuration.historyRetention = history
        container = try ModelContainer(for: BenchTrip.self, configurations: configuration)
        let context = ModelContext(container)
        for row in rows { context.insert(BenchTrip(row)) }
        try context.save()
    }

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

/// The floor of the in-memory filter: `Array.filter` with the same condition over N plain
/// `TripObject`s, ten times.
final class ArrayFilter: WorkloadRun {
    let objects: [TripObject]

    init(objects: [TripObject]) { self.objects = objects }

    func run() throws -> Int {
        let needle = TripValues.filterNeedle
        let cutoff = TripValues.filterCutoff
        var matched = 0
        for _ in 0..<FilterQuery.repetitions {
            matched += objects.filter { $0.name.contains(needle) && $0.startDate > cutoff }.count
        }
        return matched
    }
}
