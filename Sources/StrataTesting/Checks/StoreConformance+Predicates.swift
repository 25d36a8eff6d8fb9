import Foundation
import StrataCore
import Testing

// Each predicate's expected models follow from the table in `WidgetFixture.insert(into:)`.
extension StoreConformance {
    static let predicateChecks: [Check] = [
        Check("comparison predicates select the right models", comparisonPredicates),
        Check("logical predicates combine conditions", logicalPredicates),
        Check("arithmetic and conditional predicates evaluate", arithmeticAndConditionalPredicates),
        Check("predicates on optionals and to-one relationships handle nil", optionalAndToOnePredicates),
        Check("string predicates match", stringPredicates),
        Check("collection and to-many predicates match", collectionPredicates),
        Check("range predicates match", rangePredicates),
        Check("captured values of every attribute type match", capturedValuePredicates),
        Check("enum predicates compare raw values", enumPredicates),
        Check("a predicate on a computed property is correct or a typed error", computedPropertyPredicate),
    ]

    static func widgetProbe(_ harness: ConformanceHarness) throws -> PredicateProbe<Widget> {
        let container = try harness.container(for: Widget.self)
        try WidgetFixture.insert(into: harness.context(container))
        let probe = try PredicateProbe(Widget.self, in: container)
        try #require(Set(probe.identifiers.keys) == WidgetFixture.names, "the widgets did not save")
        return probe
    }

