import Foundation
import Strata

/// The trip as a Strata model, indexed on `name` like the raw and GRDB tables.
@Model
final class BenchTrip {
    #Index<BenchTrip>([\.name])

    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var budget: Double
    var isFavorite: Bool

    init(name: String, destination: String, startDate: Date, endDate: Date, budget: Double, isFavorite: Bool) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
        self.endDate = endDate
        self.budget = budget
        self.isFavorite = isFavorite
    }

    convenience init(_ row: TripRow) {
        self.init(
            name: row.name, destination: row.destination,
            startDate: Date(timeIntervalSinceReferenceDate: row.startDate),
            endDate: Date(timeIntervalSinceReferenceDate: row.endDate),
            budget: row.budget, isFavorite: row.isFavorite)
    }
}
