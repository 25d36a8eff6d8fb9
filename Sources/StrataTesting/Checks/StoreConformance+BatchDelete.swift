import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let batchDeleteChecks: [Check] = [
        Check("batch delete removes exactly the matches", batchDeleteRemovesExactlyTheMatches),
        Check("batch delete applies delete rules", batchDeleteAppliesDeleteRules),
    ]

    static func batchDeleteRemovesExactlyTheMatches(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Widget.self)
        try WidgetFixture.insert(into: harness.context(container))

        let deleter = harness.context(container)
        try deleter.delete(model: Widget.self, where: #Predicate { $0.count % 2 == 0 || $0.name.localizedStandardContains("ALP") })
        try deleter.save()
        let reader = harness.context(container)
        #expect(try reader.names(Widget.self) == ["gamma", "Épsilon"].sorted())
        #expect(try reader.fetchCount(FetchDescriptor<Widget>()) == 2)
        #expect(try reader.names(Maker.self) == ["acme", "globex", "initech"], "a nullify relationship deleted its destination")

        // A predicate that matches nothing deletes nothing.
        let none = harness.context(container)
        try none.delete(model: Widget.self, where: #Predicate { $0.count > 100 })
        try none.save()
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Widget>()) == 2)

        // No predicate deletes every model of the type, and only that type.
        let everything = harness.context(container)
        try everything.delete(model: Widget.self)
        try everything.save()
        let last = harness.context(container)
        #expect(try last.fetchCount(FetchDescriptor<Widget>()) == 0)
        #expect(try last.fetchCount(FetchDescriptor<Maker>()) == 3)
        #expect(try last.fetch(FetchDescriptor<Maker>()).allSatisfy { $0.widgets.isEmpty }, "a maker still lists a deleted widget")
    }

    static func batchDeleteAppliesDeleteRules(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Widget.self, Keeper.self)
        try WidgetFixture.insert(into: harness.context(container))
        let writer = harness.context(container)
        for name in ["One", "Two", "Three"] {
            let keeper = Keeper(name: name)
            let animal = Animal(name: "\(name)'s animal")
            animal.playthings = [Plaything(name: "\(name)'s toy")]
            keeper.animals = [animal]
            writer.insert(keeper)
        }
        try writer.save()

        // Widgets cascade to their parts.
        let deleter = harness.context(container)
        try deleter.delete(model: Widget.self, where: #Predicate { $0.parts.count > 1 })
        try deleter.save()
        let reader = harness.context(container)
        #expect(try reader.names(Widget.self) == ["beta", "gamma", "zeta", "Épsilon"].sorted())
        #expect(try reader.names(Part.self) == ["p3", "p7"])

        // Keepers cascade two levels.
        let keepers = harness.context(container)
        try keepers.delete(model: Keeper.self, where: #Predicate { $0.name != "Two" })
        try keepers.save()
        let last = harness.context(container)
        #expect(try last.names(Keeper.self) == ["Two"])
        #expect(try last.names(Animal.self) == ["Two's animal"])
        #expect(try last.names(Plaything.self) == ["Two's toy"])

        // A deny rule refuses a batch delete like any other.
        let denied = harness.context(container)
        let debtor = Keeper(name: "Debtor")
        debtor.loans = [Loan(name: "Loan")]
        denied.insert(debtor)
        try denied.save()
        try denied.delete(model: Keeper.self, where: #Predicate { $0.name == "Debtor" })
        #expect(throws: SwiftDataError.modelValidationFailure) { try denied.save() }
        #expect(try harness.context(container).names(Keeper.self) == ["Debtor", "Two"])
    }
}
