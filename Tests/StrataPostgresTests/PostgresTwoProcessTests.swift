import Foundation
import StrataCore
import StrataPostgres
import Testing

/// Two app processes on one database: this test's, and a child it starts. The child's
/// commits reach this process's next fetch, its models and its history.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresTwoProcessTests {
    static let schema = Schema([Ticket.self])

    static func container(url: String, databaseSchema: String) throws -> ModelContainer {
        var configuration = PostgresStoreConfiguration(schema: schema, url: URL(string: url)!)
        configuration.databaseSchema = databaseSchema
        return try ModelContainer(for: schema, configurations: configuration)
    }

    @Test func anotherProcessesCommitsReachFetchesModelsAndHistory() async throws {
        let name = "two-process-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        let databaseSchema = PostgresTestServer.databaseSchema(name)
        let url = PostgresTestServer.url!.absoluteString
        let context = ModelContext(try Self.container(url: url, databaseSchema: databaseSchema))
        context.author = "parent"
        let ticket = Ticket(code: "A", holder: "parent")
        context.insert(ticket)
        try context.save()
        let before = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(before.map(\.author) == ["parent"])

        // The child process changes the ticket and adds one, as author "child".
        await #expect(processExitsWith: .success) { [url = url as String, databaseSchema = databaseSchema as String] in
            let child = ModelContext(try PostgresTwoProcessTests.container(url: url, databaseSchema: databaseSchema))
            child.author = "child"
            let stored = try child.fetch(FetchDescriptor<Ticket>())
            guard stored.count == 1 else { exit(2) }
            stored[0].holder = "child"
            child.insert(Ticket(code: "B", holder: "child"))
            try child.save()
        }

        let tickets = try context.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.code)]))
        #expect(tickets.map(\.code) == ["A", "B"], "the child's insert is seen on the next fetch")
        #expect(ticket.holder == "child", "the model this process holds took the child's committed value")
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.map(\.author) == ["parent", "child"])
        let childTransaction = try #require(history.last)
        #expect(childTransaction.processIdentifier != before[0].processIdentifier, "the second transaction is another process's")
        #expect(childTransaction.changes.count == 2, "one update and one insert")
        // Changes after this process's own transaction: the child's only.
        let mine = before[0].token
        let after = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > mine }))
        #expect(after.map(\.author) == ["child"])
    }
}
