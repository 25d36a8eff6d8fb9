import Foundation
import StrataCore

/// Creates the store's files and folders with the configuration's ``StoreFilePermissions``
/// (by default readable by their owner only, `0600` and `0700`), whatever the process's
/// umask: a store holds the app's data, often personal.
///
/// Files that exist keep the permissions they have. Names come from the configuration's URL
/// and from fresh UUIDs, never from model data.
enum StoreFiles {
    /// Creates `url` and the folders above it that are missing, with the folder mode of `permissions`.
    ///
    /// - Throws: The file-system error.
    static func createDirectory(at url: URL, permissions: StoreFilePermissions) throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(permissions.directoryMode)])
    }

    /// Creates an empty file at `url` with the file mode of `permissions`; an existing file is left as it is.
    ///
    /// - Throws: ``SQLiteStoreError/sqlite(_:message:sql:path:)`` with `cantOpen` when it cannot be created.
    static func createEmptyFile(at url: URL, permissions: StoreFilePermissions) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return }
            throw failure(url, "could not create the database file")
        }
        defer { close(descriptor) }
        // Exactly the mode asked for: `open` would take the umask's bits away.
        guard fchmod(descriptor, mode_t(permissions.fileMode)) == 0 else { throw failure(url, "could not set the database file's permissions") }
    }

    /// Writes `data` to a new file at `url` with the file mode of `permissions`, through a
    /// temporary file renamed into place, so the file is whole or absent.
    ///
    /// - Throws: ``SQLiteStoreError/sqlite(_:message:sql:path:)`` with `ioErr` when a step fails.
    static func write(_ data: Data, to url: URL, permissions: StoreFilePermissions) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).strata-write").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(url, "could not create an external data file") }
        guard fchmod(descriptor, mode_t(permissions.fileMode)) == 0 else {
            close(descriptor)
            unlink(temporary)
            throw failure(url, "could not set an external data file's permissions")
        }
        var written = false
        defer {
            if !written { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { throw failure(url, "could not write an external data file") }
                    offset += count
                }
            }
            guard fsync(descriptor) == 0 else { throw failure(url, "could not flush an external data file") }
        }
        guard rename(temporary, url.path) == 0 else { throw failure(url, "could not rename an external data file into place") }
        written = true
    }

    private static func failure(_ url: URL, _ what: String) -> SQLiteStoreError {
        let code: SQLiteStoreError.ResultCode = errno == EACCES || errno == ENOENT ? .cantOpen : .ioErr
        return .sqlite(code, message: "\(what): \(String(cString: strerror(errno)))", sql: nil, path: url.path)
    }
}

/// `write(2)`, named apart from ``StoreFiles/write(_:to:)``.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
