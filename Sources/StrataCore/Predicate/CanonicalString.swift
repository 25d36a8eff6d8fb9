import Foundation

/// Swift's string semantics for predicates and sorts, in one place every store can call.
///
/// Swift's `==` holds for canonically equivalent strings: a precomposed `"ä"` equals `"a"`
/// followed by U+0308 COMBINING DIAERESIS. Its `<` orders by the Unicode scalars of the
/// strings' canonical (NFC) forms. A store whose engine compares bytes (SQLite, PostgreSQL)
/// registers these as its collation and functions, so that it selects and orders what
/// `FilterEvaluator`, and Swift, do.
///
/// ``compare(_:_:)`` is a total order. Swift's own `<` is not always one: where the
/// canonical form of one string is a prefix of the other's and the shorter one is not
/// stored in NFC, the standard library of Swift 6.3 answers `false` both ways, or the
/// reverse of its answer for the NFC form (`"A\u{308}" < "\u{C4}e"` and its reverse are
/// both `false`, though `"A\u{308}" == "\u{C4}"` and `"\u{C4}" < "\u{C4}e"`). A b-tree index
/// needs a total order, so Strata orders such pairs as Swift orders their NFC forms.
public enum CanonicalString {
    /// The order of `lhs` and `rhs`: `.orderedSame` exactly when Swift's `==` holds, otherwise
    /// as the Unicode scalars of their NFC forms order.
    public static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        var lhs = lhs, rhs = rhs
        let order = lhs.withUTF8 { a in rhs.withUTF8 { b in compare(utf8: UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) } }
        return ComparisonResult(rawValue: Int(order))!
    }

    /// ``compare(_:_:)`` for two UTF-8 buffers, as `-1`, `0` or `1`: a collation callback.
    ///
    /// Bytes decide without building strings where the first difference lies between two
    /// scalars below U+0300 (ASCII, Latin-1, Latin Extended, IPA), each followed by such a
    /// scalar or by the end. Those scalars never decompose or combine with a neighbour, so
    /// the NFC forms share everything before them and differ there first, and UTF-8 orders
    /// as the scalars it encodes. Otherwise both sides are normalised.
    ///
    /// Inlined into the collation callback an index search calls at every step: most keys it
    /// compares differ in their first eight bytes, between ASCII letters, and that case is
    /// decided first, from one word of each: when both words are ASCII and differ before
    /// their eighth byte, the byte after the first difference is ASCII in both (it cannot
    /// begin a combining mark), and the words read big-endian order as their bytes do.
    /// The collation callback takes 32 instructions a call on average where testing the
    /// differing byte and the one after it took 75 (an insert's name index compares about
    /// 13 keys a row). Everything else goes through the whole comparison.
    @inlinable @inline(__always)
    public static func compare(utf8 lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        compare(utf8: lhs.baseAddress, count: lhs.count, rhs.baseAddress, count: rhs.count)
    }

    /// ``compare(utf8:_:)`` for two UTF-8 strings given as their first byte and length, as
    /// a collation callback receives them: the lengths are tested before any buffer is
    /// made from them (about 10 instructions a call).
    @inlinable @inline(__always)
    public static func compare(utf8 lhs: UnsafeRawPointer?, count lhsCount: Int, _ rhs: UnsafeRawPointer?, count rhsCount: Int) -> Int32 {
        if lhsCount >= 8, rhsCount >= 8, let lhs, let rhs {
            let x = UInt64(littleEndian: lhs.loadUnaligned(as: UInt64.self))
            let y = UInt64(littleEndian: rhs.loadUnaligned(as: UInt64.self))
            if (x | y) & 0x8080_8080_8080_8080 == 0 {
                let a = x.byteSwapped, b = y.byteSwapped
                // The lowest byte of a big-endian word is the eighth: a difference above it
                // lies before it.
                if a ^ b > 0xFF { return a < b ? -1 : 1 }
            }
        }
        return compareWhole(utf8: UnsafeRawBufferPointer(start: lhs, count: lhsCount), UnsafeRawBufferPointer(start: rhs, count: rhsCount))
    }

    /// ``compare(utf8:_:)`` for any two buffers.
    @usableFromInline
    static func compareWhole(utf8 lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int32 {
        let common = min(lhs.count, rhs.count)
        var offset = 0
        if common > 0 {
            let a = lhs.baseAddress!, b = rhs.baseAddress!
            var differs = false
            while offset + 8 <= common {
                let x = UInt64(littleEndian: a.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let y = UInt64(littleEndian: b.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                if x != y {
                    // The lowest differing bit of the little-endian words lies in the first differing byte.
                    let shift = UInt64((x ^ y).trailingZeroBitCount & ~7)
                    offset += Int(shift &>> 3)
                    // Two ASCII bytes there, each followed by the end or by a byte that
                    // cannot begin a combining mark, decide as `stableOrder` would; read
                    // from the words already loaded (an index's keys mostly end here).
                    let p = UInt8(truncatingIfNeeded: x &>> shift), q = UInt8(truncatingIfNeeded: y &>> shift)
                    if p < 0x80 && q < 0x80 && (offset + 1 == lhs.count || lhs[offset + 1] < 0xCC)
                        && (offset + 1 == rhs.count || rhs[offset + 1] < 0xCC)
                    {
                        return p < q ? -1 : 1
                    }
                    differs = true
                    break
                }
                offset += 8
            }
            if !differs {
                while offset < common && lhs[offset] == rhs[offset] { offset += 1 }
            }
        }
        if offset == common {
            if lhs.count == rhs.count { return 0 }
            // One is a prefix of the other; it is the smaller unless what follows could combine.
            let (longer, order): (UnsafeRawBufferPointer, Int32) = lhs.count > rhs.count ? (lhs, 1) : (rhs, -1)
            if longer[offset] < 0xCC { return order }
        } else if let order = stableOrder(lhs, rhs, differingAt: offset) {
            return order
        }
        let a = String(decoding: lhs, as: UTF8.self).precomposedStringWithCanonicalMapping.utf8
        let b = String(decoding: rhs, as: UTF8.self).precomposedStringWithCanonicalMapping.utf8
        if a.elementsEqual(b) { return 0 }
        // UTF-8 bytes order as the scalars they encode.
        return a.lexicographicallyPrecedes(b) ? -1 : 1
    }

    /// The order of two UTF-8 buffers that first differ at `offset`, when the scalars there
    /// and the ones after them lie below U+0300; otherwise `nil`.
    @inline(__always)
    private static func stableOrder(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer, differingAt offset: Int) -> Int32? {
        let x = lhs[offset], y = rhs[offset]
        // The end of each differing scalar: a one-byte scalar, a lead byte C2...CB of a two-byte
        // one, or the continuation byte of a two-byte one whose shared lead byte is C2...CB.
        func end(_ byte: UInt8) -> Int? {
            if byte < 0x80 { return offset + 1 }
            if byte >= 0xC2 && byte <= 0xCB { return offset + 2 }
            if byte < 0xC0, offset > 0, lhs[offset - 1] >= 0xC2, lhs[offset - 1] <= 0xCB { return offset + 1 }
            return nil
        }
        guard let endX = end(x), let endY = end(y) else { return nil }
        if endX < lhs.count && lhs[endX] >= 0xCC { return nil }
        if endY < rhs.count && rhs[endY] >= 0xCC { return nil }
        return x < y ? -1 : 1
    }

    /// `base.starts(with: prefix)` as a predicate runs it: by `Character`, so `"a\u{308}b"`
    /// does not start with `"a"`, and `"\u{E4}b"` starts with `"a\u{308}"`.
    public static func starts(_ base: String, with prefix: String) -> Bool {
        if let result = withUTF8(base, prefix, byteStarts) { return result }
        return sequenceStarts(base, with: prefix)
    }

    /// `base.contains(other)` as a predicate runs it: by `Character`, so `"cafe\u{301}"` does
    /// not contain `"e"`. Every string contains the empty string.
    public static func contains(_ base: String, _ other: String) -> Bool {
        if let result = withUTF8(base, other, byteContains) { return result }
        return collectionContains(base, other)
    }

    /// ``starts(_:with:)`` for two UTF-8 buffers, as a SQL function runs it.
    ///
    /// Where every scalar lies below U+0300 and none is a carriage return (which `"\r\n"`
    /// joins into one `Character`), each scalar is a `Character` of its own, and the buffers
    /// are matched by their bytes.
    public static func starts(utf8 base: UnsafeRawBufferPointer, with prefix: UnsafeRawBufferPointer) -> Bool {
        if let result = byteStarts(base, prefix) { return result }
        return sequenceStarts(String(decoding: base, as: UTF8.self), with: String(decoding: prefix, as: UTF8.self))
    }

    /// ``contains(_:_:)`` for two UTF-8 buffers, as a SQL function runs it.
    ///
    /// Where every scalar lies below U+0300 and none is a carriage return, the buffers are
    /// searched by their bytes: a match of whole UTF-8 sequences starts and ends on scalars.
    public static func contains(utf8 base: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool {
        if let result = byteContains(base, other) { return result }
        return collectionContains(String(decoding: base, as: UTF8.self), String(decoding: other, as: UTF8.self))
    }

    // MARK: Helpers

    /// `body` on the UTF-8 of two strings, without copying native ones.
    ///
    /// The predicate evaluator's `contains` took ~12,000 instructions a call through the
    /// standard library's `Character` search (twice Foundation's `range(of:)`); on the bytes of
    /// precomposed text it is a plain search.
    private static func withUTF8(
        _ first: String, _ second: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Bool?
    ) -> Bool? {
        var first = first, second = second
        return first.withUTF8 { a in second.withUTF8 { b in body(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) } }
    }

    /// Whether `base` starts with `prefix`, matched by bytes; `nil` unless both are precomposed
    /// text without carriage returns, where each scalar is a `Character` of its own.
    @inline(__always)
    private static func byteStarts(_ base: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer) -> Bool? {
        guard isPrecomposed(base, allowingCarriageReturn: false) && isPrecomposed(prefix, allowingCarriageReturn: false) else { return nil }
        guard prefix.count <= base.count else { return false }
        guard prefix.count > 0, let a = base.baseAddress, let b = prefix.baseAddress else { return true }
        return memcmp(a, b, prefix.count) == 0
    }

    /// Whether `base` contains `other`, searched by bytes (a match of whole UTF-8 sequences
    /// starts and ends on scalars); `nil` unless both are precomposed text without carriage returns.
    @inline(__always)
    private static func byteContains(_ base: UnsafeRawBufferPointer, _ other: UnsafeRawBufferPointer) -> Bool? {
        guard isPrecomposed(base, allowingCarriageReturn: false) && isPrecomposed(other, allowingCarriageReturn: false) else { return nil }
        guard other.count > 0 else { return true }
        guard other.count <= base.count else { return false }
        // Candidates found by the C library's `memchr` (vectorised), each then compared,
        // rather than a Swift loop over every byte.
        let needle = other.baseAddress!, first = Int32(other[0])
        var cursor = base.baseAddress!
        let end = cursor + (base.count - other.count + 1)  // past the last place a match can start
        while cursor < end, let found = memchr(cursor, first, end - cursor) {
            if memcmp(found, needle, other.count) == 0 { return true }
            cursor = UnsafeRawPointer(found) + 1
        }
        return false
    }

    /// `contains` as `PredicateExpressions.CollectionContainsCollection` calls it: generically, by `Character`.
    private static func collectionContains<C: Collection>(_ base: C, _ other: C) -> Bool where C.Element: Equatable {
        base.contains(other)
    }

    /// `starts(with:)` as `PredicateExpressions.SequenceStartsWith` calls it: generically, by `Character`.
    private static func sequenceStarts<S: Sequence>(_ base: S, with prefix: S) -> Bool where S.Element: Equatable {
        base.starts(with: prefix)
    }

    /// Whether every scalar of the UTF-8 `bytes` lies below U+0300 (no byte is `0xCC` or
    /// above; U+0300 is `CC 80`), and, unless allowed, none is a carriage return.
    ///
    /// Below U+0300 no scalar decomposes, combines or extends a grapheme, so such text is in
    /// NFC and each scalar but `"\r"` before `"\n"` is one `Character`. ASCII is checked
    /// eight bytes at a time.
    @inline(__always)
    private static func isPrecomposed(_ bytes: UnsafeRawBufferPointer, allowingCarriageReturn: Bool) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var offset = 0
        while offset + 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            if !allowingCarriageReturn {
                let crs = word ^ 0x0D0D_0D0D_0D0D_0D0D  // a zero byte where the word holds "\r"
                if (crs &- 0x0101_0101_0101_0101) & ~crs & 0x8080_8080_8080_8080 != 0 { return false }
            }
            offset += 8
        }
        while offset < count {
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            if byte >= 0xCC || (byte == 0x0D && !allowingCarriageReturn) { return false }
            offset += 1
        }
        return true
    }
}
