import Foundation
import Strata
import StrataTesting
import Testing

@testable import StrataSQLite

/// Random bytes written into copies of a valid store file: opening and fetching everything
/// either works or fails with a typed error; nothing traps.
///
/// SQLite keeps no checksums, so a flipped byte inside a stored value can read back as
/// another value of the same kind; what this test holds the store to is never trapping and
/// never answering with an untyped error.
@Suite struct SQLiteFileFuzzTests {
    /// Inputs per run: 300, or `STRATA_FUZZ_INPUTS` / 10 (`make soak`).
    static var inputs: Int {
        ProcessInfo.processInfo.environment["STRATA_FUZZ_INPUTS"].flatMap(Int.init).map { $0 / 10 } ?? 300
    }

    @Test func damagedStoreFilesOpenOrFailWithATypedError() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fuzz-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seedURL = directory.appendingPathComponent("seed.store")
        do {
            let container = try ModelContainer(for: DiskTrip.self, Sample.self, configurations: ModelConfiguration(url: seedURL))
            let context = ModelContext(container)
            let day = Date(timeIntervalSinceReferenceDate: 780_000_000)
            for index in 0..<40 {
                let trip = DiskTrip(name: "Trip \(index)", destination: String(repeating: "Zürich ", count: index), startDate: day, endDate: day + Double(index))
                trip.bucketList = [DiskItem(title: "Swim \(index)", isInPlan: index % 2 == 0)]
                context.insert(trip)
                context.insert(Sample(flag: true, when: day, uuid: UUID(), amount: Decimal(index), tags: ["a", "\(index)"]))
            }
            try context.save()
        }
        _ = try SQLiteConnection(path: seedURL.path).scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
        let seed = try Data(contentsOf: seedURL)

        var random = SeededGenerator(seed: 0xF11E)
        var opened = 0
        var refused = 0
        for input in 0..<Self.inputs {
            var bytes = [UInt8](seed)
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                for offset in 0..<Int.random(in: 1...4, using: &random) where at + offset < bytes.count {
                    bytes[at + offset] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let url = directory.appendingPathComponent("fuzz-\(input).store")
            try Data(bytes).write(to: url)
            defer {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            }
            do {
                let container = try ModelContainer(for: DiskTrip.self, Sample.self, configurations: ModelConfiguration(url: url))
                let context = ModelContext(container)
                for trip in try context.fetch(FetchDescriptor<DiskTrip>()) {
                    _ = (trip.name, trip.destination, trip.bucketList.map(\.title), trip.livingAccommodation?.placeName)
                }
                for sample in try context.fetch(FetchDescriptor<Sample>()) { _ = (sample.uuid, sample.amount, sample.tags, sample.link) }
                opened += 1
            } catch is SQLiteStoreError, is SwiftDataError, is DataStoreError {
                refused += 1
            } catch {
                Issue.record("input \(input): an untyped error \(type(of: error)): \(error)")
            }
        }
        #expect(opened > 0 && refused > 0, "opened \(opened), refused \(refused)")
    }
}
