import Testing
@testable import StrataCore

/// A model's changed slots: bits in a word, and in more words past slot 63.
struct SlotSetTests {
    @Test func holdsSlotsOnBothSidesOfTheFirstWordInIncreasingOrder() {
        var slots = SlotSet()
        #expect(slots.isEmpty)
        for slot in [130, 3, 63, 64, 0, 3, 200] { slots.insert(slot) }
        #expect(!slots.isEmpty)
        #expect(Array(slots) == [0, 3, 63, 64, 130, 200])
        #expect(slots.contains(63) && slots.contains(64) && slots.contains(200))
        #expect(!slots.contains(1) && !slots.contains(65) && !slots.contains(199) && !slots.contains(500) && !slots.contains(-1))
    }

    @Test func intersectsAndComparesIgnoringEmptyHighWords() {
        let a: SlotSet = [1, 2, 70, 140]
        let b: SlotSet = [2, 70, 71]
        #expect(Array(a.intersection(b)) == [2, 70])
        #expect(a.intersection(b) == [2, 70])
        #expect(a.intersection(SlotSet()).isEmpty)
        // A set that once grew past 64 and one that never did compare by their slots.
        #expect(([5] as SlotSet).intersection([5, 100]) == [5])
        #expect(a != b)
        #expect(([] as SlotSet) == SlotSet())
    }
}
