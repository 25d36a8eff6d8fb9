import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let concurrencyChecks: [Check] = [
        Check("concurrent saves from several contexts all persist", concurrentSavesAllPersist),
        Check("readers never see part of a save", readersNeverSeePartOfASave),
    ]

    static let writers = 4
    static let batchesPerWriter = 5
    static let entriesPerBatch = 10

    /// Runs `body(index)` on `count` threads of their own at once and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }

    /// Inserts one writer's entries in `batchesPerWriter` saves, each in a context of its own thread.
    ///
    /// `afterEachSave` runs after every save, to interleave the writer with readers.
    static func write(
        _ writer: Int, into container: ModelContainer, identifiers: Locked<[PersistentIdentifier]>, failures: Locked<[String]>,
        afterEachSave: () -> Void = {}
    ) {
        let context = ModelContext(container)
        for batch in 0..<batchesPerWriter {
            let entries = (0..<entriesPerBatch).map { Entry(writer: writer, batch: batch, sequence: $0) }
            for entry in entries { context.insert(entry) }
            do {
                try context.save()
                let ids = entries.map(\.persistentModelID)
                identifiers.withLock { $0.append(contentsOf: ids) }
            } catch {
                failures.withLock { $0.append("writer \(writer), batch \(batch): \(error)") }
            }
            afterEachSave()
        }
    }

    /// Waits until `reads` exceeds `count`, or two seconds pass (a reader may have stopped).
    static func waitForReads(_ reads: Locked<Int>, beyond count: Int) {
        let deadline = Date().addingTimeInterval(2)
        while reads.value <= count && Date() < deadline { usleep(50) }
    }

    static func concurrentSavesAllPersist(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Entry.self)
        let identifiers = Locked<[PersistentIdentifier]>([])
        let failures = Locked<[String]>([])
        onThreads(writers) { writer in write(writer, into: container, identifiers: identifiers, failures: failures) }

        #expect(failures.value.isEmpty, "saves failed: \(failures.value)")
        let total = writers * batchesPerWriter * entriesPerBatch
        let saved = identifiers.value
        #expect(saved.count == total)
        #expect(Set(saved).count == saved.count, "two models saved concurrently got the same identifier")
        #expect(saved.allSatisfy { !$0.isTemporary })

        let reader = harness.context(container)
        #expect(try reader.fetchCount(FetchDescriptor<Entry>()) == total)
        let fetchedIDs = try reader.fetchIdentifiers(FetchDescriptor<Entry>())
        #expect(Set(fetchedIDs) == Set(saved), "the store holds other models than the ones saved")
        #expect(fetchedIDs.count == total)
        let entries = try reader.fetch(FetchDescriptor<Entry>())
        var keys = Set<[Int]>()
        for entry in entries { keys.insert([entry.writer, entry.batch, entry.sequence]) }
        #expect(keys.count == total, "entries were lost or duplicated")
        for writer in 0..<writers {
            let count = try reader.fetchCount(FetchDescriptor<Entry>(predicate: #Predicate { $0.writer == writer }))
            #expect(count == batchesPerWriter * entriesPerBatch, "writer \(writer) has \(count) entries")
        }
    }

    static func readersNeverSeePartOfASave(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Entry.self)
        let identifiers = Locked<[PersistentIdentifier]>([])
        let failures = Locked<[String]>([])
        let finishedWriters = Locked(0)
        let partialViews = Locked<[String]>([])
        let reads = Locked(0)
        let readers = 2
        onThreads(writers + readers) { index in
            if index < writers {
                // Start once every reader has read, and let a read happen after each save.
                waitForReads(reads, beyond: readers - 1)
                write(index, into: container, identifiers: identifiers, failures: failures) {
                    waitForReads(reads, beyond: reads.value)
                }
                finishedWriters.withLock { $0 += 1 }
                return
            }
            var done = false
            while !done {
                done = finishedWriters.value == writers
                let context = ModelContext(container)
                do {
                    let entries = try context.fetch(FetchDescriptor<Entry>())
                    var sizes: [[Int]: Int] = [:]
                    for entry in entries { sizes[[entry.writer, entry.batch], default: 0] += 1 }
                    for (key, size) in sizes where size != entriesPerBatch {
                        partialViews.withLock { $0.append("fetch saw \(size) of writer \(key[0])'s batch \(key[1])") }
                    }
                    let count = try context.fetchCount(FetchDescriptor<Entry>())
                    if count % entriesPerBatch != 0 {
                        partialViews.withLock { $0.append("fetchCount saw \(count) entries, not a whole number of saves") }
                    }
                    reads.withLock { $0 += 1 }
                } catch {
                    failures.withLock { $0.append("reader \(index): \(error)") }
                    return
                }
            }
        }

        #expect(failures.value.isEmpty, "operations failed: \(failures.value)")
        let partial = partialViews.value
        #expect(partial.isEmpty, "readers saw part of a save: \(partial.prefix(5))")
        #expect(reads.value >= readers)
        let total = writers * batchesPerWriter * entriesPerBatch
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Entry>()) == total)
        #expect(Set(identifiers.value).count == total)
    }
}
