import Foundation
@_spi(StoreTesting) import StrataCore
import StrataPostgres
import Testing

@Model final class Ticket {
    #Unique<Ticket>([\.code])
    var code: String
    var holder: String

    init(code: String, holder: String) {
        self.code = code
        self.holder = holder
    }
}

/// Opening errors, and what two containers on one database see of each other.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresStoreTests {
    let schema = Schema([Ticket.self])

    /// A store name and database schema of this test's own, dropped afterwards by `cleanUp`.
    private func configuration(_ name: String, allowsSave: Bool = true) -> PostgresStoreConfiguration {
        PostgresTestServer.configuration(name, schema: schema, allowsSave: allowsSave)
    }

    @Test func anUnreachableServerIsNamedWithoutThePassword() throws {
        // Port 1 on loopback refuses at once.
        var configuration = PostgresStoreConfiguration(
            schema: schema, url: URL(string: "postgres://strata:hunter2@127.0.0.1:1/nowhere")!)
        configuration.connectTimeout = .seconds(2)
        #expect(configuration.url?.absoluteString.contains("hunter2") == false)
        let error = try #require(throws: PostgresStoreError.self) { try PostgresStore(configuration, migrationPlan: nil) }
        guard case .unreachable(let location, _) = error else {
            Issue.record("expected unreachable, got \(error)")
            return
        }
        #expect(location == "PostgreSQL at 127.0.0.1:1, database nowhere")
        #expect(!"\(error)".contains("hunter2"))
        // Through a container too, whose error wraps the store's.
        let wrapped = try #require(throws: (any Error).self) { try ModelContainer(for: schema, configurations: configuration) }
        #expect("\(wrapped)".contains("127.0.0.1:1"))
        #expect(!"\(wrapped)".contains("hunter2"))
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["STRATA_POSTGRES_SOCKET_URL"] != nil, "STRATA_POSTGRES_SOCKET_URL is set only for a cluster scripts/with-postgres.sh starts"))
    func aUnixSocketAsTheHostReachesTheServer() throws {
        let name = "socket-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        let url = try #require(URL(string: ProcessInfo.processInfo.environment["STRATA_POSTGRES_SOCKET_URL"]!))
        var configuration = PostgresStoreConfiguration(schema: schema, url: url)
        configuration.databaseSchema = PostgresTestServer.databaseSchema(name)
        #expect(configuration.connection.unixSocketPath?.hasSuffix("/socket/.s.PGSQL.\(url.port ?? 5432)") == true)
        let context = ModelContext(try ModelContainer(for: schema, configurations: configuration))
        context.insert(Ticket(code: "S", holder: "socket"))
        try context.save()
        // Read back over TCP: the same database.
        let reader = ModelContext(try ModelContainer(for: schema, configurations: self.configuration(name)))
        #expect(try reader.fetch(FetchDescriptor<Ticket>()).map(\.holder) == ["socket"])
    }

    @Test func aURLThatIsNotPostgresIsRefusedWithoutThePassword() throws {
        let configuration = PostgresStoreConfiguration(schema: schema, url: URL(string: "mysql://root:hunter2@localhost/shop")!)
        let error = try #require(throws: PostgresStoreError.self) { try configuration.validate() }
        guard case .invalidURL(let reason) = error else {
            Issue.record("expected invalidURL, got \(error)")
            return
        }
        #expect(reason.contains("is not a postgres:// URL"))
        #expect(!reason.contains("hunter2"))
    }

    @Test func aDatabaseSchemaOfSomeoneElsesTablesIsLeftUntouched() throws {
        let name = "foreign-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        let namespace = PostgresTestServer.databaseSchema(name)
        try PostgresTestServer.execute("CREATE SCHEMA \"\(namespace)\"")
        try PostgresTestServer.execute("CREATE TABLE \"\(namespace)\".invoices (id int)")
        let error = try #require(throws: PostgresStoreError.self) { try PostgresStore(configuration(name), migrationPlan: nil) }
        guard case .foreignDatabase(_, let databaseSchema, let tables) = error else {
            Issue.record("expected foreignDatabase, got \(error)")
            return
        }
        #expect(databaseSchema == namespace)
        #expect(tables == ["invoices"])
        #expect(try PostgresTestServer.tables(in: namespace) == ["invoices"])
    }

    @Test func aDatabaseWrittenByANewerSchemaIsRefusedAndLeftAsItWas() throws {
        let name = "newer-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        var newer = configuration(name)
        newer.schema = Schema([Ticket.self], version: Schema.Version(2, 0, 0))
        let context = ModelContext(try ModelContainer(for: newer.schema!, configurations: newer))
        context.insert(Ticket(code: "A", holder: "newer"))
        try context.save()
        let namespace = PostgresTestServer.databaseSchema(name)
        let before = try PostgresTestServer.query("SELECT \"key\", \"value\" FROM \"\(namespace)\"._strata_metadata ORDER BY 1")
            .map { try $0.decode((String, String).self) }.map { "\($0)=\($1)" }

        var older = configuration(name)
        older.schema = Schema([Ticket.self], version: Schema.Version(1, 0, 0))
        let error = try #require(throws: SwiftDataError.self) { try PostgresStore(older, migrationPlan: nil) }
        #expect(error == SwiftDataError.backwardMigration)
        #expect("\(error)".contains("127.0.0.1") || "\(error)".contains("socket"), "the error names the server: \(error)")
        #expect("\(error)".contains(newer.connection.database ?? "?"), "the error names the database: \(error)")
        let after = try PostgresTestServer.query("SELECT \"key\", \"value\" FROM \"\(namespace)\"._strata_metadata ORDER BY 1")
            .map { try $0.decode((String, String).self) }.map { "\($0)=\($1)" }
        #expect(after == before, "nothing was written")
    }

    @Test func aReadOnlyStoreCreatesNothing() throws {
        let name = "readonly-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        let error = try #require(throws: PostgresStoreError.self) { try PostgresStore(configuration(name, allowsSave: false), migrationPlan: nil) }
        guard case .readOnly = error else {
            Issue.record("expected readOnly, got \(error)")
            return
        }
        #expect(try PostgresTestServer.tables(in: PostgresTestServer.databaseSchema(name)) == [])
    }

    @Test func twoStoresInsertingOneUniqueCodeAtOnceUpsert() throws {
        let name = "race-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        // Two stores stand for two processes whose contexts each checked for a ticket A, found
        // none, and saved one: the second insert meets the first's row in the database.
        let first = try PostgresStore(configuration(name), migrationPlan: nil)
        let second = try PostgresStore(configuration(name), migrationPlan: nil)
        let context = ModelContext(try ModelContainer(for: schema, configurations: configuration(name)))
        func insert(_ holder: String, into store: PostgresStore) throws -> PersistentIdentifier {
            let ticket = Ticket(code: "A", holder: holder)
            context.insert(ticket)
            let temporary = ticket.persistentModelID
            let snapshot = DefaultSnapshot(persistentIdentifier: temporary, values: ["code": .string("A"), "holder": .string(holder)])
            let result = try store.save(DataStoreSaveChangesRequest(editingState: EditingState(), inserted: [snapshot], updated: [], deleted: []))
            return try #require(result.remappedIdentifiers[temporary])
        }
        let mine = try insert("first", into: first)
        let theirs = try insert("second", into: second)
        #expect(theirs == mine, "the later insert took the stored model's identifier")
        let reader = ModelContext(try ModelContainer(for: schema, configurations: configuration(name)))
        let stored = try reader.fetch(FetchDescriptor<Ticket>())
        #expect(stored.map(\.holder) == ["second"], "one ticket A, with the last save's values")
    }

    @Test func aCommitOfAnotherContainerIsSeenOnTheNextFetch() throws {
        let name = "visible-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        let reader = ModelContext(try ModelContainer(for: schema, configurations: configuration(name)))
        #expect(try reader.fetchCount(FetchDescriptor<Ticket>()) == 0)
        let writer = ModelContext(try ModelContainer(for: schema, configurations: configuration(name)))
        writer.insert(Ticket(code: "B", holder: "writer"))
        try writer.save()
        let fetched = try reader.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.code == "B" }))
        #expect(fetched.map(\.holder) == ["writer"])
    }
}
