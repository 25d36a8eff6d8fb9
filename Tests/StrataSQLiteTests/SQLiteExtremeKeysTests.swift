import Foundation
import Strata
@testable import StrataSQLite
import Testing

/// Row keys at the ends of `Int64`, as a file edited by hand or by another program may hold:
/// a fetch registers one model per row, whichever way its rows' keys run, and finds the
/// same models again.
@Suite struct SQLiteExtremeKeysTests {
    @Test func keysAtTheEndsOfInt64KeepEveryIdentity() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-extreme-keys-\(UUID()).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(for: Vessel.self, Ferry.self, configurations: ModelConfiguration(url: url))
        let inserting = ModelContext(container)
        let names = ["a", "b", "c", "d", "e"]
        for name in names { inserting.insert(Vessel(name: name)) }
        try inserting.save()
        // The largest keys in order, then the smallest, the one a run of keys would wrap to.
        let keys: [String: String] = [
            "a": "9223372036854775806", "b": "9223372036854775807", "c": "-9223372036854775808", "d": "-9223372036854775807", "e": "0",
        ]
        let connection = try SQLiteConnection(path: url.path)
        for (name, key) in keys { try connection.execute("UPDATE \"Vessel\" SET \"_pk\" = \(key) WHERE \"name\" = '\(name)'") }

        for order in [[SortDescriptor<Vessel>](), [SortDescriptor(\Vessel.name)], [SortDescriptor(\Vessel.name, order: .reverse)]] {
            let context = ModelContext(container)
            let vessels = try context.fetch(FetchDescriptor<Vessel>(sortBy: order))
            #expect(vessels.map(\.name).sorted() == names)
            #expect(Set(vessels.map(\.persistentModelID)).count == names.count)
            for vessel in vessels {
                let registered: Vessel? = context.registeredModel(for: vessel.persistentModelID)
                #expect(registered === vessel, "\(vessel.name)")
            }
            let again = try context.fetch(FetchDescriptor<Vessel>(sortBy: order))
            #expect(zip(again, vessels).allSatisfy { $0 === $1 })
        }
    }
}
