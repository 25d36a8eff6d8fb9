import Foundation
import Testing
@testable import StrataCore

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
}
