import Foundation
import GRDB

/// The idiomatic GRDB record: Codable, dates as REAL seconds since 2001 like the other backends.
struct GRDBTrip: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "trip"

    var id: Int64?
    var name: String
    var destination: String
    var startDate: Date
    var endDate: Date
    var budget: Double
    var isFavorite: Bool

    enum Columns {
        static let name = Column(CodingKeys.name)
        static let startDate = Column(CodingKeys.startDate)
    }

    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSinceReferenceDate
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSinceReferenceDate
    }

    /// A new record (no id yet) from the shared data.
    init(_ row: TripRow) {
        id = nil
        name = row.name
        destination = row.destination
        startDate = Date(timeIntervalSinceReferenceDate: row.startDate)
        endDate = Date(timeIntervalSinceReferenceDate: row.endDate)
        budget = row.budget
        isFavorite = row.isFavorite
    }
}
