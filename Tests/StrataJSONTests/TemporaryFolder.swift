import Foundation

/// A folder of its own for one test, removed with everything in it when the test ends.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "strata-json-tests-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The URL of `name` inside the folder.
    func file(_ name: String) -> URL { url.appending(path: name, directoryHint: .notDirectory) }

    /// The names of the folder's entries, hidden ones included, sorted.
    func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() }
}
