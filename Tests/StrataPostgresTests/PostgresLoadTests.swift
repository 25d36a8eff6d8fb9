import Foundation
import StrataCore
import StrataPostgres
import StrataTesting
import Testing

/// Eight contexts in this process (four `@ModelActor`s and four plain contexts on threads of
/// their own) and two other processes write and read one PostgreSQL database at once, each
/// process through a container of its own. Each save increments its writer's own counter column
/// on one shared row: with last-writer-wins per attribute, no increment may be lost. Afterwards
/// every save that returned is in the database, every writer read the others' commits, and
/// every entry and account agree about each other.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresLoadTests {
    @Test func eightContextsAndTwoProcessesLoseNothing() async throws {
        let name = "load-\(UUID().uuidString.prefix(8))"
        defer { PostgresTestServer.drop([name]) }
        let databaseSchema = PostgresTestServer.databaseSchema(name)
        let url = PostgresTestServer.url!.absoluteString
        let container = try Self.container(url: url, databaseSchema: databaseSchema)
        try LoadRun.prepare(ModelContext(container))
        let duration = LoadRun.duration
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-pg-load-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let outcomes = try await LoadRun.runTogether(on: container, for: duration) { writer in
            let report = directory.appendingPathComponent("writer-\(writer).txt").path
            await #expect(processExitsWith: .success) { [url = url as String, databaseSchema = databaseSchema as String, report = report as String, writer = writer as Int] in
                try LoadRun.writeInProcess(writer: writer, report: report) {
                    try PostgresLoadTests.container(url: url, databaseSchema: databaseSchema)
                }
            }
            return try LoadRun.outcome(reportedAt: report)
        }

        // A container opened afterwards, as another launch would, must see the same.
        let reopened = try Self.container(url: url, databaseSchema: databaseSchema)
        #expect(try LoadRun.problems(after: outcomes, in: [container, reopened]) == [])
        let saves = outcomes.mapValues(\.saves)
        print("postgres load: \(saves.values.reduce(0, +)) saves by \(LoadRun.writers) writers in \(duration): \(saves.sorted { $0.key < $1.key }.map(\.value))")
    }

    static func container(url: String, databaseSchema: String) throws -> ModelContainer {
        var configuration = PostgresStoreConfiguration(schema: LoadRun.schema, url: URL(string: url)!)
        configuration.databaseSchema = databaseSchema
        return try ModelContainer(for: LoadRun.schema, configurations: configuration)
    }
}
