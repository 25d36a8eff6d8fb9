import Foundation

/// One trip as a plain Swift object: the floor for workloads that end in live objects
/// (raw fetch, the in-memory filter), since Strata's models are class instances too.
final class TripObject {
    let id: Int64
    var name: String
    var destination: String
    var startDate: Double
    var endDate: Double
    var budget: Double
    var isFavorite: Bool

    /// An object holding `row`'s values.
    init(_ row: TripRow) {
        id = row.id
        name = row.name
        destination = row.destination
        startDate = row.startDate
        endDate = row.endDate
        budget = row.budget
        isFavorite = row.isFavorite
    }
}
