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

extension Array {
    /// Whether the two arrays are one buffer, and so equal: a test of two addresses, inline
    /// (a fetched row's property names against its entity's).
    @inline(__always)
    func sharesStorage(with other: Self) -> Bool {
        withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress && mine.count == theirs.count }
        }
    }
}

extension Array where Element: AnyKeyPath {
    /// The key paths as an `[AnyKeyPath]`, the same array, obtained without its type metadata.
    ///
    /// In code compiled once for every model type, `isEmpty` or `contains` on a descriptor's
    /// `[PartialKeyPath<T>]` is a call through `Collection` that first asks the runtime for
    /// the metadata of `PartialKeyPath<T>` and `[PartialKeyPath<T>]` and a witness table
    /// (about 900 instructions, a few times a fetch). Arrays of any key path class share one
    /// representation, so the array is read as one of `AnyKeyPath`, whose code is specialized.
    @inline(__always)
    package var asAnyKeyPaths: [AnyKeyPath] {
        unsafeBitCast(self, to: [AnyKeyPath].self)
    }
}
