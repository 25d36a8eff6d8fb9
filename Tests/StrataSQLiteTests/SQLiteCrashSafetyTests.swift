import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataSQLite

/// A process saving in a loop is killed with SIGKILL at random points; after every kill the
/// database passes SQLite's integrity check and holds exactly the state of some complete
/// save, history included.
@Suite struct SQLiteCrashSafetyTests {
    @Test func aStoreKilledMidSaveHoldsTheLastCompleteSave() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-crash-\(UUID()).store").path
        var saved: [Int] = []
        for _ in 0..<CrashLoop.kills {
            await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
                try CrashLoop.saveUntilKilled {
                    try ModelContainer(for: CrashLoop.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
                }
            }
            #expect(try SQLiteConnection(path: path).scalarText("PRAGMA integrity_check") == "ok")
            let container = try ModelContainer(for: CrashLoop.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
            #expect(try CrashLoop.problems(in: container) == [])
            saved.append(try ModelContext(container).fetchCount(FetchDescriptor<CrashEntry>()))
        }
        // Saves completed between kills, so the kills fell in different places.
        #expect(Set(saved).count > 1, "saves per run: \(saved)")
    }
}
