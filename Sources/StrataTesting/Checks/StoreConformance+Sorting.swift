import Foundation
import StrataCore
import Testing

// Expected orders follow from `RankedFixture.models()`. Foundation's `SortDescriptor` on
// Linux has no `Bool` key paths, so `Bool?` sorting is not checked.
extension StoreConformance {
    static let sortChecks: [Check] = [
        Check("sorting orders numbers and dates both ways", sortingOrdersNumbersAndDates),
        Check("sorting orders strings as Foundation does", sortingOrdersStrings),
        Check("sorting puts nils first ascending and last descending", sortingPlacesNils),
        Check("sorting by several keys breaks ties in order", sortingBySeveralKeys),
        Check("sorting applies after filtering", sortingAppliesAfterFiltering),
    ]

    static func rankedProbe(_ harness: ConformanceHarness) throws -> PredicateProbe<Ranked> {
        let container = try harness.container(for: Ranked.self)
        try RankedFixture.insert(into: harness.context(container))
        let probe = try PredicateProbe(Ranked.self, in: container)
        try #require(probe.identifiers.count == 5, "the models did not save")
        return probe
    }

    static func sortingOrdersNumbersAndDates(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        let byRank = ["alpha", "bravo", "charlie", "delta", "echo"]
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.rank)]), byRank)
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.rank, order: .reverse)]), byRank.reversed())
        let byScore = ["alpha", "charlie", "echo", "delta", "bravo"]
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.score)]), byScore)
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.score, order: .reverse)]), byScore.reversed())
        let byDate = ["bravo", "alpha", "echo", "charlie", "delta"]
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.when)]), byDate)
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.when, order: .reverse)]), byDate.reversed())
        let byUInt64 = ["alpha", "bravo", "charlie", "echo", "delta"]
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.big)]), byUInt64)
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.big, order: .reverse)]), byUInt64.reversed())
        let byInt8 = ["alpha", "delta", "bravo", "charlie", "echo"]
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.small)]), byInt8)
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.small, order: .reverse)]), byInt8.reversed())
    }

    static func sortingOrdersStrings(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        // Lowercase ASCII names order the same under every comparator.
        let byName = ["alpha", "bravo", "charlie", "delta", "echo"]
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.name)]), byName)
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.name, order: .reverse)]), byName.reversed())
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.name, comparator: .lexical)]), byName)
        // Mixed case, digits and diacritics: "Delta" < "alpha" < "bravo 10" < "bravo 9" < "Écho" lexically.
        let lexical = ["delta", "alpha", "bravo", "charlie", "echo"]
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.title, comparator: .lexical)]), lexical)
        probe.expectOrder(FetchDescriptor(sortBy: [SortDescriptor(\.title, comparator: .lexical, order: .reverse)]), lexical.reversed())
        // The default comparator orders as Foundation's own sort of the same values does on this platform.
        for order in [SortOrder.forward, .reverse] {
            let descriptor = SortDescriptor(\Ranked.title, order: order)
            let expected = RankedFixture.models().sorted(using: descriptor).map(\.name)
            probe.expectOrder(FetchDescriptor(sortBy: [descriptor]), expected)
        }
    }

    static func sortingPlacesNils(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        // rating: delta nil, alpha 3, echo 1, bravo nil, charlie 2.
        probe.expectGroups(FetchDescriptor(sortBy: [SortDescriptor(\.rating)]), [["bravo", "delta"], ["echo"], ["charlie"], ["alpha"]])
        probe.expectGroups(
            FetchDescriptor(sortBy: [SortDescriptor(\.rating, order: .reverse)]), [["alpha"], ["charlie"], ["echo"], ["bravo", "delta"]])
        // nickname: delta "d", alpha nil, echo "e", bravo nil, charlie "c".
        probe.expectGroups(FetchDescriptor(sortBy: [SortDescriptor(\.nickname)]), [["alpha", "bravo"], ["charlie"], ["delta"], ["echo"]])
        probe.expectGroups(
            FetchDescriptor(sortBy: [SortDescriptor(\.nickname, order: .reverse)]), [["echo"], ["delta"], ["charlie"], ["alpha", "bravo"]])
        probe.expectOrder(
            FetchDescriptor(sortBy: [SortDescriptor(\.rating), SortDescriptor(\.name)]), ["bravo", "delta", "echo", "charlie", "alpha"])
        probe.expectOrder(
            FetchDescriptor(sortBy: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.name, order: .reverse)]),
            ["alpha", "charlie", "echo", "delta", "bravo"])
    }

    static func sortingBySeveralKeys(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        // group: x = delta, echo, charlie; y = alpha, bravo.
        probe.expectOrder(
            FetchDescriptor(sortBy: [SortDescriptor(\.group), SortDescriptor(\.rank, order: .reverse)]),
            ["echo", "delta", "charlie", "bravo", "alpha"])
        probe.expectOrder(
            FetchDescriptor(sortBy: [SortDescriptor(\.group, order: .reverse), SortDescriptor(\.score)]),
            ["alpha", "bravo", "charlie", "echo", "delta"])
        probe.expectOrder(
            FetchDescriptor(sortBy: [SortDescriptor(\.group), SortDescriptor(\.when)]),
            ["echo", "charlie", "delta", "bravo", "alpha"])
        // A first key without ties makes the second irrelevant.
        probe.expectOrder(
            FetchDescriptor(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.group)]),
            ["alpha", "bravo", "charlie", "delta", "echo"])
    }

    static func sortingAppliesAfterFiltering(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        probe.expectOrder(
            FetchDescriptor(predicate: #Predicate { $0.group == "x" }, sortBy: [SortDescriptor(\.score, order: .reverse)]),
            ["delta", "echo", "charlie"])
        probe.expectOrder(
            FetchDescriptor(predicate: #Predicate { $0.rank > 10 }, sortBy: [SortDescriptor(\.score)]), [])
        probe.expectOrder(
            FetchDescriptor(predicate: #Predicate { $0.rating != nil }, sortBy: [SortDescriptor(\.rating)]),
            ["echo", "charlie", "alpha"])
    }
}
