import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let windowChecks: [Check] = [
        Check("limit and offset window sorted results", limitAndOffsetWindowSortedResults),
        Check("limit and offset window unsorted results", limitAndOffsetWindowUnsortedResults),
        Check("counts and identifiers match fetch", countsAndIdentifiersMatchFetch),
    ]

    /// Windows of the five ranked models sorted by rank, filtered and not.
    ///
    /// A `fetchLimit` of 0 returns nothing (Strata reads the limit as "at most this many";
    /// Core Data reads 0 as "no limit").
    static func limitAndOffsetWindowSortedResults(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        let all = ["alpha", "bravo", "charlie", "delta", "echo"]
        func window(offset: Int?, limit: Int?, predicate: Predicate<Ranked>? = nil, order: SortOrder = .forward) -> FetchDescriptor<Ranked> {
            var descriptor = FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.rank, order: order)])
            descriptor.fetchOffset = offset
            descriptor.fetchLimit = limit
            return descriptor
        }
        probe.expectOrder(window(offset: nil, limit: 2), ["alpha", "bravo"])
        probe.expectOrder(window(offset: 2, limit: nil), ["charlie", "delta", "echo"])
        probe.expectOrder(window(offset: 1, limit: 2), ["bravo", "charlie"])
        probe.expectOrder(window(offset: 3, limit: 10), ["delta", "echo"])
        probe.expectOrder(window(offset: 0, limit: 5), all)
        probe.expectOrder(window(offset: 5, limit: nil), [])
        probe.expectOrder(window(offset: 50, limit: 2), [])
        probe.expectOrder(window(offset: nil, limit: 0), [])
        probe.expectOrder(window(offset: 2, limit: 0), [])
        probe.expectOrder(window(offset: 1, limit: 2, order: .reverse), ["delta", "charlie"])
        let inX = #Predicate<Ranked> { $0.group == "x" }
        probe.expectOrder(window(offset: 1, limit: 1, predicate: inX), ["delta"])
        probe.expectOrder(window(offset: 1, limit: nil, predicate: inX), ["delta", "echo"])
        probe.expectOrder(window(offset: 3, limit: 1, predicate: inX), [])
        // The window applies after a compound filter, however the store evaluates it.
        let compound = #Predicate<Ranked> { ($0.rating ?? 0) > 0 || $0.name.localizedStandardContains("BRA") }
        probe.expectOrder(window(offset: 1, limit: 2, predicate: compound), ["bravo", "charlie"])
    }

    /// Without a sort the order is the store's, but the window sizes and membership are fixed.
    static func limitAndOffsetWindowUnsortedResults(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        let all = Set(probe.identifiers.keys)
        for (offset, limit, size) in [(nil, 2, 2), (2, nil, 3), (1, 3, 3), (4, 4, 1), (5, 1, 0), (9, nil, 0), (nil, 0, 0)] as [(Int?, Int?, Int)] {
            var descriptor = FetchDescriptor<Ranked>()
            descriptor.fetchOffset = offset
            descriptor.fetchLimit = limit
            let names = try probe.context.fetch(descriptor).map(\.name)
            #expect(names.count == size, "offset \(String(describing: offset)), limit \(String(describing: limit)) gave \(names)")
            #expect(Set(names).count == names.count && Set(names).isSubset(of: all))
            #expect(try probe.context.fetchCount(descriptor) == size, "fetchCount ignores the window")
            let ids = try probe.context.fetchIdentifiers(descriptor)
            #expect(ids.count == size, "fetchIdentifiers ignores the window")
        }
        var filtered = FetchDescriptor<Ranked>(predicate: #Predicate { $0.group == "y" })
        filtered.fetchLimit = 5
        filtered.fetchOffset = 1
        #expect(try probe.context.fetch(filtered).count == 1)
        #expect(try probe.context.fetchCount(filtered) == 1)
    }

    /// `fetchCount`, `fetchIdentifiers`, batched fetches and `enumerate` agree with `fetch`.
    static func countsAndIdentifiersMatchFetch(_ harness: ConformanceHarness) throws {
        let probe = try rankedProbe(harness)
        let context = probe.context
        var descriptors: [FetchDescriptor<Ranked>] = [
            FetchDescriptor(),
            FetchDescriptor(sortBy: [SortDescriptor(\.score)]),
            FetchDescriptor(predicate: #Predicate { $0.rank >= 2 }, sortBy: [SortDescriptor(\.when, order: .reverse)]),
            FetchDescriptor(predicate: #Predicate { $0.rating == nil }),
            FetchDescriptor(predicate: #Predicate { $0.name.localizedStandardContains("zzz") }),
        ]
        var windowed = FetchDescriptor<Ranked>(sortBy: [SortDescriptor(\.rank, order: .reverse)])
        windowed.fetchOffset = 1
        windowed.fetchLimit = 3
        descriptors.append(windowed)
        for (index, descriptor) in descriptors.enumerated() {
            let models = try context.fetch(descriptor)
            #expect(try context.fetchCount(descriptor) == models.count, "descriptor \(index): fetchCount disagrees with fetch")
            let ids = try context.fetchIdentifiers(descriptor)
            if descriptor.sortBy.isEmpty {
                #expect(Set(ids) == Set(models.map(\.persistentModelID)) && ids.count == models.count,
                    "descriptor \(index): fetchIdentifiers disagrees with fetch")
            } else {
                #expect(ids == models.map(\.persistentModelID), "descriptor \(index): fetchIdentifiers disagrees with fetch")
            }
            let batched = try context.fetch(descriptor, batchSize: 2)
            #expect(batched.count == models.count, "descriptor \(index): a batched fetch has another count")
            if descriptor.sortBy.isEmpty {
                #expect(Set(batched.map(\.persistentModelID)) == Set(ids), "descriptor \(index): a batched fetch has other models")
            } else {
                #expect(batched.map(\.name) == models.map(\.name), "descriptor \(index): a batched fetch has other models")
            }
            #expect(try context.fetchIdentifiers(descriptor, batchSize: 2).count == ids.count)
            var visited: [String] = []
            try context.enumerate(descriptor, batchSize: 2) { visited.append($0.name) }
            #expect(visited.sorted() == models.map(\.name).sorted(), "descriptor \(index): enumerate visits other models")
        }
        // Identifiers name the models' entity and store.
        let ids = try context.fetchIdentifiers(FetchDescriptor<Ranked>())
        #expect(ids.allSatisfy { $0.entityName == Schema.entityName(for: Ranked.self) && !$0.isTemporary && $0.storeIdentifier != nil })
    }
}
