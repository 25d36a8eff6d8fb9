import Testing

@testable import StrataCore

/// `sharesStorage(with:)`, the fetch's first test that a row's property names are its
/// entity's: only one buffer counts, so equal names in another buffer go on to `==`.
@Suite struct SharedStorageTests {
    @Test func onlyOneBufferCountsAsShared() {
        let names = ["name", "destination", "budget"]
        let copy = names
        #expect(names.sharesStorage(with: copy))

        var rebuilt = names
        rebuilt.append("extra")
        rebuilt.removeLast()
        #expect(rebuilt == names)
        #expect(!names.sharesStorage(with: rebuilt))

        #expect(!names.sharesStorage(with: Array(names.dropLast())))
        #expect([String]().sharesStorage(with: []))
    }
}