    static func comparisonPredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        probe.expect(#Predicate { $0.count == 3 }, ["gamma"])
        probe.expect(#Predicate { $0.count != 3 }, ["alpha", "beta", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.count < 3 }, ["alpha", "beta"])
        probe.expect(#Predicate { $0.count <= 3 }, ["alpha", "beta", "gamma"])
        probe.expect(#Predicate { $0.count > 4 }, ["Épsilon", "zeta"])
        probe.expect(#Predicate { $0.count >= 5 }, ["Épsilon", "zeta"])
        probe.expect(#Predicate { 3 < $0.count }, ["delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.price < 0 }, ["delta"])
        probe.expect(#Predicate { $0.price >= 10 }, ["beta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.price == 9.99 }, ["alpha"])
        probe.expect(#Predicate { $0.name == "beta" }, ["beta"])
        probe.expect(#Predicate { $0.name != "beta" }, ["alpha", "gamma", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.name < "c" }, ["alpha", "beta"])
        probe.expect(#Predicate { $0.name > "delta" }, ["gamma", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.isActive == true }, ["alpha", "gamma", "Épsilon"])
        probe.expect(#Predicate { $0.isActive }, ["alpha", "gamma", "Épsilon"])
        probe.expect(#Predicate { $0.isActive == false }, ["beta", "delta", "zeta"])
        let cutoff = WidgetFixture.date(2)
        probe.expect(#Predicate { $0.created < cutoff }, ["alpha", "beta"])
        probe.expect(#Predicate { $0.created >= cutoff }, ["gamma", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.created == cutoff }, ["gamma"])
        probe.expect(#Predicate { $0.count > $0.parts.count }, ["beta", "gamma", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.count < $0.readings.count }, ["alpha"])
    }

    static func logicalPredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        probe.expect(#Predicate { $0.count > 1 && $0.isActive }, ["gamma", "Épsilon"])
        probe.expect(#Predicate { $0.count == 1 || $0.price > 50 }, ["alpha", "Épsilon"])
        probe.expect(#Predicate { !$0.isActive }, ["beta", "delta", "zeta"])
        probe.expect(#Predicate { !($0.count > 2 && $0.price > 0) }, ["alpha", "beta", "gamma", "delta"])
        probe.expect(#Predicate { ($0.isActive || $0.count == 2) && !($0.name == "alpha") }, ["beta", "gamma", "Épsilon"])
        probe.expect(#Predicate { $0.count > 100 || ($0.count < 3 && $0.price > 10) }, ["beta"])
        probe.expect(#Predicate { _ in true }, WidgetFixture.names)
        probe.expect(#Predicate { _ in false }, [])
        probe.expect(#Predicate { $0.count > 2 && $0.count < 2 }, [])
    }

    static func arithmeticAndConditionalPredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        probe.expect(#Predicate { $0.count * 2 + 1 > 7 }, ["delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.price - 1 < 0 }, ["gamma", "delta"])
        probe.expect(#Predicate { $0.price / 2 > 5 }, ["beta", "Épsilon"])
        probe.expect(#Predicate { -$0.count < -4 }, ["Épsilon", "zeta"])
        probe.expect(#Predicate { $0.count % 2 == 0 }, ["beta", "delta", "zeta"])
        probe.expect(#Predicate { $0.count / 2 == 1 }, ["beta", "gamma"])
        probe.expect(#Predicate { $0.count - 10 == -7 }, ["gamma"])
        let offset = 2
        probe.expect(#Predicate { $0.count + offset == 5 }, ["gamma"])
        probe.expect(#Predicate { $0.isActive ? $0.count > 2 : $0.price > 10 }, ["beta", "gamma", "Épsilon"])
        probe.expect(#Predicate { ($0.isActive ? $0.count : 0) >= 3 }, ["gamma", "Épsilon"])
        probe.expect(#Predicate { ($0.rating ?? 0) >= 4 }, ["alpha", "Épsilon"])
        probe.expect(#Predicate { ($0.nickname ?? "none") == "none" }, ["beta", "zeta"])
        probe.expect(#Predicate { ($0.rating ?? $0.count) == 6 }, ["zeta"])
    }

    static func optionalAndToOnePredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        probe.expect(#Predicate { $0.nickname == nil }, ["beta", "zeta"])
        probe.expect(#Predicate { $0.nickname != nil }, ["alpha", "gamma", "delta", "Épsilon"])
        probe.expect(#Predicate { $0.nickname == "" }, ["delta"])
        probe.expect(#Predicate { $0.rating == nil }, ["gamma", "zeta"])
        probe.expect(#Predicate { $0.rating == 3 }, ["beta"])
        probe.expect(#Predicate { $0.rating != 3 }, ["alpha", "gamma", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.flag == true }, ["alpha", "delta"])
        probe.expect(#Predicate { $0.flag == nil }, ["gamma", "Épsilon"])
        probe.expect(#Predicate { $0.flag != true }, ["beta", "gamma", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.rating.flatMap { $0 > 3 } == true }, ["alpha", "Épsilon"])
        probe.expect(#Predicate { $0.maker?.name == "acme" }, ["alpha", "beta"])
        probe.expect(#Predicate { $0.maker == nil }, ["delta", "zeta"])
        probe.expect(#Predicate { $0.maker != nil }, ["alpha", "beta", "gamma", "Épsilon"])
        probe.expect(#Predicate { $0.maker?.country == nil }, ["gamma", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.maker.flatMap { $0.country } == "CH" }, ["alpha", "beta"])
        probe.expect(#Predicate { ($0.maker?.country ?? "unknown") == "unknown" }, ["gamma", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.maker?.name != "acme" }, ["gamma", "delta", "Épsilon", "zeta"])
        let acmeID = try #require(probe.context.fetch(FetchDescriptor<Maker>()).first { $0.name == "acme" }?.persistentModelID)
        probe.expect(#Predicate { $0.maker?.persistentModelID == acmeID }, ["alpha", "beta"])

        // And from the maker's side: a to-many inverse of the to-one.
        let makers = try PredicateProbe(Maker.self, in: probe.context.container)
        makers.expect(#Predicate { $0.widgets.contains { $0.isActive } }, ["acme", "globex"])
        makers.expect(#Predicate { $0.widgets.isEmpty }, ["initech"])
        makers.expect(#Predicate { $0.widgets.count == 2 && $0.country != nil }, ["acme"])
    }

    static func stringPredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        probe.expect(#Predicate { $0.name.contains("ta") }, ["beta", "delta", "zeta"])
        probe.expect(#Predicate { $0.name.contains("TA") }, [])
        probe.expect(#Predicate { $0.name.contains("psi") }, ["Épsilon"])
        probe.expect(#Predicate { $0.name.contains("É") }, ["Épsilon"])
        let needle = "eta"
        probe.expect(#Predicate { $0.name.contains(needle) }, ["beta", "zeta"])
        probe.expect(#Predicate { $0.name.starts(with: "be") }, ["beta"])
        probe.expect(#Predicate { $0.name.starts(with: "É") }, ["Épsilon"])
        probe.expect(#Predicate { $0.name.starts(with: "e") }, [])
        probe.expect(#Predicate { $0.name.starts(with: "") }, WidgetFixture.names)
        probe.expect(#Predicate { $0.name.localizedStandardContains("EPS") }, ["Épsilon"])
        probe.expect(#Predicate { $0.name.localizedStandardContains("ALP") }, ["alpha"])
        probe.expect(#Predicate { $0.name.localizedStandardContains("a") }, ["alpha", "beta", "gamma", "delta", "zeta"])
        probe.expect(#Predicate { $0.name.localizedStandardContains("") }, [])
        probe.expect(#Predicate { ($0.nickname ?? "").localizedStandardContains("eps") }, ["Épsilon"])
        let search = "ÉTA"
        probe.expect(#Predicate { $0.name.localizedStandardContains(search) }, ["beta", "zeta"])
        let same = ComparisonResult.orderedSame
        let ascending = ComparisonResult.orderedAscending
        probe.expect(#Predicate { $0.name.caseInsensitiveCompare("ALPHA") == same }, ["alpha"])
        probe.expect(#Predicate { $0.name.caseInsensitiveCompare("épsilon") == same }, ["Épsilon"])
        probe.expect(#Predicate { $0.name.caseInsensitiveCompare("EPSILON") == same }, [])
        probe.expect(#Predicate { $0.name.localizedCompare("gamma") == same }, ["gamma"])
        probe.expect(#Predicate { $0.name.localizedCompare("c") == ascending }, ["alpha", "beta"])
    }

    static func collectionPredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        let wanted = ["alpha", "gamma", "nope"]
        probe.expect(#Predicate { wanted.contains($0.name) }, ["alpha", "gamma"])
        let counts = [2, 4]
        probe.expect(#Predicate { counts.contains($0.count) }, ["beta", "delta"])
        let nothing: [String] = []
        probe.expect(#Predicate { nothing.contains($0.name) }, [])
        probe.expect(#Predicate { !counts.contains($0.count) }, ["alpha", "gamma", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.parts.contains { $0.weight > 35 } }, ["delta"])
        probe.expect(#Predicate { $0.parts.contains { $0.name == "p3" } }, ["beta"])
        probe.expect(#Predicate { $0.parts.allSatisfy { $0.weight >= 10 } }, ["alpha", "gamma", "delta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.parts.filter { $0.weight > 10 }.count == 1 }, ["alpha", "Épsilon"])
        probe.expect(#Predicate { $0.parts.count == 2 }, ["alpha"])
        probe.expect(#Predicate { $0.parts.count > 1 }, ["alpha", "delta"])
        probe.expect(#Predicate { $0.parts.isEmpty }, ["gamma", "zeta"])
        probe.expect(#Predicate { !$0.parts.isEmpty }, ["alpha", "beta", "delta", "Épsilon"])
        probe.expect(#Predicate { widget in widget.parts.contains { $0.weight > widget.count * 10 } }, ["alpha", "delta"])
        probe.expect(#Predicate { $0.tags.contains("a") }, ["alpha", "delta"])
        probe.expect(#Predicate { $0.tags.isEmpty }, ["beta", "zeta"])
        probe.expect(#Predicate { $0.tags.count == 2 }, ["alpha", "Épsilon"])
        probe.expect(#Predicate { $0.readings.contains(6) }, ["zeta"])
        probe.expect(#Predicate { ($0.readings.max() ?? 0) > 6 }, ["beta", "delta"])
        probe.expect(#Predicate { ($0.readings.min() ?? 100) < 3 }, ["alpha"])
        probe.expect(#Predicate { $0.readings.contains { $0 > 7 } }, ["beta", "delta"])
    }

    static func rangePredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        probe.expect(#Predicate { (2...4).contains($0.count) }, ["beta", "gamma", "delta"])
        probe.expect(#Predicate { (2..<4).contains($0.count) }, ["beta", "gamma"])
        let cheap = 1.0..<10.0
        probe.expect(#Predicate { cheap.contains($0.price) }, ["alpha"])
        let affordable = 0.0...10.0
        probe.expect(#Predicate { affordable.contains($0.price) }, ["alpha", "gamma", "zeta"])
        let week = WidgetFixture.date(1)...WidgetFixture.date(3)
        probe.expect(#Predicate { week.contains($0.created) }, ["beta", "gamma", "delta"])
        let atLeast = 5...
        probe.expect(#Predicate { atLeast.contains($0.count) }, ["Épsilon", "zeta"])
        let below = ..<2
        probe.expect(#Predicate { below.contains($0.count) }, ["alpha"])
        let letters = "b"..."e"
        probe.expect(#Predicate { letters.contains($0.name) }, ["beta", "delta"])
        probe.expect(#Predicate { !(2...5).contains($0.count) }, ["alpha", "zeta"])
    }

    static func capturedValuePredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        let int8: Int8 = -128
        probe.expect(#Predicate { $0.small == int8 }, ["delta"])
        probe.expect(#Predicate { $0.small < 0 }, ["alpha", "delta"])
        let maxUInt64 = UInt64.max
        probe.expect(#Predicate { $0.big == maxUInt64 }, ["beta"])
        let pastInt64 = UInt64(Int64.max)
        probe.expect(#Predicate { $0.big > pastInt64 }, ["beta", "zeta"])
        probe.expect(#Predicate { $0.big < 42 }, ["alpha", "delta", "Épsilon"])
        let float: Float = 1
        probe.expect(#Predicate { $0.ratio > float }, ["beta", "Épsilon", "zeta"])
        probe.expect(#Predicate { $0.ratio == -2 }, ["gamma"])
        let double = 19.5
        probe.expect(#Predicate { $0.price == double }, ["beta"])
        let bytes = Data([1, 2])
        probe.expect(#Predicate { $0.blob == bytes }, ["gamma"])
        let noBytes = Data()
        probe.expect(#Predicate { $0.blob == noBytes }, ["beta", "Épsilon"])
        let link = URL(string: "https://3.example.com/x")!
        probe.expect(#Predicate { $0.link == link }, ["gamma"])
        let two = Decimal(2)
        probe.expect(#Predicate { $0.amount > two }, ["beta", "Épsilon", "zeta"])
        let negative = Decimal(string: "-3.30")!
        probe.expect(#Predicate { $0.amount == negative }, ["gamma"])
        let code = WidgetFixture.code(3)
        probe.expect(#Predicate { $0.code == code }, ["gamma"])
        probe.expect(#Predicate { $0.code != code }, WidgetFixture.names.subtracting(["gamma"]))
        let yes = true
        probe.expect(#Predicate { $0.isActive == yes }, ["alpha", "gamma", "Épsilon"])
        let date = WidgetFixture.date(4)
        probe.expect(#Predicate { $0.created == date }, ["Épsilon"])
        probe.expect(#Predicate { $0.created > date }, ["zeta"])
        let name = "Épsilon"
        probe.expect(#Predicate { $0.name == name }, ["Épsilon"])
        let three: Int? = 3
        probe.expect(#Predicate { $0.rating == three }, ["beta"])
        let none: Int? = nil
        probe.expect(#Predicate { $0.rating == none }, ["gamma", "zeta"])
        let walk = SpecimenTransport.walk
        probe.expect(#Predicate { $0.transport == walk }, ["alpha", "delta", "zeta"], allowingUnsupported: true)
    }

    static func enumPredicates(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        let medium = WidgetSize.medium.rawValue
        probe.expect(#Predicate { $0.size.rawValue == medium }, ["beta", "Épsilon"])
        probe.expect(#Predicate { $0.size.rawValue > 1 }, ["beta", "gamma", "Épsilon", "zeta"])
        let large = WidgetSize.large
        probe.expect(#Predicate { $0.size == large }, ["gamma", "zeta"])
        probe.expect(#Predicate { $0.colour?.rawValue == "red" }, ["alpha", "Épsilon"])
        let red = WidgetColour.red
        probe.expect(#Predicate { $0.colour == red }, ["alpha", "Épsilon"])
        probe.expect(#Predicate { $0.colour == nil }, ["gamma"])
        let warm = [WidgetColour.red.rawValue, WidgetColour.blue.rawValue]
        probe.expect(#Predicate { warm.contains($0.colour.flatMap { $0.rawValue } ?? "") }, ["alpha", "delta", "Épsilon"])
    }

    static func computedPropertyPredicate(_ harness: ConformanceHarness) throws {
        let probe = try widgetProbe(harness)
        probe.expect(#Predicate { $0.doubled > 6 }, ["delta", "Épsilon", "zeta"], allowingUnsupported: true)
        probe.expect(#Predicate { $0.doubled > 6 && $0.isActive }, ["Épsilon"], allowingUnsupported: true)
    }
}
