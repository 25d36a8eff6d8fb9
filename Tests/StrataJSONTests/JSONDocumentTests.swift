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
}
