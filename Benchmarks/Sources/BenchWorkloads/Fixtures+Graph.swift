import Foundation
import Strata

// The graph workload's seeds: N/10 trips with three items each, in the raw schema (which
// GRDB's records map to) and in a Strata store of `BenchGraphTrip` and `BenchGraphItem`.
extension Fixtures {
    /// How many trips the graph seeds hold.
    var graphTripCount: Int { GraphValues.tripCount(count) }

    var rawGraphSeed: URL { directory.appendingPathComponent("graph-raw-\(graphTripCount).sqlite") }
    var strataGraphSeed: URL { directory.appendingPathComponent("graph-strata-\(graphTripCount).store") }

    /// A fresh copy of the graph seed for `backend` (GRDB reads the raw seed).
    func freshGraphCopy(for backend: Backend) throws -> URL {
        try prepareGraphSeed(for: backend)
        return try copy(raw: rawGraphSeed, strata: strataGraphSeed, named: "graph-copy", for: backend)
    }

    /// Builds the graph seed `backend` reads, when it is missing.
    ///
    /// - Throws: A SQLite, Strata or file error.
    public func prepareGraphSeed(for backend: Backend) throws {
        let seed = backend.readsStrataSeed ? strataGraphSeed : rawGraphSeed
        if FileManager.default.fileExists(atPath: seed.path) {
            if Self.rowCount(seed, table: backend.readsStrataSeed ? "BenchGraphTrip" : "graph_trip") == graphTripCount { return }
            Self.remove(seed)
        }
        let building = try runFile("graph-seed-\(backend.rawValue)")
        let trips = GraphValues.trips(graphTripCount)
        if backend.readsStrataSeed {
            try GraphSeeds.writeStrata(trips, to: building)
        } else {
            try GraphSeeds.writeRaw(trips, to: building)
        }
        try Self.checkpoint(building)
        try FileManager.default.moveItem(at: building, to: seed)
        Self.remove(building)
    }
}

/// Writes the graph seeds and opens Strata's.
enum GraphSeeds {
    /// The raw graph schema: items point at their trip, indexed by it.
    static let rawSchema = """
        CREATE TABLE graph_trip (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            destination TEXT NOT NULL
        );
        CREATE TABLE graph_item (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            position INTEGER NOT NULL,
            tripId INTEGER NOT NULL REFERENCES graph_trip(id) ON DELETE CASCADE
        );
        CREATE INDEX graph_item_tripId ON graph_item(tripId);
        """

    /// A container for the graph models in a SQLite file at `url`.
    static func strataContainer(_ url: URL, history: HistoryRetention = .unlimited) throws -> ModelContainer {
        var configuration = ModelConfiguration(url: url)
        configuration.historyRetention = history
        return try ModelContainer(for: BenchGraphTrip.self, BenchGraphItem.self, configurations: configuration)
    }

    /// Inserts `trips` and their items through Strata and saves once.
    static func writeStrata(_ trips: [GraphTripRow], to url: URL) throws {
        let context = ModelContext(try strataContainer(url))
        for row in trips {
            let trip = BenchGraphTrip(name: row.name, destination: row.destination)
            context.insert(trip)
            for itemRow in row.items {
                let item = BenchGraphItem(title: itemRow.title, position: itemRow.position)
                context.insert(item)
                item.trip = trip
            }
        }
        try context.save()
    }

    /// Inserts `trips` and their items with prepared statements in one transaction.
    static func writeRaw(_ trips: [GraphTripRow], to url: URL) throws {
        let database = try RawDatabase(path: url.path)
        try database.execute(rawSchema)
        let insertTrip = try database.prepare("INSERT INTO graph_trip (id, name, destination) VALUES (?, ?, ?)")
        let insertItem = try database.prepare("INSERT INTO graph_item (id, title, position, tripId) VALUES (?, ?, ?, ?)")
        try database.execute("BEGIN IMMEDIATE")
        for trip in trips {
            insertTrip.bind(1, trip.id)
            try insertTrip.withText(2, trip.name) {
                try insertTrip.withText(3, trip.destination) {
                    _ = try insertTrip.step()
                    insertTrip.reset()
                }
            }
            for item in trip.items {
                insertItem.bind(1, item.id)
                insertItem.bind(3, Int64(item.position))
                insertItem.bind(4, trip.id)
                try insertItem.withText(2, item.title) {
                    _ = try insertItem.step()
                    insertItem.reset()
                }
            }
        }
        try database.execute("COMMIT")
    }
}
