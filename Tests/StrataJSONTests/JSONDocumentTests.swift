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

    /// The writer lays a document out byte for byte as json-c's printer lays out the same
    /// document parsed: escapes, numbers, empty and nested containers, nested JSON at depth.
    @Test func writtenDocumentsAreLaidOutAsJSONCLaysThemOut() throws {
        let writer = JSONTextWriter(file: "built.json")
        let root = writer.rootNode
        try writer.add(.string("a/b \"c\" \\ \u{8}\u{C}\n\r\t\u{1}\u{1F}\u{7F} é 🚂 \u{0}"), forKey: writer.key("text"), to: root)
        try writer.add(.double(0.1, text: "0.1"), forKey: writer.key("ratio"), to: root)
        try writer.add(.unsigned(.max), forKey: writer.key("big"), to: root)
        try writer.add(.int(.min), forKey: writer.key("small"), to: root)
        try writer.add(.bool(false), forKey: writer.key("key \"quoted\"\n"), to: root)
        let list = try writer.add(.array, forKey: writer.key("list"), to: root)
        try writer.append(.null, to: list)
        try writer.append(.json(Array("5".utf8)), to: list)
        try writer.append(.array, to: list)
        let inner = try writer.append(.object, to: list)
        try writer.add(.object, forKey: writer.key("empty"), to: inner)
        try writer.add(.json(Array(#"{"z": [1, 2.50, {"deep": []}], "a": "x\/y"}"#.utf8)), forKey: writer.key("nested"), to: inner)
        try writer.add(.json(Array(#"{"z": [1, 2.50], "a": "x"}"#.utf8)), forKey: writer.key("nested"), to: root)
        let written = try writer.withSerialized { Array($0) }
        let relaid = try JSONDocument.parse(written, file: "built.json").withSerialized { Array($0) }
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: relaid, as: UTF8.self))
        #expect(String(decoding: written, as: UTF8.self).hasPrefix("{\n  \"text\": \"a/b \\\"c\\\" \\\\ \\b\\f\\n\\r\\t\\u0001\\u001f\u{7F} é 🚂 \\u0000\",\n  \"ratio\": 0.1,"))
        #expect(String(decoding: written, as: UTF8.self).hasSuffix("\n      }\n    }\n  ],\n  \"nested\": {\n    \"z\": [\n      1,\n      2.50\n    ],\n    \"a\": \"x\"\n  }\n}"))
        let broken = JSONTextWriter(file: "broken.json")
        #expect(throws: JSONStoreError.self) { try broken.add(.json(Array("{".utf8)), forKey: broken.key("broken"), to: broken.rootNode) }
    }

    @Test func anEmptyWrittenDocumentIsAnEmptyObject() throws {
        let written = try JSONTextWriter(file: "empty.json").withSerialized { String(decoding: $0, as: UTF8.self) }
        #expect(written == "{\n}")
        #expect(try JSONDocument.parse(Array(written.utf8), file: "empty.json").withSerialized { String(decoding: $0, as: UTF8.self) } == written)
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
