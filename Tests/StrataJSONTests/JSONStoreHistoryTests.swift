import Foundation
import StrataCore
import Testing

@testable import StrataJSON

/// History in the JSON document: written in the same atomic replace as the models, kept
/// across reopening, and refused as a whole when damaged.
@Suite struct JSONStoreHistoryTests {
    typealias Transactions = HistoryDescriptor<DefaultHistoryTransaction>

    @Test func historyIsWrittenWithTheModelsInTheDocument() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        let container = try JSONStoreSaveTests.container(url)
        let context = ModelContext(container)
        context.author = "import"
        for index in 0..<3 { context.insert(Person(name: "P\(index)", age: index)) }
        try context.save()

        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let history = try #require(document["history"] as? [String: Any], "the document has no history member")
        let transactions = try #require(history["transactions"] as? [[String: Any]])
        #expect(transactions.count == 1)
        #expect(transactions.first?["author"] as? String == "import")
        // Three inserts with consecutive keys are one run.
        #expect((transactions.first?["changes"] as? [[Any]])?.count == 1)

        let reopened = ModelContext(try JSONStoreSaveTests.container(url))
        let fetched = try reopened.fetchHistory(Transactions())
        #expect(fetched.map(\.author) == ["import"])
        #expect(fetched.first?.changes.count == 3)
    }

    @Test func aDamagedHistoryFailsOpeningAndLeavesTheFile() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        try JSONStoreSaveTests.insertPeople(["Ada"], into: try JSONStoreSaveTests.container(url))
        let text = try String(contentsOf: url, encoding: .utf8)
        // The insert run's kind, "i", becomes a kind no reader knows.
        let changes = try #require(text.range(of: "\"changes\""))
        let kind = try #require(text.range(of: "\"i\"", range: changes.upperBound..<text.endIndex))
        let damaged = text.replacingCharacters(in: kind, with: "\"x\"")
        try Data(damaged.utf8).write(to: url)

        let error = #expect(throws: SwiftDataError.self) { _ = try JSONStoreSaveTests.container(url) }
        #expect("\(error.map { $0 as Any } ?? "")".contains("history.transactions[0].changes"), "the error does not name the damaged value")
        #expect(try String(contentsOf: url, encoding: .utf8) == damaged)
    }

    @Test func historyOffLeavesNoHistoryMember() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.json")
        var configuration = JSONStoreConfiguration(schema: Schema([Person.self]), url: url)
        configuration.historyRetention = .disabled
        let context = ModelContext(try ModelContainer(for: Person.self, configurations: configuration))
        context.insert(Person(name: "Ada", age: 36))
        try context.save()
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(document["history"] == nil)
    }
}
