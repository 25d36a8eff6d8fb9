import Foundation
import StrataCore
import StrataMemory
import Testing

@Model final class Visit {
    @Attribute(.preserveValueOnDeletion) var place: String
    var nights: Int

    init(place: String, nights: Int) {
        self.place = place
        self.nights = nights
    }
}

/// History on the memory store: one transaction per save, with its author and ordered changes.
@Suite struct MemoryHistoryTests {
    let container: ModelContainer

    init() throws {
        let schema = Schema([Visit.self])
        container = try ModelContainer(for: schema, configurations: [MemoryStoreConfiguration(name: "history", schema: schema)])
    }

    @Test func eachSaveIsATransactionWithItsChanges() throws {
        let context = ModelContext(container)
        context.author = "importer"
        let kyoto = Visit(place: "Kyoto", nights: 3)
        context.insert(kyoto)
        try context.save()
        let first = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)

        context.author = "editor"
        kyoto.nights = 4
        try context.save()
        context.delete(kyoto)
        try context.save()

        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(all.map(\.author) == ["importer", "editor", "editor"])
        guard all.count == 3 else { return }
        guard case .insert(let insert) = all[0].changes.first else { Issue.record("not an insert"); return }
        #expect(insert.changedPersistentIdentifier == all[2].changes.first?.changedPersistentIdentifier)
        guard case .update(let update as DefaultHistoryUpdate<Visit>) = all[1].changes.first else { Issue.record("not an update"); return }
        #expect(update.updatedAttributes.count == 1)
        #expect(update.updatedAttributes.first as? PartialKeyPath<Visit> == \Visit.nights)
        guard case .delete(let delete as DefaultHistoryDelete<Visit>) = all[2].changes.first else { Issue.record("not a delete"); return }
        #expect(delete.tombstone[\.place] as? String == "Kyoto")
        #expect(delete.tombstone[\.nights] == nil, "a value not marked preserveValueOnDeletion was kept")

        // Changes since a kept token, and by author, through predicates.
        let token = first.token
        let since = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(since.map(\.id) == [all[1].id, all[2].id])
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(token))
        #expect(decoded == token)

        // Pruning.
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= token }))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 2)
    }
}
