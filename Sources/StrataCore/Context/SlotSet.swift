/// A set of slot numbers as bits: the first 64 slots in one word, any beyond in more words.
///
/// A model's changed slots were a `Set<Int>`: a heap allocation and a hash per change, and
/// a sort when a save lists them. Slots are small dense numbers, so a word of bits holds
/// them with neither, and iterates them in increasing order.
struct SlotSet: Sequence, Equatable, ExpressibleByArrayLiteral {
    /// Slots 0 to 63.
    private var low: UInt64 = 0
    /// Slots from 64 on, 64 a word; empty for models of up to 64 properties.
    private var high: [UInt64] = []

    init() {}

    init(arrayLiteral slots: Int...) {
        for slot in slots { insert(slot) }
    }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    func contains(_ slot: Int) -> Bool {
        guard slot >= 0 else { return false }
        if slot < 64 { return low & (1 << UInt64(slot)) != 0 }
        let word = slot / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(slot % 64)) != 0
    }

    mutating func insert(_ slot: Int) {
        precondition(slot >= 0, "a slot number is never negative")
        if slot < 64 {
            low |= 1 << UInt64(slot)
            return
        }
        let word = slot / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word - high.count + 1)) }
        high[word] |= 1 << UInt64(slot % 64)
    }

    /// The lowest slot, if any.
    var first: Int? {
        var iterator = makeIterator()
        return iterator.next()
    }

    /// The slots in both sets.
    func intersection(_ other: SlotSet) -> SlotSet {
        var result = SlotSet()
        result.low = low & other.low
        result.high = zip(high, other.high).map { $0 & $1 }
        return result
    }

    static func == (lhs: SlotSet, rhs: SlotSet) -> Bool {
        guard lhs.low == rhs.low else { return false }
        let count = Swift.max(lhs.high.count, rhs.high.count)
        for index in 0..<count where (index < lhs.high.count ? lhs.high[index] : 0) != (index < rhs.high.count ? rhs.high[index] : 0) {
            return false
        }
        return true
    }

    /// The slots in increasing order.
    func makeIterator() -> Iterator { Iterator(low: low, high: high) }

    /// The slots of a ``SlotSet`` in increasing order.
    struct Iterator: IteratorProtocol {
        private let high: [UInt64]
        /// The word `bits` came from: -1 for the low word, else an index into `high`.
        private var word = -1
        private var bits: UInt64

        fileprivate init(low: UInt64, high: [UInt64]) {
            self.high = high
            bits = low
        }

        mutating func next() -> Int? {
            while bits == 0 {
                word += 1
                guard word < high.count else { return nil }
                bits = high[word]
            }
            let bit = bits.trailingZeroBitCount
            bits &= bits - 1
            return (word + 1) * 64 + bit
        }
    }
}
