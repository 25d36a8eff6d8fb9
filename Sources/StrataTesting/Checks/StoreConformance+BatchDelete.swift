import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let batchDeleteChecks: [Check] = [
        Check("batch delete removes exactly the matches", batchDeleteRemovesExactlyTheMatches),
        Check("batch delete applies delete rules", batchDeleteAppliesDeleteRules),
        Check("delete by predicate removes stored matches at the next save", deleteByPredicateRunsAtTheNextSave),
        Check("delete by predicate lists exactly what it deleted", deleteByPredicateListsWhatItDeleted),
    ]

    static func batchDeleteRemovesExactlyTheMatches(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Widget.self)
        try WidgetFixture.insert(into: harness.context(container))

        let deleter = harness.context(container)
        try deleter.delete(model: Widget.self, where: #Predicate { $0.count % 2 == 0 || $0.name.localizedStandardContains("ALP") })
        try deleter.save()
        let reader = harness.context(container)
        #expect(try reader.names(Widget.self) == ["gamma", "Épsilon"].sorted())
        #expect(try reader.fetchCount(FetchDescriptor<Widget>()) == 2)
        #expect(try reader.names(Maker.self) == ["acme", "globex", "initech"], "a nullify relationship deleted its destination")

        // A predicate that matches nothing deletes nothing.
        let none = harness.context(container)
        try none.delete(model: Widget.self, where: #Predicate { $0.count > 100 })
        try none.save()
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Widget>()) == 2)

        // No predicate deletes every model of the type, and only that type.
        let everything = harness.context(container)
        try everything.delete(model: Widget.self)
        try everything.save()
        let last = harness.context(container)
        #expect(try last.fetchCount(FetchDescriptor<Widget>()) == 0)
        #expect(try last.fetchCount(FetchDescriptor<Maker>()) == 3)
        #expect(try last.fetch(FetchDescriptor<Maker>()).allSatisfy { $0.widgets.isEmpty }, "a maker still lists a deleted widget")
    }

    static func batchDeleteAppliesDeleteRules(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Widget.self, Keeper.self)
        try WidgetFixture.insert(into: harness.context(container))
        let writer = harness.context(container)
        for name in ["One", "Two", "Three"] {
            let keeper = Keeper(name: name)
            let animal = Animal(name: "\(name)'s animal")
            animal.playthings = [Plaything(name: "\(name)'s toy")]
            keeper.animals = [animal]
            writer.insert(keeper)
        }
        try writer.save()

        // Widgets cascade to their parts.
        let deleter = harness.context(container)
        try deleter.delete(model: Widget.self, where: #Predicate { $0.parts.count > 1 })
        try deleter.save()
        let reader = harness.context(container)
        #expect(try reader.names(Widget.self) == ["beta", "gamma", "zeta", "Épsilon"].sorted())
        #expect(try reader.names(Part.self) == ["p3", "p7"])

        // Keepers cascade two levels.
        let keepers = harness.context(container)
        try keepers.delete(model: Keeper.self, where: #Predicate { $0.name != "Two" })
        try keepers.save()
        let last = harness.context(container)
        #expect(try last.names(Keeper.self) == ["Two"])
        #expect(try last.names(Animal.self) == ["Two's animal"])
        #expect(try last.names(Plaything.self) == ["Two's toy"])

        // A deny rule refuses a batch delete like any other.
        let denied = harness.context(container)
        let debtor = Keeper(name: "Debtor")
        debtor.loans = [Loan(name: "Loan")]
        denied.insert(debtor)
        try denied.save()
        try denied.delete(model: Keeper.self, where: #Predicate { $0.name == "Debtor" })
        #expect(throws: SwiftDataError.modelValidationFailure) { try denied.save() }
        #expect(try harness.context(container).names(Keeper.self) == ["Debtor", "Two"])
    }

    /// `Entry` has no relationships, so its deletes by predicate run in the store (through
    /// ``DataStoreBatching`` when the store has it) without loading the matches.
    static func deleteByPredicateRunsAtTheNextSave(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Entry.self)
        let writer = harness.context(container)
        for index in 0..<30 { writer.insert(Entry(writer: index % 3, batch: 0, sequence: index)) }
        try writer.save()

        let deleter = harness.context(container)
        let held = try deleter.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.sequence == 1 }))
        let moved = try deleter.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.sequence == 2 }))
        let kept = try deleter.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.sequence == 0 }))
        #expect(held.map(\.writer) == [1] && moved.map(\.writer) == [2] && kept.map(\.writer) == [0])
        moved.first?.writer = 1  // now matches, on the values the context holds
        deleter.insert(Entry(writer: 1, batch: 1, sequence: 100))  // a pending insert that matches
        try deleter.delete(model: Entry.self, where: #Predicate { $0.writer == 1 })
        #expect(deleter.hasChanges)
        #expect(try deleter.fetchCount(FetchDescriptor<Entry>(predicate: #Predicate { $0.writer == 1 })) == 0,
            "before the save, the context's fetches leave out what the delete will remove")
        #expect(try deleter.fetchCount(FetchDescriptor<Entry>()) == 19)
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Entry>()) == 30, "the delete ran before the save")

        try deleter.save()
        #expect(!deleter.hasChanges)
        #expect(held.first?.isDeleted == true && moved.first?.isDeleted == true && kept.first?.isDeleted == false)
        let reader = harness.context(container)
        #expect(try reader.fetchCount(FetchDescriptor<Entry>(predicate: #Predicate { $0.writer == 1 })) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Entry>()) == 19)
        #expect(try reader.fetch(FetchDescriptor<Entry>(predicate: #Predicate { $0.writer == 2 })).map(\.sequence).sorted()
            == [5, 8, 11, 14, 17, 20, 23, 26, 29])

        // Rolled back, a delete by predicate deletes nothing.
        let undecided = harness.context(container)
        try undecided.delete(model: Entry.self)
        undecided.rollback()
        try undecided.save()
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Entry>()) == 19)

        // Without a predicate, every model of the type goes.
        let everything = harness.context(container)
        try everything.delete(model: Entry.self)
        try everything.save()
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Entry>()) == 0)
    }

    /// `didSave`, and the store's history where it keeps one, list exactly the models a
    /// delete by predicate removed: the matches of a predicate, every model of a type whose
    /// identifiers have gaps, every model of a type whose identifiers run without a gap from
    /// above the first one, and nothing when nothing is left.
    static func deleteByPredicateListsWhatItDeleted(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Entry.self)
        let writer = harness.context(container)
        let first = (0..<10).map { Entry(writer: 0, batch: 0, sequence: $0) }
        for entry in first { writer.insert(entry) }
        try writer.save()
        let ids = first.map(\.persistentModelID)
        for index in [1, 4, 9] { writer.delete(first[index]) }
        try writer.save()

        /// What `didSave` and the history list as deleted by the save after `body`.
        func deletions(_ body: (ModelContext) throws -> Void) throws -> (notified: [PersistentIdentifier], history: [PersistentIdentifier]?) {
            let context = harness.context(container)
            try body(context)
            let notified = Locked<[PersistentIdentifier]>([])
            let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
                let ids = note.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
                notified.withLock { $0.append(contentsOf: ids) }
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            try context.save()
            let history: [PersistentIdentifier]?
            do {
                let last = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last
                history = last?.changes.compactMap { change in
                    if case .delete(let delete) = change { return delete.changedPersistentIdentifier }
                    return nil
                } ?? []
            } catch DataStoreError.unsupportedFeature {
                history = nil
            }
            return (notified.withLock { $0 }, history)
        }
        func expectListed(_ outcome: (notified: [PersistentIdentifier], history: [PersistentIdentifier]?), _ expected: [PersistentIdentifier], _ what: String) {
            #expect(outcome.notified.count == Set(outcome.notified).count, "didSave lists a model twice (\(what))")
            #expect(Set(outcome.notified) == Set(expected), "didSave does not list exactly what \(what) deleted")
            if let history = outcome.history, !expected.isEmpty {
                #expect(history.count == expected.count && Set(history) == Set(expected), "history does not record exactly what \(what) deleted")
            }
        }

        expectListed(try deletions { try $0.delete(model: Entry.self, where: #Predicate { $0.sequence < 3 }) }, [ids[0], ids[2]], "a predicate")
        expectListed(try deletions { try $0.delete(model: Entry.self) }, [3, 5, 6, 7, 8].map { ids[$0] }, "a delete of every model, with gaps")
        let second = (0..<5).map { Entry(writer: 1, batch: 1, sequence: $0) }
        for entry in second { writer.insert(entry) }
        try writer.save()
        expectListed(try deletions { try $0.delete(model: Entry.self) }, second.map(\.persistentModelID), "a delete of every model, without gaps")
        expectListed(try deletions { try $0.delete(model: Entry.self) }, [], "a delete of an empty type")
        #expect(try harness.context(container).fetchCount(FetchDescriptor<Entry>()) == 0)
    }
}
