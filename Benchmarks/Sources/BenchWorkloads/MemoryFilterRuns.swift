import Foundation
import Strata
import StrataMemory

/// The filter workload against N trips in a `MemoryStoreConfiguration` store: the same
/// timed part as ``StrataFilter``, over a container filled and saved untimed.
enum StrataMemoryFilter {
    /// Opens a memory store with `history`, saves `rows` into it, and returns the filter run over it.
    ///
    /// - Throws: A Strata error.
    static func make(rows: [TripRow], history: HistoryRetention) throws -> StrataFilter {
        var configuration = MemoryStoreConfiguration(name: "memfilter")
        configuration.historyRetention = history
        let container = try ModelContainer(for: BenchTrip.self, configurations: configuration)
        let context = ModelContext(container)
        for row in rows { context.insert(BenchTrip(row)) }
        try context.save()
        return StrataFilter(container: container)
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
