import Foundation
import StrataCore
import StrataTesting
import Testing

@testable import StrataJSON

/// A process saving in a loop is killed with SIGKILL at random points; after every kill the
/// document is well-formed JSON and the store holds
/// exactly the state of some complete save, history included.
@Suite struct JSONCrashSafetyTests {
    @Test func aDocumentKilledMidSaveHoldsTheLastCompleteSave() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("crash.json").path
        var saved: [Int] = []
        for _ in 0..<CrashLoop.kills {
            await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
                try CrashLoop.saveUntilKilled {
                    try ModelContainer(
                        for: CrashLoop.schema,
                        configurations: JSONStoreConfiguration(schema: CrashLoop.schema, url: URL(fileURLWithPath: path)))
                }
            }
            if FileManager.default.fileExists(atPath: path) {
                #expect((try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))) != nil, "the document is not JSON")
            }
            let container = try ModelContainer(
                for: CrashLoop.schema, configurations: JSONStoreConfiguration(schema: CrashLoop.schema, url: URL(fileURLWithPath: path)))
            #expect(try CrashLoop.problems(in: container) == [])
            saved.append(try ModelContext(container).fetchCount(FetchDescriptor<CrashEntry>()))
        }
        #expect(Set(saved).count > 1, "saves per run: \(saved)")
    }
}
