import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let batchedFetchChecks: [Check] = [
        Check("batched fetches skip models deleted between batches", batchedFetchesShrinkUnderIteration),
        Check("enumerate visits each match once, whatever the batch size", enumerateVisitsEachMatchOnce),
    ]

    /// `enumerate` of an unsorted descriptor (which a store may page through by identifier)
    /// visits every match exactly once, with or without a predicate and a limit, for batch
    /// sizes that divide the matches, do not, exceed them or are 1; models deleted elsewhere
    /// before their batch is reached are skipped; each batch leaves the identity map.
    static func enumerateVisitsEachMatchOnce(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Entry.self)
        let writer = harness.context(container)
        for index in 0..<23 { writer.insert(Entry(writer: index % 2, batch: 0, sequence: index)) }
        try writer.save()
        func visited(_ descriptor: FetchDescriptor<Entry>, batchSize: Int, during: (Entry) throws -> Void = { _ in }) throws -> [Int] {
            var sequences: [Int] = []
            try harness.context(container).enumerate(descriptor, batchSize: batchSize) { entry in
                sequences.append(entry.sequence)
                try during(entry)
            }
            return sequences
        }
        let evens = FetchDescriptor<Entry>(predicate: #Predicate { $0.writer == 0 })
        var someEvens = evens
        someEvens.fetchLimit = 7
        for batchSize in [1, 4, 6, 23, 100] {
            #expect(try visited(FetchDescriptor<Entry>(), batchSize: batchSize).sorted() == Array(0..<23), "every model, batches of \(batchSize)")
            #expect(try visited(evens, batchSize: batchSize).sorted() == Array(stride(from: 0, to: 23, by: 2)), "the matches, batches of \(batchSize)")
            let limited = try visited(someEvens, batchSize: batchSize)
            #expect(limited.count == 7 && Set(limited).count == 7 && limited.allSatisfy { $0 % 2 == 0 }, "7 matches, batches of \(batchSize): \(limited)")
        }

        // The first batch deletes, elsewhere, every model it has not visited yet but one.
        var doomed: Set<Int> = []
        let survivors = try visited(FetchDescriptor<Entry>(), batchSize: 5) { entry in
            guard doomed.isEmpty else { return }
            let deleter = harness.context(container)
            let seen = entry.sequence
            let rest = try deleter.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.sequence != seen }))
            for other in rest.dropFirst(5) {
                doomed.insert(other.sequence)
                deleter.delete(other)
            }
            try deleter.save()
        }
        // Only the first batch, loaded before the delete, may still show deleted models.
        let kept = Set(0..<23).subtracting(doomed)
        #expect(
            Set(survivors).isSuperset(of: kept) && Set(survivors).count == survivors.count && survivors.count - kept.count <= 4,
            "enumerate visited \(survivors) after \(doomed.sorted()) were deleted")

        // A block that saves a new match for every model it visits does not see them: the
        // traversal ends with the models there were when it began.
        let growing = harness.context(container)
        let before = try growing.fetchCount(FetchDescriptor<Entry>())
        var grownVisits = 0
        try growing.enumerate(FetchDescriptor<Entry>(), batchSize: 2, allowEscapingMutations: true) { entry in
            grownVisits += 1
            growing.insert(Entry(writer: 9, batch: 0, sequence: 1_000 + entry.sequence))
            try growing.save()
            if grownVisits > 4 * before { throw CancellationError() }
        }
        #expect(grownVisits == before, "enumerate visited \(grownVisits) models, \(before) when it began")

        let context = harness.context(container)
        var last: Entry?
        try context.enumerate(FetchDescriptor<Entry>(), batchSize: 3) { last = $0 }
        let held = try #require(last)
        #expect(context.registeredModel(for: held.persistentModelID) as Entry? === held, "a model the app holds stays registered")
    }

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

        // Every later batch vanishes while the first is being read: iteration just ends.
        let shrinking = try harness.context(container).fetch(bySequence, batchSize: 2)
        var iterated: [Int] = []
        for entry in shrinking {
            iterated.append(entry.sequence)
            if iterated.count == 1 { try deleteElsewhere([2, 8]) }
        }
        #expect(iterated == [0, 1], "a batched fetch read models deleted after it began")
        var forEachSaw = 0
        try harness.context(container).fetch(bySequence, batchSize: 1).forEach { _ in forEachSaw += 1 }
        #expect(forEachSaw == 2)

        // Copying and mapping results that shrink as they load: what is left, never a trap.
        for sequence in 20..<24 { writer.insert(Entry(writer: 0, batch: 1, sequence: sequence)) }
        try writer.save()
        let copied = try harness.context(container).fetch(bySequence, batchSize: 2)
        #expect(copied.first?.sequence == 0)
        let left = try harness.context(container).fetch(bySequence).map(\.sequence)
        try deleteElsewhere(Array(left.dropFirst(2)))
        #expect(Array(copied).map(\.sequence) == [0, 1], "Array(results) copied models deleted after the fetch")
        let mapped = try harness.context(container).fetch(bySequence, batchSize: 1)
        #expect(mapped.first?.sequence == 0)
        try deleteElsewhere([1])
        #expect(mapped.map(\.sequence) == [0], "map read models deleted after the fetch")
    }
}
