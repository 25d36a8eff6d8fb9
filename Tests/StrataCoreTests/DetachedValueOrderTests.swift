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

    /// A value written past the end reads back at once, the slots before it read as unset
    /// until they are written, and the slots written later land in place.
    @Test func valuesWrittenAheadReadBackAndTheGapsReadUnset() {
        let data = ManagedBackingData(for: Parcel.self)
        data.setValue(.attribute(.string("late")), at: 3)
        data.setValue(.attribute(.string("first")), at: 0)
        data.setValue(.attribute(.int(9)), at: 5)
        #expect(data.slotCount == 6)
        #expect(data.value(at: 0).attribute == .string("first"))
        #expect(data.value(at: 3).attribute == .string("late"))
        #expect(data.value(at: 5).attribute == .int(9))
        for gap in [1, 2, 4, 6] {
            guard case .unset = data.value(at: gap) else {
                Issue.record("slot \(gap) reads \(data.value(at: gap))")
                continue
            }
        }
        data.setValue(.attribute(.int(1)), at: 1)
        #expect(data.value(at: 1).attribute == .int(1))
        #expect(data.value(at: 3).attribute == .string("late"))
    }

    /// The insert of a model whose initial values were written ahead of the slots before
    /// them takes its backing data over in place and, every slot written by then, keeps
    /// only plain values: nothing kept apart is left for reads and saves to look at.
    @Test func anInsertTakesTheValuesOverInPlaceAndKeepsThemPlain() throws {
        let parcel = Parcel(sender: "Cy", weight: 2)
        let made = try #require(parcel.persistentBackingData as? ManagedBackingData<Parcel>)
        #expect(made.isUnadopted)
        let container = try ModelContainer(for: Parcel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(parcel)
        #expect(parcel.persistentBackingData === made)
        #expect(!made.isUnadopted && made.isInserted && made.context === context)
        #expect(made.storage.others == nil)
        #expect(parcel.sender == "Cy" && parcel.weight == 2 && parcel.note == "fragile" && parcel.labels == ["express"] && !parcel.insured)
        #expect(context.insertedModelsArray.count == 1)
    }
}
