import Foundation
import Observation
import Strata

/// The model floor: raw's SQLite C code, with every row held in objects of the shape each
/// SwiftData `@Model` has, whatever framework implements it.
///
/// Such an object is observable, so it holds an `ObservationRegistrar`, and a property read
/// goes through the registrar's `access`, as `@Model`'s expansion does. Its values sit
/// behind its backing data, another object, which holds them in one array of
/// ``PersistentValue`` (a property's value is of the property's own type only once it is
/// read: `getValue(forKey:)` is generic). A context keeps one object per stored row (identity),
/// here in an array by key, the cheapest form of an identity map. Nothing else: no change
/// tracking, no context, no history, no notification, relationships wired by hand as raw's.
///
/// It answers how close to raw a SwiftData-shaped API can get at all, so that Strata's
/// ratios can be read against it; the goals stay ratios to raw.
enum ModelFloorRuns {
    /// Prepares the floor's version of `workload`: insert, fetch and graph.
    static func make(_ workload: Workload, fixtures: Fixtures) throws -> any WorkloadRun {
        switch workload {
        case .insert:
            let database = try RawDatabase.withEmptyTripTable(at: fixtures.runFile("floor-insert.sqlite"))
            return FloorInsert(database: database, rows: TripValues.rows(fixtures.count))
        case .fetch:
            return FloorFetch(database: try RawDatabase(path: fixtures.freshCopy(for: .modelFloor).path))
        case .graph:
            return FloorGraph(database: try RawDatabase(path: fixtures.freshGraphCopy(for: .modelFloor).path))
        default:
            throw WorkloadNotApplicable(backend: .modelFloor, workload: workload)
        }
    }
}

/// The backing data of a floor object: its values, one per property.
final class FloorBacking {
    var values: [PersistentValue]

    init(values: [PersistentValue]) { self.values = values }
}

/// A trip shaped as a `@Model`: a registrar, and its values behind its backing data.
final class FloorTrip: Observable {
    private let registrar = ObservationRegistrar()
    let backing: FloorBacking

    init(backing: FloorBacking) { self.backing = backing }

    /// A trip made by the app, from `row`'s values.
    convenience init(_ row: TripRow) {
        self.init(backing: FloorBacking(values: FloorTrip.values(of: row)))
    }

    /// The values of `row` in the order of the `trip` table's columns after `id`.
    static func values(of row: TripRow) -> [PersistentValue] {
        [
            .string(row.name), .string(row.destination),
            .date(Date(timeIntervalSinceReferenceDate: row.startDate)), .date(Date(timeIntervalSinceReferenceDate: row.endDate)),
            .double(row.budget), .bool(row.isFavorite),
        ]
    }

    var budget: Double {
        registrar.access(self, keyPath: \.budget)
        guard case .double(let budget) = backing.values[4] else { return 0 }
        return budget
    }
}

/// An identity map at its cheapest: the object of each key, by key.
struct FloorIdentities<Object: AnyObject> {
    private var objects: [Object?] = []

    /// Registers `object` as `key` (1 or more); keys mostly come in order, each appended.
    mutating func register(_ object: Object, as key: Int64) {
        let index = Int(key - 1)
        if index == objects.count {
            objects.append(object)
            return
        }
        if index > objects.count { objects.append(contentsOf: repeatElement(nil, count: index + 1 - objects.count)) }
        objects[index] = object
    }
}

/// Fetch all N trips into floor objects, registered by key; reads `budget` of each.
final class FloorFetch: WorkloadRun {
    let database: RawDatabase

    init(database: RawDatabase) { self.database = database }

    func run() throws -> Int {
        let select = try database.prepare("SELECT id, name, destination, startDate, endDate, budget, isFavorite FROM trip")
        var identities = FloorIdentities<FloorTrip>()
        var trips: [FloorTrip] = []
        while try select.step() {
            let row = select.tripRow()
            let trip = FloorTrip(row)
            identities.register(trip, as: row.id)
            trips.append(trip)
        }
        var touched = 0
        for trip in trips where trip.budget > 0 { touched += 1 }
        return touched
    }
}

/// Insert N trips the app made as floor objects: registered under temporary keys, written
/// from their backing data with raw's statement in one transaction, then registered under
/// the keys SQLite gave them; they live until the run ends, as a context's models do.
final class FloorInsert: WorkloadRun {
    let database: RawDatabase
    let rows: [TripRow]

