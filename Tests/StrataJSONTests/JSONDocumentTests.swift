import Testing

@testable import StrataJSON

@Suite struct JSONDocumentTests {
    @Test func parsesAnObjectAndListsItsKeysInOrder() throws {
        let document = try JSONDocument.parse(Array(#"{"format": "strata", "entities": {}, "b": 1}"#.utf8), file: "a.json")
        #expect(document.isObject)
        #expect(document.topLevelKeys == ["format", "entities", "b"])
    }

    @Test func malformedDocumentNamesTheFileAndOffset() {
        let text = #"{"format": "strata", "entities": [1, 2,, 3]}"#
        #expect {
            try JSONDocument.parse(Array(text.utf8), file: "trips.json")
        } throws: { error in
            guard case .malformedDocument(let file, let offset, _) = error as? JSONStoreError else { return false }
            return file == "trips.json" && offset == 39
        }
    }

    @Test func truncatedDocumentIsReported() {
        #expect {
            try JSONDocument.parse(Array(#"{"format": "str"#.utf8), file: "cut.json")
        } throws: { error in
            guard case .malformedDocument(_, _, let reason) = error as? JSONStoreError else { return false }
            return reason.contains("ends before")
        }
    }

    @Test func trailingGarbageIsReported() {
        #expect(throws: JSONStoreError.self) {
            try JSONDocument.parse(Array("{} {}".utf8), file: "two.json")
        }
    }

    @Test func arrayAtTheTopLevelIsNotAnObject() throws {
        let document = try JSONDocument.parse(Array("[1, 2]".utf8), file: "array.json")
        #expect(!document.isObject)
        #expect(document.topLevelKeys.isEmpty)
    }

    @Test func parsingRefusesCommentsAndTrailingCommas() {
        for text in [#"{"a": 1,}"#, "{/* note */}", "[1, 2,]", "{\"a\": 1} // done"] {
            #expect(throws: JSONStoreError.self, "\(text) was accepted") { try JSONDocument.parse(Array(text.utf8), file: "strict.json") }
        }
    }

    @Test func invalidUTF8IsReported() {
        let bytes: [UInt8] = Array(#"{"name": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect(throws: JSONStoreError.self) { try JSONDocument.parse(bytes, file: "latin1.json") }
    }

    @Test func builtDocumentsSerializePrettyOrPlain() throws {
        let document = try JSONDocument.emptyObject(file: "built.json")
        let root = document.rootNode
        try document.add(.string("a/b \"c\""), forKey: document.key("text"), to: root)
        try document.add(.double(0.1, text: "0.1"), forKey: document.key("ratio"), to: root)
        try document.add(.unsigned(.max), forKey: document.key("big"), to: root)
        let list = try document.add(.array(capacity: 2), forKey: document.key("list"), to: root)
        try document.append(.null, to: list)
        try document.append(.json(Array("5".utf8)), to: list)
        try document.add(.json(Array(#"{"z": [1, 2.50], "a": "x"}"#.utf8)), forKey: document.key("nested"), to: root)
        let plain = try document.withSerialized(pretty: false) { String(decoding: $0, as: UTF8.self) }
        #expect(plain == #"{"text":"a/b \"c\"","ratio":0.1,"big":18446744073709551615,"list":[null,5],"nested":{"z":[1,2.50],"a":"x"}}"#)
        let pretty = try document.withSerialized(pretty: true) { String(decoding: $0, as: UTF8.self) }
        #expect(pretty.hasPrefix("{\n  \"text\": \"a/b \\\"c\\\"\",\n  \"ratio\": 0.1,"))
    }

    @Test func nodesReadScalarsAndMembersInOrder() throws {
        let document = try JSONDocument.parse(Array(#"{"b": true, "i": -9223372036854775808, "u": 18446744073709551615, "d": 2.5, "s": "x\u0000y", "n": null}"#.utf8), file: "n.json")
        let root = document.rootNode  // borrowed: the document is used again below
        #expect(root.member("b")?.bool == true)
        #expect(root.member("i")?.int64 == .min)
        #expect(root.member("u")?.int64 == nil, "an integer above Int64.max read as signed")
        #expect(root.member("u")?.uint64 == .max)
        #expect(root.member("i")?.uint64 == nil, "a negative integer read as unsigned")
        #expect(root.member("d")?.double == 2.5)
        #expect(root.member("s")?.string == "x\u{0}y")
        #expect(root.member("n")?.isNull == true)
        #expect(root.member("missing") == nil)
        #expect(document.topLevelKeys == ["b", "i", "u", "d", "s", "n"])
    }
}
