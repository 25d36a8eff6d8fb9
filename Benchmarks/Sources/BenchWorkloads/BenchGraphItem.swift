import Foundation
import Strata

/// The graph workload's child: one item of a trip.
@Model
final class BenchGraphItem {
    var title: String
    var position: Int
    var trip: BenchGraphTrip?

    init(title: String, position: Int) {
        self.title = title
        self.position = position
    }
}
