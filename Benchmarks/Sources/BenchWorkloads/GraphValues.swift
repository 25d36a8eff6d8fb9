import Foundation

/// One trip of the graph workload with its items, as plain values.
struct GraphTripRow: Sendable {
    /// The primary key, `i + 1`.
    var id: Int64
    var name: String
    var destination: String
    /// The trip's items, in `position` order.
    var items: [GraphItemRow]
}

/// One item (a child of a graph trip) as plain values.
struct GraphItemRow: Sendable {
    /// The primary key: `i * itemsPerTrip + position + 1` for item `position` of trip `i`.
    var id: Int64
    var title: String
    var position: Int
}

/// The graph workload's data: N/10 trips (10,000 at the default N = 100,000), each with three
/// items, every value a function of the trip's number like ``TripValues``.
public enum GraphValues {
    /// Items per trip.
    public static let itemsPerTrip = 3

    /// The trips of the graph workload for a report at `count` trips: a tenth, at least one.
    public static func tripCount(_ count: Int) -> Int { max(count / 10, 1) }

    /// Trip `i` (0-based) with its items.
    static func trip(_ i: Int) -> GraphTripRow {
        let row = TripValues.row(i)
        let items = (0..<itemsPerTrip).map { position in
            let number = i * itemsPerTrip + position
            return GraphItemRow(
                id: Int64(number + 1),
                title: TripValues.letters(TripValues.mix(UInt64(number) ^ 0x5DEE_CE66_D1CE_4E5B), count: 10),
                position: position)
        }
        return GraphTripRow(id: row.id, name: row.name, destination: row.destination, items: items)
    }

    /// Trips `0..<count` with their items.
    static func trips(_ count: Int) -> [GraphTripRow] {
        (0..<count).map(trip)
    }
}
