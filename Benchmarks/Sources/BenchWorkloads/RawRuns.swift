import Foundation

/// The raw SQLite C API baseline, and the plain Swift floors of the in-memory and JSON workloads.
enum RawRuns {
    /// Prepares the raw version of `workload`.
    static func make(_ workload: Workload, fixtures: Fixtures) throws -> any WorkloadRun {
        switch workload {
        case .insert:
            let database = try RawDatabase.withEmptyTripTable(at: fixtures.runFile("raw-insert.sqlite"))
            return RawInsert(database: database, rows: TripValues.rows(fixtures.count))
        case .fetch:
            return RawFetch(database: try RawDatabase(path: fixtures.freshCopy(for: .raw).path))
        case .filter:
            return RawFilter(database: try RawDatabase(path: fixtures.freshCopy(for: .raw).path))
        case .lookup:
            return RawLookup(
                database: try RawDatabase(path: fixtures.freshCopy(for: .raw).path),
                keys: TripValues.lookupKeys(count: fixtures.count))
        case .update:
            let database = try RawDatabase(path: fixtures.freshCopy(for: .raw).path)
            return RawUpdate(database: database, rows: try RawFetch.rows(database))
        case .delete:
            return RawDelete(database: try RawDatabase(path: fixtures.freshCopy(for: .raw).path))
        case .enumerate:
            return RawEnumerate(database: try RawDatabase(path: fixtures.freshCopy(for: .raw).path))
        case .graph:
            return RawGraph(database: try RawDatabase(path: fixtures.freshGraphCopy(for: .raw).path))
        case .memfilter:
            return ArrayFilter(objects: TripValues.rows(fixtures.count).map(TripObject.init))
        case .json:
            return CodableJSON(url: try fixtures.runFile("codable.json"), trips: TripValues.rows(fixtures.count).map(CodableTrip.init))
        case .pginsert, .pgfetch:
            return try PostgresRuns.make(.raw, workload, fixtures: fixtures)
        }
    }
}

/// `BEGIN`, one prepared INSERT reused for every row, `COMMIT`.
final class RawInsert: WorkloadRun {
    let database: RawDatabase
    let rows: [TripRow]

    init(database: RawDatabase, rows: [TripRow]) {
        self.database = database
        self.rows = rows
    }

    func run() throws -> Int {
        try Self.write(rows, into: database)
        return rows.count
    }

    static func write(_ rows: [TripRow], into database: RawDatabase) throws {
        let insert = try database.prepareTripInsert()
        try database.execute("BEGIN IMMEDIATE")
        for row in rows {
            try insert.insertTrip(
                name: row.name, destination: row.destination, startDate: row.startDate, endDate: row.endDate, budget: row.budget,
                isFavorite: row.isFavorite)
        }
        try database.execute("COMMIT")
    }
}

/// `SELECT` every row into `TripObject` class instances: Strata's models are objects too, and
/// the memory per live model is compared with plain objects holding the same values.
final class RawFetch: WorkloadRun {
    let database: RawDatabase

    init(database: RawDatabase) { self.database = database }

    func run() throws -> Int {
        let objects = try Self.objects(database)
        var touched = 0
        for object in objects where object.budget > 0 { touched += 1 }
        return touched
    }

    /// Every row as a `TripObject`.
    static func objects(_ database: RawDatabase) throws -> [TripObject] {
        let select = try database.prepare("SELECT id, name, destination, startDate, endDate, budget, isFavorite FROM trip")
        var objects: [TripObject] = []
        while try select.step() { objects.append(TripObject(select.tripRow())) }
        return objects
    }

    /// Every row as a `TripRow` struct (the rows the update changes).
    static func rows(_ database: RawDatabase) throws -> [TripRow] {
        let select = try database.prepare("SELECT id, name, destination, startDate, endDate, budget, isFavorite FROM trip")
        var rows: [TripRow] = []
        while try select.step() { rows.append(select.tripRow()) }
        return rows
    }
}

/// `instr(name, 'ab') > 0 AND startDate > ?`: the case-sensitive equivalent of Swift's `contains`,
/// which is what Strata compiles `name.contains("ab")` to (SQLite's `LIKE` ignores ASCII case).
final class RawFilter: WorkloadRun {
    let database: RawDatabase

    init(database: RawDatabase) { self.database = database }

    func run() throws -> Int {
        let select = try database.prepare(
            "SELECT id, name, destination, startDate, endDate, budget, isFavorite FROM trip WHERE instr(name, ?) > 0 AND startDate > ?")
        var matched = 0
        for _ in 0..<FilterQuery.repetitions {
            var rows: [TripRow] = []
            try select.withText(1, TripValues.filterNeedle) {
                select.bind(2, TripValues.filterCutoff)
                while try select.step() { rows.append(select.tripRow()) }
                select.reset()
            }
            matched += rows.count
        }
        return matched
    }
}

/// One prepared `WHERE name = ?` statement, 1,000 keys, one read transaction.
final class RawLookup: WorkloadRun {
    let database: RawDatabase
    let keys: [String]

    init(database: RawDatabase, keys: [String]) {
        self.database = database
        self.keys = keys
    }

    func run() throws -> Int {
        let select = try database.prepare(
            "SELECT id, name, destination, startDate, endDate, budget, isFavorite FROM trip WHERE name = ?")
        var found = 0
        try database.execute("BEGIN")
        for key in keys {
            try select.withText(1, key) {
                if try select.step() {
                    let row = select.tripRow()
                    if row.name == key { found += 1 }
                }
                select.reset()
            }
        }
        try database.execute("COMMIT")
        return found
    }
}

/// Per-row `UPDATE trip SET budget = ? WHERE id = ?` in one transaction (rows loaded untimed).
final class RawUpdate: WorkloadRun {
    let database: RawDatabase
    var rows: [TripRow]

    init(database: RawDatabase, rows: [TripRow]) {
        self.database = database
        self.rows = rows
    }

    func run() throws -> Int {
        let update = try database.prepare("UPDATE trip SET budget = ? WHERE id = ?")
        try database.execute("BEGIN IMMEDIATE")
        for index in rows.indices {
            rows[index].budget += 1
            update.bind(1, rows[index].budget)
            update.bind(2, rows[index].id)
            _ = try update.step()
            update.reset()
        }
        try database.execute("COMMIT")
        return rows.count
    }
}

/// `DELETE FROM trip` in one transaction; the checksum is SQLite's count of deleted rows.
final class RawDelete: WorkloadRun {
    let database: RawDatabase

    init(database: RawDatabase) { self.database = database }

    func run() throws -> Int {
        try database.execute("BEGIN IMMEDIATE")
        try database.execute("DELETE FROM trip")
        let deleted = database.changes
        try database.execute("COMMIT")
        return deleted
    }

    /// Checks that the table is empty.
    func verify() throws {
        let left = try database.count("trip")
        if left != 0 { throw WorkloadCheckFailed(description: "raw delete left \(left) rows") }
    }
}

/// Steps one `SELECT` over every row, decoding each into a `TripRow` that is dropped at once.
final class RawEnumerate: WorkloadRun {
    let database: RawDatabase

    init(database: RawDatabase) { self.database = database }

    func run() throws -> Int {
        let select = try database.prepare("SELECT id, name, destination, startDate, endDate, budget, isFavorite FROM trip")
        var touched = 0
        while try select.step() {
            if select.tripRow().budget > 0 { touched += 1 }
        }
        return touched
    }
}
