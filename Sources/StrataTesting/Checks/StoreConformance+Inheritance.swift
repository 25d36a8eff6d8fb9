import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let inheritanceChecks: [Check] = [
        Check("a class hierarchy is stored, and fetching a class returns its subclasses' models", hierarchyRoundTrips),
        Check("is and as? select by class, and subclass fetches filter and sort on inherited properties", classPredicates),
        Check("deletes by predicate honour includeSubclasses, and delete rules reach subclasses", subclassDeletes),
        Check("a unique constraint of the root class spans every subclass", uniquenessSpansHierarchy),
    ]

    private static let hierarchy: [any PersistentModel.Type] = [Panel.self, Component.self, PushButton.self, IconButton.self, Switch.self, Badge.self]

    /// Saves one model of each class of the hierarchy on a panel; returns the container.
    private static func savedHierarchy(_ harness: ConformanceHarness, named name: String) throws -> ModelContainer {
        let container = try harness.container(for: hierarchy, named: name, readOnly: false)
        let context = harness.context(container)
        let panel = Panel(label: "main")
        context.insert(panel)
        let icon = IconButton(code: "C3", name: "save", title: "Save", symbol: "disk")
        icon.badge = Badge(text: "new")
        icon.taps = 7
        let toggle = Switch(code: "C4", name: "wifi")
        toggle.isOn = true
        panel.components = [
            Component(code: "C1", name: "label"), PushButton(code: "C2", name: "ok", title: "OK"), icon, toggle,
        ]
        try context.save()
        return container
    }

    private static func byCode<T: PersistentModel>(_ type: T.Type) -> FetchDescriptor<T> where T: Component {
        FetchDescriptor<T>(sortBy: [SortDescriptor(\T.code)])
    }

    static func hierarchyRoundTrips(_ harness: ConformanceHarness) throws {
        let name = ConformanceHarness.uniqueName(for: harness.check)
        let written = try savedHierarchy(harness, named: name)
        let schema = written.schema
        #expect(schema.entity(for: IconButton.self)?.superentity?.name == "PushButton")
        #expect(Set(schema.entity(for: Component.self)?.subentities.map(\.name) ?? []) == ["PushButton", "Switch"])
        #expect(schema.entity(for: PushButton.self)?.inheritedProperties.map(\.name) == ["code", "name", "panel"])

        // A second container on the same store, where the store keeps its data across containers.
        let reopened = try harness.container(for: hierarchy, named: name, readOnly: false)
        let context = harness.context(try harness.context(reopened).fetchCount(FetchDescriptor<Panel>()) == 1 ? reopened : written)
        let all = try context.fetch(byCode(Component.self))
        try #require(all.count == 4, "a fetch of the root class returned \(all.count) models, not one of each class")
        #expect(all.map { "\(type(of: $0))" } == ["Component", "PushButton", "IconButton", "Switch"])
        #expect(all.map(\.name) == ["label", "ok", "save", "wifi"])
        let icon = try #require(all[2] as? IconButton)
        #expect(icon.title == "Save" && icon.symbol == "disk" && icon.taps == 7 && icon.badge?.text == "new")
        #expect((all[3] as? Switch)?.isOn == true)
        #expect((all[1] as? PushButton)?.taps == 0, "an initial value of a subclass was not stored")
        #expect(try context.fetch(byCode(PushButton.self)).map(\.code) == ["C2", "C3"])
        #expect(try context.fetch(FetchDescriptor<IconButton>()).map(\.code) == ["C3"])
        #expect(try context.fetchCount(FetchDescriptor<Switch>()) == 1)
        #expect(try context.fetchCount(FetchDescriptor<PushButton>()) == 2)
        #expect(try context.fetchIdentifiers(FetchDescriptor<PushButton>()).count == 2)
        let panel = try #require(try context.fetch(FetchDescriptor<Panel>()).first)
        #expect(Set(panel.components.map { "\(type(of: $0))" }) == ["Component", "PushButton", "IconButton", "Switch"])
        #expect(all.allSatisfy { $0.panel === panel }, "the inverse of a to-many of the root class lost a subclass")

        // Changing a subclass's own and inherited attributes saves both.
        icon.symbol = "floppy"
        icon.name = "store"
        try context.save()
        let reader = harness.context(context.container)
        let again = try #require(try reader.fetch(FetchDescriptor<IconButton>()).first)
        #expect(again.symbol == "floppy" && again.name == "store" && again.title == "Save")
    }

    static func classPredicates(_ harness: ConformanceHarness) throws {
        let container = try savedHierarchy(harness, named: ConformanceHarness.uniqueName(for: harness.check))
        let context = harness.context(container)
        let buttons = try context.fetch(FetchDescriptor<Component>(predicate: #Predicate { $0 is PushButton }, sortBy: [SortDescriptor(\.code)]))
        #expect(buttons.map(\.code) == ["C2", "C3"], "`is PushButton` did not select the push buttons and their subclass")
        let named = #Predicate<Component> { $0 is IconButton || $0.name == "label" }
        #expect(try context.fetch(FetchDescriptor(predicate: named, sortBy: [SortDescriptor(\.code)])).map(\.code) == ["C1", "C3"])
        #expect(try context.fetchCount(FetchDescriptor<Component>(predicate: #Predicate { !($0 is PushButton) })) == 2)
        let tapped = #Predicate<Component> { ($0 as? PushButton)?.taps ?? 0 > 5 }
        #expect(try context.fetch(FetchDescriptor(predicate: tapped)).map(\.code) == ["C3"], "`as?` did not reach a subclass's attribute")

        // A fetch of a subclass filters and sorts on inherited and own properties alike.
        let mixed = #Predicate<PushButton> { $0.name != "nothing" && $0.title.starts(with: "S") }
        #expect(try context.fetch(FetchDescriptor(predicate: mixed)).map(\.code) == ["C3"])
        let sorted = try context.fetch(FetchDescriptor<PushButton>(sortBy: [SortDescriptor(\.name, order: .reverse)]))
        #expect(sorted.map(\.name) == ["save", "ok"])
        var partial = FetchDescriptor<PushButton>(sortBy: [SortDescriptor(\.code)])
        partial.propertiesToFetch = [\.title]
        let fresh = harness.context(container)
        let titles = try fresh.fetch(partial)
        #expect(titles.map { "\(type(of: $0))" } == ["PushButton", "IconButton"], "a partial fetch lost the models' classes")
        #expect(titles.map(\.title) == ["OK", "Save"])
        #expect(titles.map(\.name) == ["ok", "save"], "properties left out of a partial fetch did not load when read")
    }

    static func subclassDeletes(_ harness: ConformanceHarness) throws {
        let container = try savedHierarchy(harness, named: ConformanceHarness.uniqueName(for: harness.check))
        let context = harness.context(container)
        try context.delete(model: PushButton.self, includeSubclasses: false)
        try context.save()
        #expect(try context.fetch(byCode(Component.self)).map(\.code) == ["C1", "C3", "C4"], "includeSubclasses: false deleted a subclass's model")
        try context.delete(model: PushButton.self, where: #Predicate { $0.taps > 1 })
        try context.save()
        #expect(try context.fetch(byCode(Component.self)).map(\.code) == ["C1", "C4"])
        #expect(try context.fetchCount(FetchDescriptor<Badge>()) == 0, "deleting an icon button by predicate did not cascade to its badge")

        let panel = try #require(try context.fetch(FetchDescriptor<Panel>()).first)
        context.delete(panel)
        try context.save()
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Component>()) == 0, "the panel's cascade missed a subclass")
    }

    static func uniquenessSpansHierarchy(_ harness: ConformanceHarness) throws {
        let container = try savedHierarchy(harness, named: ConformanceHarness.uniqueName(for: harness.check))
        let context = harness.context(container)
        let replacement = PushButton(code: "C2", name: "okay", title: "Okay")
        context.insert(replacement)
        try context.save()
        let buttons = try harness.context(container).fetch(byCode(PushButton.self))
        #expect(buttons.map(\.title) == ["Okay", "Save"], "a push button with a saved code did not update the saved one")

        let clash = harness.context(container)
        clash.insert(Switch(code: "C3", name: "dark"))
        #expect(throws: SwiftDataError.modelValidationFailure, "a switch took the code of an icon button") { try clash.save() }
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Component>()) == 4)
    }
}
