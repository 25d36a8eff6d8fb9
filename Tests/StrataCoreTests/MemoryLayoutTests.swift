import Foundation
import StrataMemory
import Testing
@testable import StrataCore

#if canImport(Glibc)
import Glibc
#endif

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
/// property, so their sizes are the framework's memory per model. A large payload (an
/// identifier is 25 bytes) stays out of line, boxed by `indirect`, so one rare case does
/// not widen every value (issue I: at 56 bytes a slot, 100k models cost 1.5 KB each).
@Suite struct MemoryLayoutTests {
    @Test func valuesAndSlotsStayThreeWords() {
        #expect(MemoryLayout<PersistentValue>.stride <= 24)
        #expect(MemoryLayout<BackingValue>.stride <= 24)
        #expect(MemoryLayout<ManagedSlot>.stride <= 24)
        // A model's slots that are not stored attribute values (`SlotStorage.others`).
        #expect(MemoryLayout<ManagedSlot?>.stride <= 24)
    }

    /// Every registered model holds its identifier, and the identity map keys by it.
    @Test func identifiersStayFourWords() {
        #expect(MemoryLayout<PersistentIdentifier>.stride <= 32)
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

    #if canImport(Glibc)
    /// The backing data of a fetched model fits glibc's 96-byte allocation (88 usable bytes):
    /// its flags sit after the identifier and its rarely used parts behind one reference.
    @Test func aFetchedModelsBackingDataFitsNinetySixBytes() throws {
        let container = try ModelContainer(for: Postcard.self, configurations: MemoryStoreConfiguration(name: "backing-size"))
        let writer = ModelContext(container)
        writer.insert(Postcard(title: "Lakes", city: "Bern", sent: Date(timeIntervalSince1970: 1_750_000_000)))
        try writer.save()
        let card = try #require(try ModelContext(container).fetch(FetchDescriptor<Postcard>()).first)
        let data = try #require(card.persistentBackingData as? ManagedData)
        // glibc's `malloc_usable_size`, which Swift's Glibc module does not import.
        let symbol = try #require(dlsym(nil, "malloc_usable_size"))
        let usableSize = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
        #expect(usableSize(Unmanaged.passUnretained(data).toOpaque()) <= 88)
    }
    #endif
}
