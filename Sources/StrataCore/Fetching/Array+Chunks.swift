extension Array {
    /// The array cut into consecutive slices of `size` elements, the last one shorter when
    /// the count is not a multiple of `size`: the batches of lookups, deletes and traversals.
    package func chunks(of size: Int) -> [ArraySlice<Element>] {
        precondition(size > 0, "a chunk holds at least one element")
        return stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

extension Array {
    /// Appends `other`, taking its storage when this array is empty rather than copying
    /// (and retaining) its elements one by one: outcomes of a save gathered from its parts.
    mutating func append(taking other: consuming [Element]) {
        if isEmpty {
            self = other
        } else {
            append(contentsOf: other)
        }
    }
}
