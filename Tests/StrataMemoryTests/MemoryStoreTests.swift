import Foundation
import StrataCore
import StrataMemory
import Testing

/// A model for MemoryStore's own tests.
@Model final class Note {
    var title: String
    var words: Int

    init(title: String, words: Int) {
        self.title = title
        self.words = words
    }
}

/// What is MemoryStore's own: its identifiers, `erase()`, and refusing updates of models it does not hold.
@Suite struct MemoryStoreTests {
    func makeContainer(_ name: String = "notes") throws -> ModelContainer {
        try ModelContainer(for: Note.self, configurations: MemoryStoreConfiguration(name: name))
    }

    @Test func storesOfOneConfigurationHaveDistinctIdentifiers() throws {
        let configuration = MemoryStoreConfiguration(name: "same", schema: Schema([Note.self]))
        let first = try MemoryStore(configuration, migrationPlan: nil)
        let second = try MemoryStore(configuration, migrationPlan: nil)
        #expect(first.identifier != second.identifier)
        #expect(first.identifier.contains("same"))

        let one = ModelContext(try makeContainer("same"))
        let other = ModelContext(try makeContainer("same"))
        let a = Note(title: "A", words: 1)
        let b = Note(title: "B", words: 2)
        one.insert(a)
        other.insert(b)
        try one.save()
        try other.save()
        #expect(a.persistentModelID.storeIdentifier != nil)
        #expect(a.persistentModelID.storeIdentifier != b.persistentModelID.storeIdentifier)
        #expect(a.persistentModelID != b.persistentModelID)
    }

    @Test func identifiersAreUniqueWithinAStore() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        for round in 0..<3 {
            for index in 0..<40 { context.insert(Note(title: "\(round)-\(index)", words: index)) }
            try context.save()
            try context.delete(model: Note.self, where: #Predicate { $0.words % 3 == 0 })
            try context.save()
        }
        let ids = try context.fetchIdentifiers(FetchDescriptor<Note>())
        #expect(ids.count == 3 * 26)
        #expect(Set(ids).count == ids.count)
        #expect(Set(ids.compactMap { $0.storeIdentifier }).count == 1)
    }

    @Test func eraseEmptiesTheStore() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        for index in 0..<5 { context.insert(Note(title: "\(index)", words: index)) }
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 5)

        try container.erase()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 0)
        #expect(try context.fetch(FetchDescriptor<Note>()).isEmpty)

        let after = ModelContext(container)
        after.insert(Note(title: "after", words: 1))
        try after.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Note>()).map(\.title) == ["after"])
    }

    @Test func savingAnUpdateOfAnUnknownIdentifierThrowsAndChangesNothing() throws {
        let container = try makeContainer()
        let writer = ModelContext(container)
        let kept = Note(title: "kept", words: 1)
        writer.insert(kept)
        try writer.save()
        let storeIdentifier = try #require(kept.persistentModelID.storeIdentifier)

        let context = ModelContext(container)
        let unknownID = try PersistentIdentifier.identifier(
            for: storeIdentifier, entityName: Schema.entityName(for: Note.self), primaryKey: Int64(999_999))
        let ghost = try #require(context.model(for: unknownID) as? Note)
        ghost.title = "ghost"
        ghost.words = 0
        context.insert(Note(title: "inserted with the ghost", words: 2))
        let stored = try #require(try context.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.title == "kept" })).first)
        stored.words = 100
        #expect(context.hasChanges)
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }

        let reader = ModelContext(container)
        let notes = try reader.fetch(FetchDescriptor<Note>())
        #expect(notes.map(\.title) == ["kept"])
        #expect(notes.first?.words == 1)
    }
}
