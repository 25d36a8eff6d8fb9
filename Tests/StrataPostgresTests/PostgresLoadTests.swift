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

        let outcomes = try await withThrowingTaskGroup(of: (Int, LoadRun.Outcome).self) { group in
            for writer in 0..<4 {
                group.addTask { (writer, try await LoadWriter(modelContainer: container).run(writer: writer, for: duration)) }
            }
            for writer in 4..<8 {
                group.addTask { (writer, try await Self.onThread { try LoadRun.write(writer: writer, in: ModelContext(container), for: duration) }) }
            }
            for writer in 8..<10 {
                group.addTask {
                    let report = directory.appendingPathComponent("writer-\(writer).txt").path
                    await #expect(processExitsWith: .success) { [url = url as String, databaseSchema = databaseSchema as String, report = report as String, writer = writer as Int] in
                        try LoadRun.writeInProcess(writer: writer, report: report) {
                            try PostgresLoadTests.container(url: url, databaseSchema: databaseSchema)
                        }
                    }
                    return (writer, try LoadRun.outcome(reportedAt: report))
                }
            }
            return try await group.reduce(into: [Int: LoadRun.Outcome]()) { $0[$1.0] = $1.1 }
        }

        #expect(outcomes.count == 10)
        for (writer, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
            #expect(outcome.saves > 0, "writer \(writer) saved nothing")
            #expect(outcome.problems == [], "writer \(writer)")
        }
        let saves = outcomes.mapValues { $0.saves }
        #expect(try LoadRun.problems(in: container, saves: saves) == [])
        let reopened = try Self.container(url: url, databaseSchema: databaseSchema)
        #expect(try LoadRun.problems(in: reopened, saves: saves) == [])
        print("postgres load: \(saves.values.reduce(0, +)) saves by 10 writers in \(duration): \(saves.sorted { $0.key < $1.key }.map(\.value))")
    }

    static func container(url: String, databaseSchema: String) throws -> ModelContainer {
        var configuration = PostgresStoreConfiguration(schema: LoadRun.schema, url: URL(string: url)!)
        configuration.databaseSchema = databaseSchema
        return try ModelContainer(for: LoadRun.schema, configurations: configuration)
    }

    /// Runs `body` on a thread of its own, as app code uses a plain context off the main actor.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
