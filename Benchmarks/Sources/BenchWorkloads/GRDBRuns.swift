import Foundation
import GRDB

/// GRDB 7's record API, as its documentation writes it.
enum GRDBRuns {
    /// Prepares GRDB's version of `workload` (it has none of `memfilter` and `json`).
    static func make(_ workload: Workload, fixtures: Fixtures) throws -> any WorkloadRun {
        switch workload {
        case .insert:
            let queue = try open(fixtures.runFile("grdb-insert.sqlite"))
            try queue.write { db in try db.execute(sql: RawDatabase.schema) }
            return GRDBInsert(queue: queue, trips: TripValues.rows(fixtures.count).map(GRDBTrip.init))
        case .fetch:
            return GRDBFetch(queue: try open(fixtures.freshCopy(for: .grdb)))
        case .filter:
            return GRDBFilter(queue: try open(fixtures.freshCopy(for: .grdb)))
        case .lookup:
            return GRDBLookup(queue: try open(fixtures.freshCopy(for: .grdb)), keys: TripValues.lookupKeys(count: fixtures.count))
        case .update:
            let queue = try open(fixtures.freshCopy(for: .grdb))
            return GRDBUpdate(queue: queue, trips: try queue.read { db in try GRDBTrip.fetchAll(db) })
        case .delete:
            return GRDBDelete(queue: try open(fixtures.freshCopy(for: .grdb)))
        case .graph:
            return GRDBGraph(queue: try open(fixtures.freshGraphCopy(for: .grdb)))
        case .enumerate:
            return GRDBEnumerate(queue: try open(fixtures.freshCopy(for: .grdb)))
        case .memfilter, .json, .pginsert, .pgfetch:
            throw WorkloadNotApplicable(backend: .grdb, workload: workload)
        }
    }

    /// A `DatabaseQueue` in WAL mode (which also sets `synchronous=NORMAL`); GRDB turns foreign keys on itself.
    static func open(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }
}

/// `dbQueue.write { for t in trips { try t.insert(db) } }`.
final class GRDBInsert: WorkloadRun {
    let queue: DatabaseQueue
    let trips: [GRDBTrip]

    init(queue: DatabaseQueue, trips: [GRDBTrip]) {
        self.queue = queue
        self.trips = trips
    }

    func run() throws -> Int {
        try queue.write { db in
            for trip in trips { try trip.insert(db) }
        }
        return trips.count
    }
}

/// `GRDBTrip.fetchAll(db)` (Codable decoding).
final class GRDBFetch: WorkloadRun {
    let queue: DatabaseQueue

    init(queue: DatabaseQueue) { self.queue = queue }

    func run() throws -> Int {
        let trips = try queue.read { db in try GRDBTrip.fetchAll(db) }
        var touched = 0
        for trip in trips where trip.budget > 0 { touched += 1 }
        return touched
    }
}

/// `filter(literal: "instr(name, 'ab') > 0").filter(startDate > x).fetchAll`, ten times in one `read`.
final class GRDBFilter: WorkloadRun {
    let queue: DatabaseQueue

    init(queue: DatabaseQueue) { self.queue = queue }

    func run() throws -> Int {
        // Query expressions encode a `Date` as text; the column holds the record strategy's REAL.
        let cutoff = TripValues.filterCutoff
        return try queue.read { db in
            var matched = 0
            for _ in 0..<FilterQuery.repetitions {
                let trips = try GRDBTrip
                    .filter(literal: "instr(\(GRDBTrip.Columns.name), \(TripValues.filterNeedle)) > 0")
                    .filter(GRDBTrip.Columns.startDate > cutoff)
                    .fetchAll(db)
                matched += trips.count
            }
            return matched
        }
    }
}

/// 1,000 × `filter(Column("name") == key).fetchOne(db)` in one `read`.
final class GRDBLookup: WorkloadRun {
    let queue: DatabaseQueue
    let keys: [String]

    init(queue: DatabaseQueue, keys: [String]) {
        self.queue = queue
        self.keys = keys
    }

    func run() throws -> Int {
        try queue.read { db in
            var found = 0
            for key in keys {
                if let trip = try GRDBTrip.filter(Column("name") == key).fetchOne(db), trip.name == key { found += 1 }
            }
            return found
        }
    }
}

/// `updateChanges(db) { $0.budget += 1 }` per record in one `write` (records loaded untimed).
final class GRDBUpdate: WorkloadRun {
    let queue: DatabaseQueue
    var trips: [GRDBTrip]

    init(queue: DatabaseQueue, trips: [GRDBTrip]) {
        self.queue = queue
        self.trips = trips
    }

    func run() throws -> Int {
        try queue.write { db in
            for index in trips.indices {
                try trips[index].updateChanges(db) { $0.budget += 1 }
            }
        }
        return trips.count
    }
}

/// `GRDBTrip.deleteAll(db)` in one `write`; the checksum is the count GRDB returns.
final class GRDBDelete: WorkloadRun {
    let queue: DatabaseQueue

    init(queue: DatabaseQueue) { self.queue = queue }

    func run() throws -> Int {
        try queue.write { db in try GRDBTrip.deleteAll(db) }
    }

    /// Checks that the table is empty.
    func verify() throws {
        let left = try queue.read { db in try GRDBTrip.fetchCount(db) }
        if left != 0 { throw WorkloadCheckFailed(description: "grdb delete left \(left) rows") }
    }
}

/// `GRDBTrip.fetchCursor(db)` stepped to the end in one `read`, reading `budget` of each record.
final class GRDBEnumerate: WorkloadRun {
    let queue: DatabaseQueue

    init(queue: DatabaseQueue) { self.queue = queue }

    func run() throws -> Int {
        try queue.read { db in
            let trips = try GRDBTrip.fetchCursor(db)
            var touched = 0
            while let trip = try trips.next() {
                if trip.budget > 0 { touched += 1 }
            }
            return touched
        }
    }
}
