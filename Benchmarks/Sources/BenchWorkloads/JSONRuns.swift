import Foundation
import Strata
import StrataJSON

/// JSONStore: `save()` of N inserted trips (the inserts are untimed), then reopening the
/// file in a new container and fetching every trip in a new context, reading `budget`.
final class StrataJSONSave: WorkloadRun {
    let url: URL
    let history: HistoryRetention
    let context: ModelContext

    /// Opens a JSON store at `url` and inserts `rows` without saving.
    ///
    /// - Throws: A Strata error.
    init(url: URL, rows: [TripRow], history: HistoryRetention) throws {
        self.url = url
        self.history = history
        context = ModelContext(try Self.container(url, history: history))
        for row in rows { context.insert(BenchTrip(row)) }
    }

    func run() throws -> Int {
        try context.save()
        let reopened = try Self.container(url, history: history)
        let trips = try ModelContext(reopened).fetch(FetchDescriptor<BenchTrip>())
        var touched = 0
        for trip in trips where trip.budget > 0 { touched += 1 }
        return touched
    }

    /// A container for `BenchTrip` in the JSON document at `url`.
    static func container(_ url: URL, history: HistoryRetention) throws -> ModelContainer {
        var configuration = JSONStoreConfiguration(schema: Schema([BenchTrip.self]), url: url)
        configuration.historyRetention = history
        return try ModelContainer(for: BenchTrip.self, configurations: configuration)
    }
}

/// The floor of the JSON workload: Foundation's `JSONEncoder` writes N Codable structs to a
/// file (pretty-printed, as JSONStore writes), and `JSONDecoder` reads them back.
final class CodableJSON: WorkloadRun {
    let url: URL
    let trips: [CodableTrip]

    init(url: URL, trips: [CodableTrip]) {
        self.url = url
        self.trips = trips
    }

    func run() throws -> Int {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        try encoder.encode(trips).write(to: url)
        let decoded = try JSONDecoder().decode([CodableTrip].self, from: Data(contentsOf: url))
        var touched = 0
        for trip in decoded where trip.budget > 0 { touched += 1 }
        return touched
    }
}

/// A trip as an app's Codable struct, with `Date`s, for the JSON floor.
struct CodableTrip: Codable {
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var budget: Double
    var isFavorite: Bool

    /// A struct holding `row`'s values.
    init(_ row: TripRow) {
        name = row.name
        destination = row.destination
        startDate = Date(timeIntervalSinceReferenceDate: row.startDate)
        endDate = Date(timeIntervalSinceReferenceDate: row.endDate)
        budget = row.budget
        isFavorite = row.isFavorite
    }
}
