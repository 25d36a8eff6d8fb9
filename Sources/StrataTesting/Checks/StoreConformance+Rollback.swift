import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let rollbackChecks: [Check] = [
        Check("rollback restores saved values and discards inserts", rollbackRestoresSavedState),
    ]

    static func rollbackRestoresSavedState(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let writer = harness.context(container)
        let ada = Author(name: "Ada")
        ada.books = [Book(name: "Notes"), Book(name: "Sketches")]
        writer.insert(ada)
        writer.insert(Author(name: "Grace"))
        try writer.save()

        let context = harness.context(container)
        let author = try context.one(Author.self, named: "Ada")
        let grace = try context.one(Author.self, named: "Grace")
        let notes = try context.one(Book.self, named: "Notes")
        author.name = "Changed"
        notes.author = grace
        let extra = Book(name: "Extra")
        extra.author = author
        context.insert(extra)
        context.insert(Author(name: "Inserted"))
        context.delete(grace)
        #expect(context.hasChanges)

        context.rollback()
        #expect(!context.hasChanges)
        #expect(author.name == "Ada")
        #expect(notes.author === author)
        #expect(!grace.isDeleted)
        #expect(try context.names(Author.self) == ["Ada", "Grace"])
        #expect(try context.names(Book.self) == ["Notes", "Sketches"])
        #expect(sortedNames(author.books) == ["Notes", "Sketches"])

        // Nothing reached the store, and saving now saves nothing.
        try context.save()
        let reader = harness.context(container)
        #expect(try reader.names(Author.self) == ["Ada", "Grace"])
        #expect(try reader.names(Book.self) == ["Notes", "Sketches"])
        #expect(sortedNames(try reader.one(Author.self, named: "Ada").books) == ["Notes", "Sketches"])
        #expect(try reader.one(Author.self, named: "Grace").books.isEmpty)

        // After a rollback the context keeps working.
        author.name = "Ada Lovelace"
        try context.save()
        #expect(try harness.context(container).names(Author.self) == ["Ada Lovelace", "Grace"])
    }
}
