import Foundation
import Strata

/// The graph workload's parent: a trip that owns its items. A model of its own, so the
/// trip table of the other workloads keeps its columns and seed.
@Model
final class BenchGraphTrip {
    var name: String
    var destination: String
    @Relationship(deleteRule: .cascade, inverse: \BenchGraphItem.trip)
    var items: [BenchGraphItem] = []

    init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }
}
