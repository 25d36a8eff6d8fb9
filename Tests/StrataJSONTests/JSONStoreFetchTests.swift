import Foundation
import StrataCore
import Testing

@testable import StrataJSON

/// Fetching: from the document loaded in memory, never from the file.
@Suite struct JSONStoreFetchTests {
    @Test func theStoreReadsTheFileOnceAndNotPerFetch() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try JSONStoreSaveTests.container(url)
        try JSONStoreSaveTests.insertPeople(["Ada"], into: container)
        // Replace the file with garbage: fetches keep answering from memory.
        try Data("not json".utf8).write(to: url)
        #expect(try JSONStoreSaveTests.names(in: container) == ["Ada"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Person>()) == 1)
    }

    @Test func explainSaysTheFilterRunsOnTheLoadedDocument() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let context = ModelContext(try JSONStoreSaveTests.container(url))
        let plan = context.explain(FetchDescriptor<Person>(predicate: #Predicate { $0.age > 3 }, sortBy: [SortDescriptor(\.name)]))
        #expect(plan.contains("JSONStore evaluates the filter on each Person record"))
        #expect(plan.contains("sorts by name"))
    }
}
