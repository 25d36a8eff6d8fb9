import Foundation
import Strata
@testable import StrataSQLite
import Testing

@Model class Vessel {
    var name: String
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
        #expect(plan.contains("\"_entity\" IN"), "the class test did not reach SQL:\n\(plan)")
        #expect(try context.fetch(FetchDescriptor<Ferry>()).map(\.cars) == [40])
    }
}
