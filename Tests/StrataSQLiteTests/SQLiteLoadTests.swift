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

        let outcomes = try await LoadRun.runTogether(on: container, for: duration) { writer in
            let report = directory.appendingPathComponent("writer-\(writer).txt").path
            await #expect(processExitsWith: .success) { [path = path as String, report = report as String, writer = writer as Int] in
                try LoadRun.writeInProcess(writer: writer, report: report) {
                    try ModelContainer(for: LoadRun.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
                }
            }
            return try LoadRun.outcome(reportedAt: report)
        }

        // A container opened afterwards, as another launch would, must see the same.
        let reopened = try ModelContainer(for: LoadRun.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        #expect(try LoadRun.problems(after: outcomes, in: [container, reopened]) == [])
        #expect(try SQLiteConnection(path: path).scalarText("PRAGMA integrity_check") == "ok")
        let saves = outcomes.mapValues(\.saves)
        print("load: \(saves.values.reduce(0, +)) saves by \(LoadRun.writers) writers in \(duration): \(saves.sorted { $0.key < $1.key }.map(\.value))")
    }
}
