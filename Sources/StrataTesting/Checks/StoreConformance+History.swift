import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let historyChecks: [Check] = [
        Check("each save is one history transaction with its author and ordered changes", saveIsOneTransaction),
        Check("history predicates on tokens and authors select transactions, and pruned tokens expire", historyPredicatesAndPruning),
        Check("history can be turned off, or kept to a window of transactions", historyRetention),
        Check("a delete by predicate is a history transaction with tombstones", batchDeleteIsRecorded),
    ]

    private typealias Transactions = HistoryDescriptor<DefaultHistoryTransaction>

    /// A container on a store of `Stay`s named `name`, with `retention` when its configuration
    /// takes one; `nil` when the store keeps no history, so the history checks do not apply.
    private static func historyContainer(
        _ harness: ConformanceHarness, _ name: String, retention: HistoryRetention? = nil
    ) throws -> ModelContainer? {
        let schema = Schema([Stay.self])
        var configuration = try harness.makeConfiguration(schema, name)
        if let retention {
            guard var retaining = configuration as? any HistoryRetaining else { return nil }
            retaining.historyRetention = retention
            guard let changed = retaining as? any DataStoreConfiguration else { return nil }
            configuration = changed
        }
        let container = try ModelContainer(for: schema, configurations: [configuration])
        do {
            _ = try ModelContext(container).fetchHistory(Transactions())
        } catch DataStoreError.unsupportedFeature {
            return nil
        }
        return container
    }

    static func saveIsOneTransaction(_ harness: ConformanceHarness) throws {
        guard let container = try historyContainer(harness, ConformanceHarness.uniqueName(for: harness.check)) else { return }
        let context = harness.context(container)
        context.author = "importer"
        let kyoto = Stay(code: "KIX", place: "Kyoto", nights: 3)
        let oslo = Stay(code: "OSL", place: nil, nights: 2)
        context.insert(kyoto)
        context.insert(oslo)
        let tokens = Locked<[DefaultHistoryToken]>([])
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            if let token = note.userInfo?[ModelContext.NotificationKey.historyTokens.rawValue] as? DefaultHistoryToken {
                tokens.withLock { $0.append(token) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        context.author = "editor"
        kyoto.nights = 4
        try context.save()
        context.author = nil
        context.delete(kyoto)
        context.delete(oslo)
        try context.save()

        let all = try context.fetchHistory(Transactions())
        try #require(all.count == 3, "expected one transaction per save, found \(all.count)")
        #expect(all.map(\.author) == ["importer", "editor", nil])
        #expect(all.map(\.token) == tokens.withLock { $0 }, "didSave did not carry each save's token")
        #expect(all[0].token < all[1].token && all[1].token < all[2].token, "tokens do not increase save by save")
        #expect(all.allSatisfy { transaction in
            transaction.changes.allSatisfy { $0.changedPersistentIdentifier.storeIdentifier == transaction.storeIdentifier }
        }, "a change names a model of another store")

        let inserted = all[0].changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let insert as DefaultHistoryInsert<Stay>) = change { return insert.changedPersistentIdentifier }
            return nil
        }
        #expect(inserted == [kyoto.persistentModelID, oslo.persistentModelID], "the inserts are not the saved models, in order")

        #expect(all[1].changes.count == 1)
        if case .update(let update as DefaultHistoryUpdate<Stay>)? = all[1].changes.first {
            #expect(update.changedPersistentIdentifier == kyoto.persistentModelID)
            #expect(update.updatedAttributes.map { $0 as PartialKeyPath<Stay> } == [\Stay.nights], "the update does not name exactly the changed attribute")
        } else {
            Issue.record("the second transaction is not one update of a Stay: \(all[1].changes)")
        }

        let deletes = all[2].changes.compactMap { change -> DefaultHistoryDelete<Stay>? in
            if case .delete(let delete as DefaultHistoryDelete<Stay>) = change { return delete }
            return nil
        }
        #expect(deletes.map(\.changedPersistentIdentifier) == [kyoto.persistentModelID, oslo.persistentModelID])
        if deletes.count == 2 {
            #expect(deletes[0].tombstone[\.code] as? String == "KIX")
            #expect(deletes[0].tombstone[\.place] as? String == "Kyoto")
            #expect(deletes[0].tombstone[\.nights] == nil, "a value not marked .preserveValueOnDeletion was kept")
            #expect(Array(deletes[0].tombstone).count == 2, "the tombstone holds more than the preserved attributes")
            #expect(deletes[1].tombstone[\.code] as? String == "OSL")
        }
    }

    static func historyPredicatesAndPruning(_ harness: ConformanceHarness) throws {
        let name = ConformanceHarness.uniqueName(for: harness.check)
        guard let container = try historyContainer(harness, name) else { return }
        let context = harness.context(container)
        for (index, author) in ["app", "widget", "app", "widget", "app"].enumerated() {
            context.author = author
            context.insert(Stay(code: "S\(index)", place: nil, nights: index))
            try context.save()
        }
        let all = try context.fetchHistory(Transactions())
        try #require(all.count == 5)
        let saved = all[1].token
        let persisted = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(saved))
        #expect(persisted == saved, "a token does not survive being encoded")

        let since = try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > persisted }))
        #expect(since.map(\.id) == all[2...].map(\.id), "token > saved did not select the later transactions")
        let widget = try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > persisted && $0.author == "widget" }))
        #expect(widget.map(\.id) == [all[3].id])
        let notApp = try context.fetchHistory(Transactions(predicate: #Predicate { $0.author != "app" }))
        #expect(notApp.map(\.id) == [all[1].id, all[3].id])
        var newestFirst = Transactions(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        newestFirst.fetchLimit = 2
        #expect(try context.fetchHistory(newestFirst).map(\.id) == [all[4].id, all[3].id])
        var oldestTwo = Transactions()
        oldestTwo.fetchLimit = 2
        #expect(try context.fetchHistory(oldestTwo).map(\.id) == [all[0].id, all[1].id])
        // A predicate on what no store runs is evaluated on the transactions.
        let withChanges = try context.fetchHistory(Transactions(predicate: #Predicate { $0.changes.count == 1 && $0.author == "app" }))
        #expect(withChanges.count == 3)

        // Pruning up to the saved token: asking what happened after an older token fails.
        let first = all[0].token
        try context.deleteHistory(Transactions(predicate: #Predicate { $0.token <= persisted }))
        #expect(try context.fetchHistory(Transactions()).map(\.id) == all[2...].map(\.id))
        #expect(throws: SwiftDataError.historyTokenExpired, "a token older than the pruned history did not expire") {
            _ = try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > first }))
        }
        #expect(try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > persisted })).count == 3)

        // A store that keeps its data keeps its history, and what was pruned stays pruned.
        let reopened = harness.context(try historyContainer(harness, name) ?? container)
        guard try reopened.fetchCount(FetchDescriptor<Stay>()) == 5 else { return }
        #expect(try reopened.fetchHistory(Transactions()).map(\.id) == all[2...].map(\.id))
        #expect(throws: SwiftDataError.historyTokenExpired) {
            _ = try reopened.fetchHistory(Transactions(predicate: #Predicate { $0.token > first }))
        }
    }

    static func historyRetention(_ harness: ConformanceHarness) throws {
        if let off = try historyContainer(harness, ConformanceHarness.uniqueName(for: harness.check), retention: .disabled) {
            let context = harness.context(off)
            context.insert(Stay(code: "A", place: nil, nights: 1))
            try context.save()
            #expect(try context.fetchHistory(Transactions()).isEmpty, "a store with history off recorded a transaction")
        }
        guard let window = try historyContainer(harness, ConformanceHarness.uniqueName(for: harness.check), retention: .window(transactions: 2)) else {
            return
        }
        let context = harness.context(window)
        var tokens: [DefaultHistoryToken] = []
        for index in 0..<4 {
            context.insert(Stay(code: "W\(index)", place: nil, nights: index))
            try context.save()
            if let last = try context.fetchHistory(Transactions()).last { tokens.append(last.token) }
        }
        let kept = try context.fetchHistory(Transactions())
        #expect(kept.map(\.token) == Array(tokens.suffix(2)), "the window did not keep exactly the last two transactions")
        let old = tokens[0]
        #expect(throws: SwiftDataError.historyTokenExpired, "a token older than the window did not expire") {
            _ = try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > old }))
        }
        let recent = tokens[2]
        #expect(try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > recent })).map(\.token) == [tokens[3]])
    }

    static func batchDeleteIsRecorded(_ harness: ConformanceHarness) throws {
        guard let container = try historyContainer(harness, ConformanceHarness.uniqueName(for: harness.check)) else { return }
        let context = harness.context(container)
        for (code, nights) in [("A", 1), ("B", 5), ("C", 7)] { context.insert(Stay(code: code, place: "P\(code)", nights: nights)) }
        try context.save()
        context.author = "cleanup"
        try context.delete(model: Stay.self, where: #Predicate { $0.nights > 2 })
        try context.save()
        let last = try #require(try context.fetchHistory(Transactions()).last)
        #expect(last.author == "cleanup")
        let codes = last.changes.compactMap { change -> String? in
            if case .delete(let delete as DefaultHistoryDelete<Stay>) = change { return delete.tombstone[\.code] as? String }
            return nil
        }
        #expect(codes.sorted() == ["B", "C"], "the delete by predicate did not record its deletes with their tombstones")
    }
}
