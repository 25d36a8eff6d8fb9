import Foundation
import Strata
@testable import StrataCore
import Testing

/// Properties with initial values are assigned before an initializer's body, out of slot
/// order; the initializer then assigns the others in whatever order it likes.
@Model final class Parcel {
    var sender: String
    var weight: Int
    var note: String? = "fragile"
    var labels: [String] = ["default"]
    var insured = false

    init(sender: String, weight: Int) {
        // Written back to front, and one initial value written over.
        self.weight = weight
        self.labels = ["express"]
        self.sender = sender
    }
}

@Suite struct DetachedValueOrderTests {
    @Test func valuesWrittenOutOfOrderReadBackBeforeAndAfterTheirSave() throws {
        let parcel = Parcel(sender: "Ana", weight: 3)
        #expect(parcel.sender == "Ana")
        #expect(parcel.weight == 3)
        #expect(parcel.note == "fragile")
        #expect(parcel.labels == ["express"])
        #expect(parcel.insured == false)

        let container = try ModelContainer(for: Parcel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(parcel)
        parcel.note = nil
        #expect(parcel.labels == ["express"])
        try context.save()

        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<Parcel>()).first)
        #expect(stored.sender == "Ana")
        #expect(stored.weight == 3)
        #expect(stored.note == nil)
        #expect(stored.labels == ["express"])
        #expect(stored.insured == false)
    }

    @Test func aModelWithOnlyInitialValuesInsertsThem() throws {
        let container = try ModelContainer(for: Parcel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let parcel = Parcel(sender: "Ben", weight: 1)
        parcel.insured = true
        context.insert(parcel)
        try context.save()
        let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<Parcel>()).first)
        #expect(stored.note == "fragile")
        #expect(stored.insured)
    }

    /// Values still kept aside when an insert takes the storage land in their slots, and
    /// the slots never written read as unset.
    @Test func takenStorageHoldsValuesWrittenAheadAndUnsetGaps() {
        let data = DetachedBackingData(for: Parcel.self)
        data.setValue(.attribute(.string("late")), at: 3)
        data.setValue(.attribute(.string("first")), at: 0)
        data.setValue(.attribute(.int(9)), at: 5)
        #expect(data.slotCount == 6)
        #expect(data.setSlots.map(\.0) == [0, 3, 5])
        let storage = data.takeStorage()
        #expect(storage.count == 6)
        #expect(storage.loadedValue(at: 0)?.attribute == .string("first"))
        #expect(storage.loadedValue(at: 3)?.attribute == .string("late"))
        #expect(storage.loadedValue(at: 5)?.attribute == .int(9))
        for gap in [1, 2, 4] {
            guard case .unset? = storage.loadedValue(at: gap) else {
                Issue.record("slot \(gap) reads \(String(describing: storage.loadedValue(at: gap)))")
                continue
            }
        }
        #expect(data.slotCount == 0)
    }
}
