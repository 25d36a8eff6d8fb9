import Foundation
import GRDB
import Strata

/// A graph trip as a plain Swift object, holding its items.
final class RawGraphTrip {
    let id: Int64
    var name: String
    var destination: String
    var items: [RawGraphItem] = []

    init(id: Int64, name: String, destination: String) {
        self.id = id
        self.name = name
        self.destination = destination
    }
}

/// A graph item as a plain Swift object, pointing back at its trip.
final class RawGraphItem {
    let id: Int64
    var title: String
    var position: Int
    unowned let trip: RawGraphTrip

    init(id: Int64, title: String, position: Int, trip: RawGraphTrip) {
        self.id = id
        self.title = title
        self.position = position
        self.trip = trip
    }
}

/// Two queries by hand, trips by id then items by trip id, linked into objects by walking
/// both in order; reads `title` of every item through its trip.
final class RawGraph: WorkloadRun {
    let database: RawDatabase

    init(database: RawDatabase) { self.database = database }

    func run() throws -> Int {
        let trips = try Self.load(database)
        var touched = 0
        for trip in trips {
            for item in trip.items where !item.title.isEmpty { touched += 1 }
        }
        return touched
    }

    /// Every trip with its items attached.
    static func load(_ database: RawDatabase) throws -> [RawGraphTrip] {
        let selectTrips = try database.prepare("SELECT id, name, destination FROM graph_trip ORDER BY id")
        var trips: [RawGraphTrip] = []
        while try selectTrips.step() {
            trips.append(RawGraphTrip(id: selectTrips.int64(0), name: selectTrips.text(1), destination: selectTrips.text(2)))
        }
        let selectItems = try database.prepare("SELECT id, title, position, tripId FROM graph_item ORDER BY tripId, position")
        var index = 0
        while try selectItems.step() {
            let tripId = selectItems.int64(3)
            while index < trips.count, trips[index].id < tripId { index += 1 }
            guard index < trips.count, trips[index].id == tripId else { continue }  // an orphan: the schema forbids it
            let trip = trips[index]
            trip.items.append(RawGraphItem(id: selectItems.int64(0), title: selectItems.text(1), position: Int(selectItems.int64(2)), trip: trip))
        }
        return trips
    }
}

/// `fetch` of every `BenchGraphTrip` with `relationshipKeyPathsForPrefetching = [\.items]` in a
/// new context; reads `title` of every item through its trip.
final class StrataGraph: WorkloadRun {
    let container: ModelContainer

    init(container: ModelContainer) { self.container = container }

    func run() throws -> Int {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<BenchGraphTrip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.items]
        let trips = try context.fetch(descriptor)
        var touched = 0
        for trip in trips {
            for item in trip.items where !item.title.isEmpty { touched += 1 }
        }
        return touched
    }
}

/// `GRDBGraphTrip.including(all: GRDBGraphTrip.items)` decoded into `GRDBGraphTripInfo`.
final class GRDBGraph: WorkloadRun {
    let queue: DatabaseQueue

    init(queue: DatabaseQueue) { self.queue = queue }

    func run() throws -> Int {
        let infos = try queue.read { db in
            try GRDBGraphTrip.including(all: GRDBGraphTrip.items).asRequest(of: GRDBGraphTripInfo.self).fetchAll(db)
        }
        var touched = 0
        for info in infos {
            for item in info.items where !item.title.isEmpty { touched += 1 }
        }
        return touched
    }
}

/// The graph trip as a GRDB record, with its items as a has-many association.
struct GRDBGraphTrip: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "graph_trip"
    /// The trip's items, through `graph_item.tripId`.
    static let items = hasMany(GRDBGraphItem.self, key: "items", using: ForeignKey(["tripId"]))

    var id: Int64
    var name: String
    var destination: String
}

/// The graph item as a GRDB record.
struct GRDBGraphItem: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "graph_item"

    var id: Int64
    var title: String
    var position: Int
    var tripId: Int64
}

/// A trip and its items, as GRDB's association guide decodes them.
struct GRDBGraphTripInfo: Decodable, FetchableRecord {
    var trip: GRDBGraphTrip
    var items: [GRDBGraphItem]
}
