import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let batchedFetchChecks: [Check] = [
        Check("batched fetches skip models deleted between batches", batchedFetchesShrinkUnderIteration),
    ]

    /// A batched fetch and `enumerate` list their identifiers first and load each batch as
    /// it is reached, so models another context deletes meanwhile are skipped.
    static func batchedFetchesShrinkUnderIteration(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Entry.self)
        let writer = harness.context(container)
        for index in 0..<10 { writer.insert(Entry(writer: 0, batch: 0, sequence: index)) }
        try writer.save()
        func deleteElsewhere(_ sequences: [Int]) throws {
            let deleter = harness.context(container)
            for entry in try deleter.fetch(FetchDescriptor<Entry>(predicate: #Predicate { sequences.contains($0.sequence) })) {
                deleter.delete(entry)
            }
            try deleter.save()
        }
        let bySequence = FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.sequence)])

        let reader = harness.context(container)
        let results = try reader.fetch(bySequence, batchSize: 3)
        #expect(results.first?.sequence == 0)
        try deleteElsewhere([4, 5, 6, 7, 9])
        var seen: [Int] = []
        for entry in results { seen.append(entry.sequence) }
        #expect(seen == [0, 1, 2, 3, 8], "a batched fetch read models deleted after it began")

        var enumerated: [Int] = []
        try harness.context(container).enumerate(bySequence, batchSize: 2) { entry in
            enumerated.append(entry.sequence)
            if entry.sequence == 0 { try deleteElsewhere([3, 8]) }
        }
        #expect(enumerated == [0, 1, 2], "enumerate visited models deleted after it began")

        let identifiers = try harness.context(container).fetchIdentifiers(bySequence, batchSize: 2)
        #expect(identifiers.count == 3)
    }
}
