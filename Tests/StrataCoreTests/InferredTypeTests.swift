import Foundation
import Strata
import StrataMemory
import Testing

// Models written as SwiftData apps write them: property types inferred from initial values.

@Model final class Conversation {
    var title = ""
    var count = 0
    var created = Date.now
    var tags = Set<String>()
    var scores = [Double]()
    var dialogues = [DialogueModel]()
    @Relationship(deleteRule: .cascade) var categories = [Category]()

    init(title: String) { self.title = title }
}

@Model final class DialogueModel {
    var line = ""
    var conversation: Conversation?

    init(line: String) { self.line = line }
}

@Model final class Category {
    var name = "General"

    init() {}
}

/// `@Model` takes each property's type from its initial value, as SwiftData does.
@Suite struct InferredTypeTests {
    @Test func inferredPropertiesAreStoredWithTheirTypes() throws {
        let schema = Schema([Conversation.self])
        let conversation = try #require(schema.entitiesByName["Conversation"])
        #expect(conversation.storedPropertyNames == ["title", "count", "created", "tags", "scores", "dialogues", "categories"])
        #expect(conversation.attributesByName["count"]?.valueType == Int.self)
        #expect(conversation.attributesByName["created"]?.valueType == Date.self)
        #expect(conversation.attributesByName["tags"]?.valueType == Set<String>.self)
        #expect(conversation.relationshipsByName["dialogues"]?.destination == "DialogueModel")
        #expect(conversation.relationshipsByName["categories"]?.deleteRule == .cascade)
        #expect(conversation.attributesByName["title"]?.defaultValue as? String == "")

        let container = try ModelContainer(for: schema, configurations: MemoryStoreConfiguration(name: "inferred", schema: schema))
        let context = ModelContext(container)
        let chat = Conversation(title: "Kyoto plans")
        chat.count = 3
        chat.tags = ["travel", "japan"]
        chat.scores = [0.5, 1]
        chat.dialogues = [DialogueModel(line: "Hello"), DialogueModel(line: "Hi")]
        chat.categories = [Category()]
        context.insert(chat)
        try context.save()

        #expect(try context.fetchCount(FetchDescriptor<DialogueModel>()) == 2)
        let reader = ModelContext(container)
        let fetched = try #require(try reader.fetch(FetchDescriptor<Conversation>()).first)
        #expect(fetched.title == "Kyoto plans")
        #expect(fetched.count == 3)
        #expect(fetched.tags == ["travel", "japan"])
        #expect(fetched.scores == [0.5, 1])
        #expect(Set(fetched.dialogues.map(\.line)) == ["Hello", "Hi"])
        #expect(fetched.categories.map(\.name) == ["General"])
        #expect(fetched.dialogues.first?.conversation === fetched, "the inferred inverse does not point back")
    }
}
