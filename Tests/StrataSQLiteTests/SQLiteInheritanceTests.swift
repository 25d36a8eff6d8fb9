import Foundation
import Strata
@testable import StrataCore
@testable import StrataSQLite
import Testing

@Model class Vessel {
    var name: String
    var harbor: Harbor?
    init(name: String) { self.name = name }
}

/// A to-many to the root of a hierarchy, with an inverse: a prefetch loads it in order.
@Model final class Harbor {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Vessel.harbor) var vessels: [Vessel] = []
    init(name: String) { self.name = name }
}

@Model final class Ferry: Vessel {
    var cars: Int
    init(name: String, cars: Int) {
        self.cars = cars
        super.init(name: name)
    }
}

/// How a class hierarchy lies in a SQLite file: one table for the hierarchy, with a column
/// naming each row's class, and a fetch of a subclass that tests it in SQL.
@Suite struct SQLiteInheritanceTests {
    @Test func oneTablePerHierarchyWithATypeColumn() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-vessels-\(UUID()).store")
        let container = try ModelContainer(for: Vessel.self, Ferry.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Vessel(name: "Dinghy"))
        context.insert(Ferry(name: "Kalypso", cars: 40))
        try context.save()

        let connection = try SQLiteConnection(path: url.path)
        #expect(try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Ferry'") == "0")
        #expect(try connection.scalarText("SELECT group_concat(\"_entity\", ',') FROM (SELECT \"_entity\" FROM \"Vessel\" ORDER BY \"name\")") == "Vessel,Ferry")
        #expect(try connection.scalarText("SELECT \"cars\" FROM \"Vessel\" WHERE \"name\" = 'Kalypso'") == "40")
        let plan = context.explain(FetchDescriptor<Ferry>())
        #expect(plan.contains("\"_entity\" COLLATE strata_canonical IN"), "the class test did not reach SQL:\n\(plan)")
        #expect(try context.fetch(FetchDescriptor<Ferry>()).map(\.cars) == [40])
    }

    /// A fetch of the root whose rows alternate between the root and a subclass registers
    /// every model as its own row's, whichever class it is (the root's models wait to be
    /// registered at the fetch's end, the subclass's are registered as they come), and a
    /// later fetch of the subclass finds the same objects.
    @Test func aFetchOfMixedClassesKeepsEveryIdentity() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-mixed-vessels-\(UUID()).store")
        let container = try ModelContainer(for: Vessel.self, Ferry.self, configurations: ModelConfiguration(url: url))
        let inserting = ModelContext(container)
        for index in 0..<8 {
            inserting.insert(index % 3 == 1 ? Ferry(name: "ferry \(index)", cars: index) : Vessel(name: "vessel \(index)"))
        }
        try inserting.save()
        let context = ModelContext(container)
        let vessels = try context.fetch(FetchDescriptor<Vessel>())
        #expect(vessels.count == 8)
        #expect(vessels.filter { $0 is Ferry }.map(\.name).sorted() == ["ferry 1", "ferry 4", "ferry 7"])
        for vessel in vessels {
            let registered: Vessel? = context.registeredModel(for: vessel.persistentModelID)
            #expect(registered === vessel, "\(vessel.name)")
        }
        let ferries = try context.fetch(FetchDescriptor<Ferry>())
        #expect(ferries.count == 3)
        #expect(ferries.allSatisfy { ferry in vessels.contains { $0 === ferry } })
        let again = try context.fetch(FetchDescriptor<Vessel>())
        #expect(zip(again, vessels).allSatisfy { $0 === $1 })
    }

    /// The lists a prefetch loads keep each member's class when the destination is the root
    /// of a class hierarchy.
    @Test func aPrefetchedListOfAHierarchysRootKeepsEachMembersClass() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-harbor-\(UUID()).store")
        let container = try ModelContainer(for: Harbor.self, Vessel.self, Ferry.self, configurations: ModelConfiguration(url: url))
        let writer = ModelContext(container)
        let harbor = Harbor(name: "North")
        writer.insert(harbor)
        harbor.vessels = [Vessel(name: "A"), Ferry(name: "B", cars: 7), Vessel(name: "C")]
        try writer.save()
        var descriptor = FetchDescriptor<Harbor>()
        descriptor.relationshipKeyPathsForPrefetching = [\.vessels]
        let reader = ModelContext(container)
        let fetched = try #require(try reader.fetch(descriptor).first)
        let slot = try #require(ModelLayout.of(Harbor.self).slotsByKeyPath[\Harbor.vessels])
        let data = try #require(fetched.persistentBackingData as? ManagedData)
        guard case .loaded = data[slot: slot] else {
            Issue.record("the harbor's vessels are \(data[slot: slot]) after the prefetch")
            return
        }
        let vessels = fetched.vessels.sorted { $0.name < $1.name }
        #expect(vessels.map(\.name) == ["A", "B", "C"])
        #expect(vessels.map { String(describing: type(of: $0)) } == ["Vessel", "Ferry", "Vessel"])
        #expect((vessels[1] as? Ferry)?.cars == 7)
    }
}

/// A fleet whose second version adds the first subclass.
enum FleetV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Boat.self] }

    @Model final class Boat {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum FleetV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Boat.self, Tug.self] }

    @Model class Boat {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Tug: Boat {
        var power = 0
    }
}

enum FleetPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [FleetV1.self, FleetV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: FleetV1.self, toVersion: FleetV2.self)] }
}

extension SQLiteInheritanceTests {
    /// Adding a subclass is a lightweight migration: the table gains the subclass's columns
    /// and `_entity`, and the rows saved before read as the root class.
    @Test func addingASubclassMigratesLightly() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fleet-\(UUID()).store")
        do {
            let old = try ModelContainer(for: Schema(versionedSchema: FleetV1.self), configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(old)
            context.insert(FleetV1.Boat(name: "Old"))
            try context.save()
        }
        let new = try ModelContainer(
            for: Schema(versionedSchema: FleetV2.self), migrationPlan: FleetPlan.self, configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(new)
        let tug = FleetV2.Tug(name: "Strong")
        tug.power = 900
        context.insert(tug)
        try context.save()
        let boats = try ModelContext(new).fetch(FetchDescriptor<FleetV2.Boat>(sortBy: [SortDescriptor(\.name)]))
        #expect(boats.map { "\(type(of: $0))" } == ["Boat", "Tug"])
        #expect(try ModelContext(new).fetch(FetchDescriptor<FleetV2.Tug>()).map(\.power) == [900])
    }
}
