import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let identityChecks: [Check] = [
        Check("saved models get permanent distinct identifiers", savedModelsGetPermanentIdentifiers),
        Check("a context returns one object per identifier", oneObjectPerIdentifier),
        Check("a fresh context gives a new object with the same identifier", freshContextGivesNewObject),
    ]

    static func savedModelsGetPermanentIdentifiers(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let context = harness.context(container)
        let authors = (0..<20).map { Author(name: "Author \($0)") }
        let book = Book(name: "Book")
        authors[0].books = [book]
        for author in authors { context.insert(author) }
        let temporary = authors.map(\.persistentModelID)
        #expect(temporary.allSatisfy { $0.isTemporary }, "an inserted model has a permanent identifier before the save")
        try context.save()

        let permanent = authors.map(\.persistentModelID) + [book.persistentModelID]
        #expect(permanent.allSatisfy { !$0.isTemporary }, "a saved model kept a temporary identifier")
        #expect(Set(permanent).count == permanent.count, "two saved models share an identifier")
        #expect(Set(permanent).isDisjoint(with: temporary), "a saved model kept its temporary identifier")
        #expect(permanent.allSatisfy { $0.storeIdentifier != nil }, "a saved identifier names no store")
        #expect(authors.allSatisfy { $0.persistentModelID.entityName == Schema.entityName(for: Author.self) })
        #expect(book.persistentModelID.entityName == Schema.entityName(for: Book.self))

        // Identifiers survive a later save, and new models never reuse one, even after deletes.
        authors[1].name = "Renamed"
        context.delete(authors[2])
        try context.save()
        #expect(authors[1].persistentModelID == permanent[1], "updating a model changed its identifier")
        let later = Author(name: "Later")
        context.insert(later)
        try context.save()
        #expect(!permanent.contains(later.persistentModelID), "a new model reused an identifier")

        let fetchedIDs = try harness.context(container).fetchIdentifiers(FetchDescriptor<Author>())
        #expect(Set(fetchedIDs) == Set(permanent.prefix(20)).subtracting([permanent[2]]).union([later.persistentModelID]))
        // The identifiers of a saved model's relationship point at saved models.
        #expect(try harness.context(container).one(Book.self, named: "Book").author?.persistentModelID == permanent[0])
    }

    static func oneObjectPerIdentifier(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let context = harness.context(container)
        let ada = Author(name: "Ada")
        ada.books = [Book(name: "Notes")]
        context.insert(ada)
        try context.save()

        let fetched = try context.fetch(FetchDescriptor<Author>())
        #expect(fetched.count == 1)
        #expect(fetched.first === ada, "fetch in the saving context returned another object")
        #expect(try context.fetch(FetchDescriptor<Author>()).first === ada, "a second fetch returned another object")
        #expect(context.registeredModel(for: ada.persistentModelID) as Author? === ada)
        #expect(context.model(for: ada.persistentModelID) === ada)
        let book = try #require(try context.fetch(FetchDescriptor<Book>()).first)
        #expect(book.author === ada, "a relationship resolved to another object")

        let other = harness.context(container)
        let first = try #require(try other.fetch(FetchDescriptor<Author>()).first)
        #expect(try other.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.name == "Ada" })).first === first)
        #expect(other.registeredModel(for: ada.persistentModelID) as Author? === first)
        #expect(other.model(for: ada.persistentModelID) === first)
        #expect(try other.fetch(FetchDescriptor<Book>()).first?.author === first)
        #expect(first.books.first?.author === first)
    }

    static func freshContextGivesNewObject(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let context = harness.context(container)
        let ada = Author(name: "Ada")
        context.insert(ada)
        try context.save()
        let id = ada.persistentModelID

        let fresh = harness.context(container)
        #expect(fresh.registeredModel(for: id) as Author? == nil, "a fresh context already holds the model")
        let looked = fresh.model(for: id)
        #expect(looked !== ada)
        #expect(looked.persistentModelID == id)
        #expect((looked as? Author)?.name == "Ada")
        #expect(fresh.registeredModel(for: id) as Author? === looked, "model(for:) did not register the model")
        let fetched = try #require(try fresh.fetch(FetchDescriptor<Author>()).first)
        #expect(fetched === looked)
        #expect(fetched.persistentModelID == id)
        #expect(fetched.modelContext === fresh)
        #expect(ada.modelContext === context)

        let third = harness.context(container)
        let again = try #require(try third.fetch(FetchDescriptor<Author>()).first)
        #expect(again !== fetched && again !== ada)
        #expect(again.persistentModelID == id)
        #expect(again.name == "Ada")
    }
}
