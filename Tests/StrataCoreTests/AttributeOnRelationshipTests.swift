import Foundation
import Strata
import StrataMemory
import Testing

@Model final class Notebook {
    var title: String
    @Attribute(.spotlight) var owner: Writer?
    @Attribute(.unique) var cover: Cover?
    @Attribute(.externalStorage, .preserveValueOnDeletion) var pages: [Page] = []

    init(title: String) { self.title = title }
}

@Model final class Writer {
    var name: String
    init(name: String) { self.name = name }
}

@Model final class Cover {
    var color: String
    init(color: String) { self.color = color }
}

@Model final class Page {
    var text: String
    init(text: String) { self.text = text }
}

/// `@Attribute` on a relationship, as SwiftData apps write it: the container opens, the
/// options that mean something for a relationship apply, the others are ignored.
@Suite struct AttributeOnRelationshipTests {
    @Test func attributeOptionsOnRelationshipsAreAcceptedOrIgnored() throws {
        let schema = Schema([Notebook.self])
        try schema.validate()
        let notebook = try #require(schema.entitiesByName["Notebook"])
        #expect(notebook.relationshipsByName["owner"]?.options == [], ".spotlight was kept on a relationship")
        #expect(notebook.relationshipsByName["cover"]?.isUnique == true, ".unique on a to-one relationship was dropped")
        #expect(notebook.relationshipsByName["pages"]?.options == [])

        let container = try ModelContainer(for: schema, configurations: MemoryStoreConfiguration(name: "notebooks", schema: schema))
        let context = ModelContext(container)
        let book = Notebook(title: "Travel")
        book.owner = Writer(name: "Ada")
        book.pages = [Page(text: "Day one")]
        context.insert(book)
        try context.save()
        let reader = ModelContext(container)
        let fetched = try #require(try reader.fetch(FetchDescriptor<Notebook>()).first)
        #expect(fetched.owner?.name == "Ada")
        #expect(fetched.pages.map(\.text) == ["Day one"])
    }
}
