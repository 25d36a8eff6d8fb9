import Foundation
import StrataCore

/// Migration plans on a JSON document run on a copy beside it, whose text then replaces the
/// document the way a save does: a temporary file, `fsync`, `rename`.
extension JSONStore {
    /// The schema the document records in its `schema` member; `nil` when there is no
    /// document, or it was written before documents recorded their schema.
    ///
    /// - Throws: ``JSONStoreError`` for a document that cannot be read or parsed.
    public static func storedSchema(for configuration: JSONStoreConfiguration) throws -> Schema? {
        let file = JSONDocumentFile(url: configuration.url, permissions: configuration.filePermissions)
        guard let (bytes, _) = try file.read() else { return nil }
        return try JSONStoreFormat.recordedSchema(try JSONDocument.parse(bytes, file: file.path))
    }

    /// Copies the document to `<file>.migrating-<random>` beside it.
    ///
    /// - Throws: The file-system error.
    public static func makeWorkingCopy(of configuration: JSONStoreConfiguration) throws -> JSONStoreConfiguration {
        let original = configuration.url
        let copy = original.deletingLastPathComponent()
            .appendingPathComponent("\(original.lastPathComponent).migrating-\(UUID().uuidString.prefix(8))")
        try FileManager.default.copyItem(at: original, to: copy)
        return JSONStoreConfiguration(name: configuration.name, schema: configuration.schema, url: copy)
    }

    /// Writes the migrated copy's text over the document atomically, then removes the copy.
    ///
    /// - Throws: ``JSONStoreError``; the document is then as it was.
    public static func replaceData(of configuration: JSONStoreConfiguration, withWorkingCopy copy: JSONStoreConfiguration) throws {
        guard var (bytes, _) = try JSONDocumentFile(url: copy.url).read() else {
            throw JSONStoreError.operationFailed(file: copy.url.path, operation: "open", errorNumber: ENOENT)
        }
        // `replace` ends the text with a line end of its own.
        while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        let file = JSONDocumentFile(url: configuration.url, permissions: configuration.filePermissions)
        let current = try file.currentIdentity()
        _ = try bytes.withUnsafeBytes { try file.replace(with: $0, expecting: current) }
        discardWorkingCopy(copy)
    }

    /// Removes a working copy.
    public static func discardWorkingCopy(_ copy: JSONStoreConfiguration) {
        try? FileManager.default.removeItem(at: copy.url)
    }
}
