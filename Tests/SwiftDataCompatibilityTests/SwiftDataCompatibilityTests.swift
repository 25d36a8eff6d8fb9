import Foundation
import StrataMemory
import SwiftData
import Testing

// Written as SwiftData code is, with the names it uses: only the package dependency differs.

#if canImport(SwiftData)
@Model final class Destination {
    var name: String
    var visits = 0
    init(name: String) { self.name = name }
}
#endif

/// Builds the combined filter SwiftData code often writes as `#Predicate { a.evaluate($0) && b.evaluate($0) }`,
/// which Foundation's `#Predicate` rejects on Linux: one predicate over the captured values.
func destinationPredicate(searchText: String, minimumVisits: Int) -> Predicate<Destination> {
    #Predicate { destination in
        (searchText.isEmpty || destination.name.localizedStandardContains(searchText)) && destination.visits >= minimumVisits
    }
}

@Suite struct SwiftDataCompatibilityTests {
    @Test func swiftDataNamesBuildAndRunOnLinux() throws {
        let schema = SwiftData.Schema([Destination.self])
        let type: any SwiftData.PersistentModel.Type = Destination.self
        #expect(SwiftData.Schema.entityName(for: type) == "Destination")
        let container = try ModelContainer(for: schema, configurations: MemoryStoreConfiguration(name: "compat", schema: schema))
        let context = ModelContext(container)
        try autoreleasepool {
            for (name, visits) in [("oslo", 1), ("Kyoto", 3), ("Lima", 0)] {
                let destination = Destination(name: name)
                destination.visits = visits
                context.insert(destination)
            }
            try context.save()
        }
        let sorted = try context.fetch(FetchDescriptor<Destination>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)]))
        #expect(sorted.map(\.name) == ["Kyoto", "Lima", "oslo"], "localizedStandard sorts lexically on Linux, as documented")
        let found = try context.fetch(FetchDescriptor(predicate: destinationPredicate(searchText: "o", minimumVisits: 1)))
        #expect(Set(found.map(\.name)) == ["oslo", "Kyoto"])
    }
}