    init(database: RawDatabase, rows: [TripRow]) {
        self.database = database
        self.rows = rows
    }

    func run() throws -> Int {
        var inserted = FloorIdentities<FloorTrip>()
        var trips: [FloorTrip] = []
        trips.reserveCapacity(rows.count)
        for row in rows {
            let trip = FloorTrip(row)
            trips.append(trip)
            inserted.register(trip, as: Int64(trips.count))
        }
        let insert = try database.prepareTripInsert()
        var saved = FloorIdentities<FloorTrip>()
        try database.execute("BEGIN IMMEDIATE")
        for trip in trips {
            guard case .string(let name) = trip.backing.values[0], case .string(let destination) = trip.backing.values[1],
                case .date(let start) = trip.backing.values[2], case .date(let end) = trip.backing.values[3],
                case .double(let budget) = trip.backing.values[4], case .bool(let isFavorite) = trip.backing.values[5]
            else { throw WorkloadCheckFailed(description: "floor insert: a trip's values are not a trip's") }
            try insert.insertTrip(
                name: name, destination: destination, startDate: start.timeIntervalSinceReferenceDate,
                endDate: end.timeIntervalSinceReferenceDate, budget: budget, isFavorite: isFavorite)
            saved.register(trip, as: database.lastInsertRowID)
        }
        try database.execute("COMMIT")
        return trips.count
    }

    func verify() throws {
        let stored = try database.count("trip")
        if stored != rows.count { throw WorkloadCheckFailed(description: "floor insert stored \(stored) of \(rows.count) trips") }
    }
}

/// A graph trip shaped as a `@Model`, with its items beside its values as raw's are.
final class FloorGraphTrip: Observable {
    private let registrar = ObservationRegistrar()
    let backing: FloorBacking
    private var storedItems: [FloorGraphItem] = []

    init(backing: FloorBacking) { self.backing = backing }

    var items: [FloorGraphItem] {
        registrar.access(self, keyPath: \.items)
        return storedItems
    }

    func append(_ item: FloorGraphItem) { storedItems.append(item) }
}

/// A graph item shaped as a `@Model`, pointing back at its trip.
final class FloorGraphItem: Observable {
    private let registrar = ObservationRegistrar()
    let backing: FloorBacking
    unowned let trip: FloorGraphTrip

    init(backing: FloorBacking, trip: FloorGraphTrip) {
        self.backing = backing
        self.trip = trip
    }

    var title: String {
        registrar.access(self, keyPath: \.title)
        guard case .string(let title) = backing.values[0] else { return "" }
        return title
    }
}

/// Raw's two queries into floor objects, registered by key; reads `title` of every item
/// through its trip.
final class FloorGraph: WorkloadRun {
    let database: RawDatabase

    init(database: RawDatabase) { self.database = database }

    func run() throws -> Int {
        var tripIdentities = FloorIdentities<FloorGraphTrip>()
        var itemIdentities = FloorIdentities<FloorGraphItem>()
        let selectTrips = try database.prepare("SELECT id, name, destination FROM graph_trip ORDER BY id")
        var trips: [FloorGraphTrip] = []
        var keys: [Int64] = []
        while try selectTrips.step() {
            let key = selectTrips.int64(0)
            let trip = FloorGraphTrip(backing: FloorBacking(values: [.string(selectTrips.text(1)), .string(selectTrips.text(2))]))
            tripIdentities.register(trip, as: key)
            trips.append(trip)
            keys.append(key)
        }
        let selectItems = try database.prepare("SELECT id, title, position, tripId FROM graph_item ORDER BY tripId, position")
        var index = 0
        while try selectItems.step() {
            let tripKey = selectItems.int64(3)
            while index < trips.count, keys[index] < tripKey { index += 1 }
            guard index < trips.count, keys[index] == tripKey else { continue }  // an orphan: the schema forbids it
            let trip = trips[index]
            let item = FloorGraphItem(
                backing: FloorBacking(values: [.string(selectItems.text(1)), .int(selectItems.int64(2))]), trip: trip)
            itemIdentities.register(item, as: selectItems.int64(0))
            trip.append(item)
        }
        var touched = 0
        for trip in trips {
            for item in trip.items where !item.title.isEmpty { touched += 1 }
        }
        return touched
    }
}
