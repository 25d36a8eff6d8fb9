import Foundation
import StrataCore
import StrataPostgres
import Testing

@Model final class Voyage {
    var name: String
    var budget: Double
    @Relationship(deleteRule: .cascade, inverse: \Port.voyage) var ports: [Port] = []
    @Relationship(inverse: \Crew.voyages) var crew: [Crew] = []

    init(name: String, budget: Double) {
        self.name = name
        self.budget = budget
    }
}

@Model final class Port {
    var city: String
    var voyage: Voyage?

    init(city: String) { self.city = city }
}

@Model final class Crew {
    var name: String
    var voyages: [Voyage] = []

    init(name: String) { self.name = name }
}

/// Filters over relationships run in PostgreSQL (the plan shows SQL, not an in-memory
/// fallback) and give Swift's answers, `nil` included.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresQueryTests {
    let schema = Schema([Voyage.self, Port.self, Crew.self])

    /// A context over a fresh store of three voyages: Baltic (ports Oslo, Riga; crew Ada),
    /// Aegean (port Athens; crew Ada and Bo), Idle (nothing).
    private func context(_ name: String) throws -> ModelContext {
        let context = ModelContext(try ModelContainer(for: schema, configurations: PostgresTestServer.configuration(name, schema: schema)))
        let baltic = Voyage(name: "Baltic", budget: 1_000), aegean = Voyage(name: "Aegean", budget: 2_000), idle = Voyage(name: "Idle", budget: .nan)
        let ada = Crew(name: "Ada"), bo = Crew(name: "Bo")
        for model in [baltic, aegean, idle] { context.insert(model) }
        for model in [ada, bo] { context.insert(model) }
        for (city, voyage) in [("Oslo", baltic), ("Riga", baltic), ("Athens", aegean)] {
            let port = Port(city: city)
            context.insert(port)
            port.voyage = voyage
        }
        context.insert(Port(city: "Nowhere"))
        baltic.crew = [ada]
        aegean.crew = [ada, bo]
        try context.save()
        return ModelContext(context.container)
    }

    private func names<T: PersistentModel>(_ context: ModelContext, _ predicate: Predicate<T>, _ name: (T) -> String) throws -> [String] {
        let descriptor = FetchDescriptor<T>(predicate: predicate)
        let plan = context.explain(descriptor)
        #expect(plan.contains("SQL: SELECT") && !plan.contains("in memory"), "the filter runs in PostgreSQL: \(plan)")
        return try context.fetch(descriptor).map(name).sorted()
    }

    @Test func toOnePathsAndToManyTestsRunInSQL() throws {
        let name = "query-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        let context = try context(name)
        #expect(try names(context, #Predicate<Port> { $0.voyage?.name == "Baltic" }, \.city) == ["Oslo", "Riga"])
        #expect(try names(context, #Predicate<Port> { $0.voyage?.name == nil }, \.city) == ["Nowhere"])
        let everything = context.explain(FetchDescriptor<Port>())
        #expect(everything.contains("SQL: SELECT") && !everything.contains("cannot express"), "a fetch without a predicate runs in PostgreSQL: \(everything)")
        #expect(try names(context, #Predicate<Port> { ($0.voyage?.budget ?? 0) > 1_500 }, \.city) == ["Athens"])
        #expect(try names(context, #Predicate<Voyage> { ($0.budget > 1_500 ? $0.name : "low") == "low" }, \.name) == ["Baltic", "Idle"])
        #expect(try names(context, #Predicate<Voyage> { $0.ports.contains { $0.city == "Riga" } }, \.name) == ["Baltic"])
        #expect(try names(context, #Predicate<Voyage> { $0.ports.allSatisfy { $0.city != "Riga" } }, \.name) == ["Aegean", "Idle"])
        #expect(try names(context, #Predicate<Voyage> { $0.ports.count == 0 }, \.name) == ["Idle"])
        #expect(try names(context, #Predicate<Voyage> { $0.ports.filter { $0.city != "Oslo" }.count >= 1 }, \.name) == ["Aegean", "Baltic"])
        #expect(try names(context, #Predicate<Voyage> { $0.crew.contains { $0.name == "Bo" } }, \.name) == ["Aegean"])
        #expect(try names(context, #Predicate<Voyage> { $0.budget > 500 }, \.name) == ["Aegean", "Baltic"], "NaN is greater than nothing")
        #expect(try names(context, #Predicate<Voyage> { !($0.budget > 500) }, \.name) == ["Idle"])
        let sorted = try context.fetch(FetchDescriptor<Port>(sortBy: [SortDescriptor(\.voyage?.name), SortDescriptor(\.city)])).map(\.city)
        #expect(sorted == ["Nowhere", "Athens", "Oslo", "Riga"], "nil first, then by voyage name, then city")
    }
}
