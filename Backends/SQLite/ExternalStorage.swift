import Foundation
import StrataCore

/// Files beside a store for `.externalStorage` data larger than ``threshold``: written
/// atomically under a fresh name, referenced from the row, removed with it.
struct ExternalStorage: Sendable {
    /// Data at least this large is stored in a file.
    static let threshold = 128 * 1024
    /// The prefix of a column value that names an external file.
    static let referencePrefix = "strata-external:"

    let directory: URL
    /// The permissions of the folder and files it creates.
    let permissions: StoreFilePermissions

    /// Writes `data` to a new file and returns the reference to keep in the column.
    ///
    /// - Throws: The file-system error.
    func store(_ data: Data) throws -> String {
        try StoreFiles.createDirectory(at: directory, permissions: permissions)
        let name = UUID().uuidString
        try StoreFiles.write(data, to: directory.appendingPathComponent(name), permissions: permissions)
        return Self.referencePrefix + name
    }

    /// The data a reference names.
    ///
    /// - Throws: ``SQLiteStoreError/missingExternalData(path:)``.
    func load(_ reference: String) throws -> Data {
        let url = try file(for: reference)
        guard let data = try? Data(contentsOf: url) else { throw SQLiteStoreError.missingExternalData(path: url.path) }
        return data
    }

    /// Removes the file a reference names, if it exists.
    func remove(_ reference: String) {
        guard let url = try? file(for: reference) else { return }
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes every external file.
    func removeAll() throws {
        if FileManager.default.fileExists(atPath: directory.path) {
            try FileManager.default.removeItem(at: directory)
        }
    }

    private func file(for reference: String) throws -> URL {
        let name = String(reference.dropFirst(Self.referencePrefix.count))
        guard reference.hasPrefix(Self.referencePrefix), UUID(uuidString: name) != nil else {
            throw SQLiteStoreError.missingExternalData(path: reference)
        }
        return directory.appendingPathComponent(name)
    }
}

extension SQLiteStore {
    /// `stored`, or the bytes of the external file it refers to when it is a reference.
    ///
    /// - Throws: ``SQLiteStoreError/missingExternalData(path:)``.
    func resolvingExternalReference(_ stored: SQLiteValue) throws -> SQLiteValue {
        guard case .text(let reference) = stored, reference.hasPrefix(ExternalStorage.referencePrefix), let externalStorage else {
            return stored
        }
        return .blob(try externalStorage.load(reference))
    }
}
