import Foundation
import StrataCore
import Testing

@testable import StrataJSON

/// Opening documents that are not JSON, are cut short or have the wrong shape: a typed error
/// naming the file (and the byte, where json-c gives one), and the file left as it was.
@Suite struct JSONStoreOpeningTests {
    /// Writes `text`, opens a store on it expecting a failure, and checks the file is untouched.
    static func openingFails(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONStoreError {
        let folder = try TemporaryFolder()
        let url = folder.file("trips.json")
        let bytes = Data(text.utf8)
        try bytes.write(to: url)
        let schema = Schema([Trip.self])
        let configuration = JSONStoreConfiguration(schema: schema, url: url)
        var failure: JSONStoreError?
        do {
            _ = try JSONStore(configuration, migrationPlan: nil)
            Issue.record("the store opened", sourceLocation: sourceLocation)
        } catch let error as JSONStoreError {
            failure = error
        }
        // Through a container too: the container fails, naming the file.
        #expect(sourceLocation: sourceLocation) {
            try ModelContainer(for: schema, configurations: configuration)
        } throws: { error in
            "\(error)".contains(url.path)
        }
        #expect(try Data(contentsOf: url) == bytes, "the file changed", sourceLocation: sourceLocation)
        #expect(try folder.entries() == ["trips.json"], sourceLocation: sourceLocation)
        return try #require(failure, sourceLocation: sourceLocation)
    }

    static let valid = #"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": []}}"#

    @Test func malformedJSONNamesTheFileAndByte() throws {
        let error = try Self.openingFails(#"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [}}"#)
        guard case .malformedDocument(let file, let offset, _) = error else { Issue.record("\(error)"); return }
        #expect(file.hasSuffix("trips.json"))
        #expect(offset == 68, "the offset is the 0-based position of the stray `}`")
        #expect(error.description.contains("at byte 68"))
    }

    @Test func aTruncatedDocumentIsReported() throws {
        let text = Self.valid
        let error = try Self.openingFails(String(text.prefix(text.count / 2)))
        guard case .malformedDocument(_, _, let reason) = error else { Issue.record("\(error)"); return }
        #expect(reason.contains("ends before"))
        let empty = try Self.openingFails("")
        guard case .malformedDocument = empty else { Issue.record("\(empty)"); return }
    }

    @Test func wrongShapesNameTheValue() throws {
        let cases: [(String, String)] = [
            ("[1, 2]", "the top level"),
            (#"{"entities": {}}"#, "format"),
            (#"{"format": "other", "formatVersion": 1, "entities": {}}"#, "format"),
            (#"{"format": "strata-json", "formatVersion": "1", "entities": {}}"#, "formatVersion"),
            (#"{"format": "strata-json", "formatVersion": 1}"#, "entities"),
            (#"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": {}}}"#, "entities.Trip"),
            (#"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [{"name": "x"}]}}"#, "entities.Trip[0].id"),
            (
                #"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [{"id": "1", "name": "x", "destination": "y", "startDate": "soon", "endDate": "2024-01-01T00:00:00Z"}]}}"#,
                "entities.Trip[0].startDate"
            ),
            (
                #"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [{"id": "1", "destination": "y", "startDate": "2024-01-01T00:00:00Z", "endDate": "2024-01-01T00:00:00Z"}]}}"#,
                "entities.Trip[0].name"
            ),
            (
                #"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [{"id": "1", "name": 5, "destination": "y", "startDate": "2024-01-01T00:00:00Z", "endDate": "2024-01-01T00:00:00Z"}]}}"#,
                "entities.Trip[0].name"
            ),
            (
                #"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [{"id": "1", "name": "a", "destination": "y", "startDate": "2024-01-01T00:00:00Z", "endDate": "2024-01-01T00:00:00Z", "bucketList": ["x"]}]}}"#,
                "entities.Trip[0].bucketList[0]"
            ),
            (
                #"{"format": "strata-json", "formatVersion": 1, "entities": {"Trip": [{"id": "1", "name": "a", "destination": "y", "startDate": "2024-01-01T00:00:00Z", "endDate": "2024-01-01T00:00:00Z"}, {"id": 1, "name": "b", "destination": "y", "startDate": "2024-01-01T00:00:00Z", "endDate": "2024-01-01T00:00:00Z"}]}}"#,
                "entities.Trip[1].id"
            ),
        ]
        for (text, path) in cases {
            let error = try Self.openingFails(text)
            guard case .wrongShape(let file, let reported, _) = error else {
                Issue.record("\(text) gave \(error)")
                continue
            }
            #expect(file.hasSuffix("trips.json"))
            #expect(reported == path, "\(text)")
        }
    }

    @Test func aNewerFormatVersionIsRefused() throws {
        let error = try Self.openingFails(#"{"format": "strata-json", "formatVersion": 2, "entities": {}}"#)
        #expect(error == .unsupportedFormatVersion(file: error.file, version: 2))
    }

    @Test func aURLThatIsNotAFileIsRefused() {
        let configuration = JSONStoreConfiguration(schema: Schema([Trip.self]), url: URL(string: "https://example.com/trips.json")!)
        #expect(throws: JSONStoreError.notAFileURL(url: "https://example.com/trips.json")) { try configuration.validate() }
    }
}

extension JSONStoreError {
    /// The file an error names.
    var file: String {
        switch self {
        case .malformedDocument(let file, _, _), .wrongShape(let file, _, _), .unsupportedFormatVersion(let file, _),
            .documentChangedOnDisk(let file),
            .unrepresentableValue(let file, _, _), .operationFailed(let file, _, _):
            file
        case .notAFileURL(let url): url
        }
    }
}
