import Foundation
import StrataMemory
import Testing
@testable import StrataCore

/// A model of attributes only, the kind most fetched models are.
@Model final class Postcard {
    var title: String
    var city: String
    var sent: Date
    init(title: String, city: String, sent: Date) {
        self.title = title
        self.city = city
        self.sent = sent
    }
}

/// Every fetched model holds one slot per property, and every snapshot one value per
/// property, so their sizes are the framework's memory per model. A large payload (a
/// relationship collection's existential) stays out of line, boxed by `indirect`, so one
/// rare case does not widen every value (issue I: at 56 bytes a slot, 100k models cost
/// 1.5 KB each). An identifier is 17 bytes, its rare UUID and string keys boxed, so a to-one
/// relationship's value holds it inline rather than in a box allocated for each row.
@Suite struct MemoryLayoutTests {
    @Test func valuesAndSlotsStayThreeWords() {
        #expect(MemoryLayout<PersistentValue>.stride <= 24)
        #expect(MemoryLayout<BackingValue>.stride <= 24)
        #expect(MemoryLayout<ManagedSlot>.stride <= 24)
        // A model's slots that are not stored attribute values (`SlotStorage.others`).
        #expect(MemoryLayout<ManagedSlot?>.stride <= 24)
    }

    /// Every registered model holds its identifier, and the identity map keys by it; a
    /// to-one relationship's value holds one inline, which fits beside a decimal's 20 bytes.
    @Test func identifiersStayThreeWords() {
        #expect(MemoryLayout<PersistentIdentifier>.stride <= 24)
        #expect(MemoryLayout<PersistentIdentifier>.size <= MemoryLayout<Decimal>.size)
    }

    /// Identifiers hash as they compare: equal ones alike, and distinct ones apart though
    /// an integer key and its scope are mixed into one word before hashing — the same key
    /// in other stores and entities, temporary keys, UUID and string keys.
    @Test func identifiersHashAsTheyCompare() throws {
        func identifiers() throws -> [PersistentIdentifier] {
            var made: [PersistentIdentifier] = []
            for store in ["a.store", "b.store"] {
                for entity in ["Trip", "Item"] {
                    for key in Int64(-3)..<200 { made.append(try PersistentIdentifier.identifier(for: store, entityName: entity, primaryKey: key)) }
                    made.append(try PersistentIdentifier.identifier(for: store, entityName: entity, primaryKey: "key-1"))
                    let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
                    made.append(try PersistentIdentifier.identifier(for: store, entityName: entity, primaryKey: uuid))
                }
            }
            return made
        }
        let temporary = (0..<50).map { _ in PersistentIdentifier.temporary(entityName: "Trip") }
        let made = try identifiers() + temporary
        let again = try identifiers() + temporary
        for (a, b) in zip(made, again) {
            #expect(a == b && a.hashValue == b.hashValue)
        }
        #expect(Set(made).count == made.count)
        #expect(Set(made.map(\.hashValue)).count == made.count)
        // Tables hash with their own seeds: equal identifiers agree under each, and every
        // identifier finds its entry.
        for seed in [1, 12_345, -7] {
            for (a, b) in zip(made, again) { #expect(a._rawHashValue(seed: seed) == b._rawHashValue(seed: seed)) }
            #expect(Set(made.map { $0._rawHashValue(seed: seed) }).count == made.count)
        }
        let positions = Dictionary(uniqueKeysWithValues: made.enumerated().map { ($1, $0) })
        for (position, identifier) in again.enumerated() { #expect(positions[identifier] == position) }
    }

    /// A fetched model that is only read keeps no extras (slots kept apart, change
    /// tracking); a change makes them and a save drops them again.
    @Test func aModelThatIsOnlyReadHasNoExtras() throws {
        let container = try ModelContainer(for: Postcard.self, configurations: MemoryStoreConfiguration(name: "extras"))
        let writer = ModelContext(container)
        writer.insert(Postcard(title: "Lakes", city: "Bern", sent: Date(timeIntervalSince1970: 1_750_000_000)))
        try writer.save()
        let context = ModelContext(container)
        let card = try #require(try context.fetch(FetchDescriptor<Postcard>()).first)
        let data = try #require(card.persistentBackingData as? ManagedData)
        #expect(card.title == "Lakes" && card.city == "Bern")
        #expect(data.storage.extras == nil, "reading a fetched model made extras")
        card.city = "Thun"
        #expect(data.storage.extras?.changedSlots.isEmpty == false)
        try context.save()
        #expect(data.storage.extras == nil, "a save kept the change tracking")
        #expect(card.city == "Thun")
    }

    /// The backing data of a fetched model fits glibc's 96-byte allocation (88 usable bytes):
    /// its flags sit after the identifier, and its rarely used parts (the slots it keeps
    /// apart, the change tracking) behind a reference each.
    ///
    /// Reads the instance size the runtime allocates, not `malloc_usable_size` of the
    /// object: glibc hands out a larger free chunk when splitting it would leave too little,
    /// so the usable size depended on what the tests running alongside had freed.
    @Test func aFetchedModelsBackingDataFitsNinetySixBytes() throws {
        let container = try ModelContainer(for: Postcard.self, configurations: MemoryStoreConfiguration(name: "backing-size"))
        let writer = ModelContext(container)
        writer.insert(Postcard(title: "Lakes", city: "Bern", sent: Date(timeIntervalSince1970: 1_750_000_000)))
        try writer.save()
        let card = try #require(try ModelContext(container).fetch(FetchDescriptor<Postcard>()).first)
        let data = try #require(card.persistentBackingData as? ManagedData)
        #expect(instanceSize(type(of: data)) <= 88)
    }
}

/// The bytes the Swift runtime allocates for an instance of `type` (the standard library's
/// `_class_getInstancePositiveExtentSize`, which it exports but does not declare publicly).
@_silgen_name("$ss36_class_getInstancePositiveExtentSizeySiyXlXpF")
private func instanceSize(_ type: AnyClass) -> Int
