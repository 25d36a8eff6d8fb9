import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataSQLite

/// Eight contexts in this process — four `@ModelActor`s and four plain contexts on threads of
/// their own — and two other processes write and read one SQLite store at once. Afterwards
/// every save that returned is in the store, no counter lost an increment, and every entry
/// and account agree about each other.
@Suite struct SQLiteLoadTests {
    @Test func eightContextsAndTwoProcessesLoseNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-load-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("load.store").path
        let container = try ModelContainer(for: LoadRun.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        try LoadRun.prepare(ModelContext(container))
        let duration = LoadRun.duration

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
                    await #expect(processExitsWith: .success) { [path = path as String, report = report as String, writer = writer as Int] in
                        try LoadRun.writeInProcess(writer: writer, report: report) {
                            try ModelContainer(for: LoadRun.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
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
        // A container opened afterwards, as another launch would, sees the same.
        let reopened = try ModelContainer(for: LoadRun.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        #expect(try LoadRun.problems(in: reopened, saves: saves) == [])
        #expect(try SQLiteConnection(path: path).scalarText("PRAGMA integrity_check") == "ok")
        print("load: \(saves.values.reduce(0, +)) saves by 10 writers in \(duration): \(saves.sorted { $0.key < $1.key }.map(\.value))")
    }

    /// Runs `body` on a thread of its own, as app code uses a plain context off the main actor.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
