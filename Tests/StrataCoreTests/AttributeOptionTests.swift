import Foundation
import Strata
import StrataMemory
import Testing

struct PinPosition: Codable, Hashable {
    var latitude: Double
    var longitude: Double
}

@Model final class Pin {
    var name: String
    @Attribute(.ephemeral) var isSelected = false
    @Attribute(.ephemeral) var draft: String?
    @Attribute(.codable) var coordinates = PinPosition(latitude: 0, longitude: 0)
    var place = PinPosition(latitude: 0, longitude: 0)
    #Index<Pin>(.binary([\.name]), .rtree([\.place]))

    init(name: String) { self.name = name }
}

/// Attribute options as SwiftData apps use them.
@Suite struct AttributeOptionTests {
    @Test func ephemeralValuesAreTrackedButNotStored() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID()).store")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(for: Pin.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let pin = Pin(name: "Kyoto")
        context.insert(pin)
        try context.save()
        pin.isSelected = true
        pin.draft = "unsent note"
        #expect(context.hasChanges, "a change to an ephemeral attribute is not tracked")
        try context.save()
        #expect(pin.isSelected, "the saving context lost the ephemeral value")

        let reader = ModelContext(container)
        let stored = try #require(try reader.fetch(FetchDescriptor<Pin>()).first)
        // The R-tree index is accepted and recorded; SQLite builds only the binary one.
        #expect(Schema([Pin.self]).entitiesByName["Pin"]?.indexKinds == [.binary, .rtree])
        #expect(!stored.isSelected, "the ephemeral value was stored")
        #expect(stored.draft == nil, "the ephemeral value was stored")
    }

    @Test func codableAttributesAreStoredOpaque() throws {
        let schema = Schema([Pin.self])
        let entity = try #require(schema.entitiesByName["Pin"])
        #expect(!(entity.attributesByName["coordinates"] is Schema.CompositeAttribute), ".codable kept the struct's members")
        #expect(entity.attributesByName["place"] is Schema.CompositeAttribute)

        let container = try ModelContainer(for: schema, configurations: MemoryStoreConfiguration(name: "pins", schema: schema))
        let context = ModelContext(container)
        let pin = Pin(name: "Oslo")
        pin.coordinates = PinPosition(latitude: 59.9, longitude: 10.7)
        context.insert(pin)
        try context.save()
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Pin>()).first?.coordinates == PinPosition(latitude: 59.9, longitude: 10.7))
    }
}
