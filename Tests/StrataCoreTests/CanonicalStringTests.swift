import Foundation
import Testing

@testable import StrataCore

/// ``CanonicalString`` answers as Swift does, on its byte fast paths and off them.
@Suite struct CanonicalStringTests {
    /// Pieces from both sides of the fast paths' bounds: ASCII, Latin-1 and Latin Extended
    /// (below U+0300), combining marks, look-alikes, `"\r\n"` and scripts far above.
    static let atoms = [
        "a", "A", "b", "e", "z", "9", " ", "\r", "\n", "\r\n", "\u{0}", "\u{E4}", "\u{E9}", "\u{C5}", "\u{17E}", "\u{2AF}", "\u{2FF}",
        "\u{300}", "\u{301}", "\u{308}", "\u{30A}", "\u{212B}", "\u{1E69}", "\u{FB01}", "\u{65E5}", "\u{1F44D}", "\u{1F3FD}",
        "abcdefgh", "ABCDEFGHIJ",
    ]

    /// The empty string, every atom, and every pair and some triples of atoms.
    static let strings: [String] = [""] + atoms + atoms.flatMap { a in atoms.map { a + $0 } }
        + atoms.indices.map { atoms[$0] + atoms[($0 * 7 + 3) % atoms.count] + atoms[($0 * 5 + 1) % atoms.count] }

    /// Every 11th string: the other sides of the pairs checked.
    static let others = stride(from: 0, to: strings.count, by: 11).map { strings[$0] }

    static func utf8<R>(_ a: String, _ b: String, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in body(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
    }

    @Test func equalityIsSwiftsAndOrderIsTheNFCFormsScalarOrder() {
        for a in Self.strings {
            for b in Self.others {
                let order = CanonicalString.compare(a, b)
                #expect((order == .orderedSame) == (a == b), "\(a.debugDescription) vs \(b.debugDescription)")
                let nfcA = a.precomposedStringWithCanonicalMapping, nfcB = b.precomposedStringWithCanonicalMapping
                let expected: ComparisonResult = nfcA == nfcB ? .orderedSame : Array(nfcA.unicodeScalars.map(\.value)).lexicographicallyPrecedes(nfcB.unicodeScalars.map(\.value)) ? .orderedAscending : .orderedDescending
                #expect(order == expected, "\(a.debugDescription) vs \(b.debugDescription)")
                #expect(Self.utf8(a, b, CanonicalString.compare(utf8:_:)) == Int32(order.rawValue))
            }
        }
    }

    /// Strings of eight bytes or more that first differ within their first eight: the
    /// bytes decide there only when no combining mark follows either differing byte, also
    /// where the eighth byte differs and the string ends there or goes on.
    @Test func theFirstWordDecidesOnlyBeforeNoCombiningMark() {
        let ends = ["", "x", "\u{301}", "\u{308}z", "\u{E9}", "\u{FB01}", "\u{1F44D}"]
        var strings: [String] = []
        for head in ["abc", "abcdef", "abcdefg"] {
            for differing in ["a", "b", "e", "A"] {
                for end in ends { strings.append(head + differing + end + "tail") }
                strings.append(head + differing)
                for end in ends { strings.append(head + differing + end) }
            }
        }
        for a in strings {
            for b in strings {
                let nfcA = a.precomposedStringWithCanonicalMapping, nfcB = b.precomposedStringWithCanonicalMapping
                let expected: Int32 = nfcA == nfcB ? 0 : nfcA.unicodeScalars.map(\.value).lexicographicallyPrecedes(nfcB.unicodeScalars.map(\.value)) ? -1 : 1
                #expect(Self.utf8(a, b, CanonicalString.compare(utf8:_:)) == expected, "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
    }

    @Test func theOrderIsTotalWhereSwiftsIsNot() {
        // Swift 6.3's `<` answers false both ways here, though "A\u{308}" == "\u{C4}" < "\u{C4}e".
        #expect(CanonicalString.compare("A\u{308}", "\u{C4}e") == .orderedAscending)
        #expect(CanonicalString.compare("\u{C4}e", "A\u{308}") == .orderedDescending)
        #expect(CanonicalString.compare("A\u{308}", "\u{C4}") == .orderedSame)
    }

    @Test func prefixesAndContainmentGoByCharacter() {
        for a in Self.strings {
            for b in Self.others {
                #expect(CanonicalString.starts(a, with: b) == a.starts(with: b), "\(a.debugDescription) starts with \(b.debugDescription)")
                #expect(Self.utf8(a, b, CanonicalString.starts(utf8:with:)) == a.starts(with: b), "\(a.debugDescription) starts with \(b.debugDescription)")
                let contained = Self.contains(a, b)
                #expect(CanonicalString.contains(a, b) == contained, "\(a.debugDescription) contains \(b.debugDescription)")
                #expect(Self.utf8(a, b, CanonicalString.contains(utf8:_:)) == contained, "\(a.debugDescription) contains \(b.debugDescription)")
            }
        }
        #expect(!CanonicalString.starts("a\u{308}b", with: "a"))
        #expect(CanonicalString.starts("\u{E4}b", with: "a\u{308}"))
        #expect(!CanonicalString.contains("x\r\ny", "\r"))
        #expect(!CanonicalString.contains("cafe\u{301}", "e"))
    }

    /// Swift's `contains` of a sub-collection, by `Character`, as `#Predicate` calls it.
    static func contains<C: Collection>(_ base: C, _ other: C) -> Bool where C.Element: Equatable { base.contains(other) }
}
