import Foundation
import StrataCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The document's file on disk: reading it, recognising it again, and replacing it atomically.
///
/// A replacement writes `.<name>.strata-save` in the same folder, `fsync`s it, renames it
/// over the document and `fsync`s the folder, all while holding an exclusive `flock` on the
/// folder so two Strata processes never interleave their check and rename. A crash at any
/// point leaves the old or the new document whole; a leftover save file is removed by the
/// next save.
struct JSONDocumentFile: Sendable {
    /// What identifies one version of the file: a rewrite or an edit changes at least one field.
    struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modificationSeconds: Int64
        var modificationNanoseconds: Int64
    }

    /// The document's path.
    let path: String
    /// The folder holding it.
    let directory: String
    /// The file name of the temporary file a save writes before renaming it over the document.
    let temporaryName: String

    /// Who may read a new document and the folders made for it.
    let permissions: StoreFilePermissions

    init(url: URL, permissions: StoreFilePermissions = .ownerOnly) {
        self.permissions = permissions
        let path = url.path
        let lastSlash = path.lastIndex(of: "/")
        self.path = path
        directory = lastSlash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fileName = lastSlash.map { String(path[path.index(after: $0)...]) } ?? path
        temporaryName = ".\(fileName).strata-save"
    }

    /// The path of the temporary file a save writes.
    var temporaryPath: String { directory == "/" ? "/" + temporaryName : directory + "/" + temporaryName }

    /// The file's bytes and identity, or `nil` when there is no file.
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when it cannot be read.
    func read() throws -> (bytes: [UInt8], identity: Identity)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 && errno == ENOENT { return nil }
        try check(descriptor, file: path, "open")
        defer { close(descriptor) }
        var info = stat()
        try check(fstat(descriptor, &info), file: path, "fstat")
        // A byte more than the file holds: the read that finds the end then needs no larger
        // buffer (growing one copied the whole text into one half again as large).
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var filled = 0
        while true {
            if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(4096, bytes.count / 2))) }
            let count = bytes.withUnsafeMutableBytes { buffer in
                systemRead(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            try check(count, file: path, "read")
            if count == 0 { break }
            filled += count
        }
        bytes.removeSubrange(filled...)
        return (bytes, Self.identity(of: info))
    }

    /// The identity of the file now, or `nil` when there is none.
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when `stat` fails otherwise.
    func currentIdentity() throws -> Identity? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return nil }
            try check(Int32(-1), file: path, "stat")
        }
        return Self.identity(of: info)
    }

    /// The line end written after the document's text.
    private static var newline: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: StaticString("\n").utf8Start, count: 1) }

    /// Replaces the document with `bytes` and a final line end, provided the file on disk is still the version
    /// `expected` (`nil`: no file), and returns the new version's identity.
    ///
    /// - Throws: ``JSONStoreError/documentChangedOnDisk(file:)`` when the file changed;
    ///   ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when a step fails,
    ///   leaving the old document in place and no temporary file behind.
    func replace(with bytes: UnsafeRawBufferPointer, expecting expected: Identity?) throws -> Identity {
        try withLockedDirectory { folder in
            guard try currentIdentity() == expected else { throw JSONStoreError.documentChangedOnDisk(file: path) }
            var existing = stat()
            let mode = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : mode_t(permissions.fileMode)
            let temporary = temporaryPath
            // A save that crashed may have left its file; this save owns the name now.
            if unlink(temporary) != 0 && errno != ENOENT { try check(Int32(-1), file: temporary, "unlink") }
            let descriptor = try check(open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600), file: temporary, "open")
            var isOpen = true
            var written = false
            defer {
                if isOpen { close(descriptor) }
                if !written { unlink(temporary) }
            }
            do {
                // The new version keeps the permissions of the one it replaces; a new document
                // gets the configuration's (0600 unless set), whatever the umask.
                try check(fchmod(descriptor, mode), file: temporary, "fchmod")
                for part in [bytes, Self.newline] {
                    var offset = 0
                    while offset < part.count {
                        let count = systemWrite(descriptor, part.baseAddress! + offset, part.count - offset)
                        if count < 0 && errno == EINTR { continue }
                        try check(count, file: temporary, "write")
                        offset += count
                    }
                }
                try check(fsync(descriptor), file: temporary, "fsync")
                isOpen = false
                try check(close(descriptor), file: temporary, "close")
            }
            try check(rename(temporary, path), file: path, "rename")
            written = true
            try check(fsync(folder), file: directory, "fsync")
            guard let identity = try currentIdentity() else {
                throw JSONStoreError.operationFailed(file: path, operation: "stat after rename", errorNumber: ENOENT)
            }
            return identity
        }
    }

    /// Removes the document (a missing one is fine).
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when it cannot be removed.
    func remove() throws {
        try withLockedDirectory { folder in
            if unlink(path) != 0 && errno != ENOENT { try check(Int32(-1), file: path, "unlink") }
            try check(fsync(folder), file: directory, "fsync")
        }
    }

    /// Runs `body` with the folder open and exclusively locked against other Strata saves.
    private func withLockedDirectory<R>(_ body: (Int32) throws -> R) throws -> R {
        if access(directory, F_OK) != 0 {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(permissions.directoryMode)])
        }
        let folder = try check(open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC), file: directory, "open")
        defer { close(folder) }
        while flock(folder, LOCK_EX) != 0 {
            if errno != EINTR { try check(Int32(-1), file: directory, "flock") }
        }
        return try body(folder)
    }

    private static func identity(of info: stat) -> Identity {
        #if canImport(Darwin)
        let modification = info.st_mtimespec
        #else
        let modification = info.st_mtim
        #endif
        return Identity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modificationSeconds: Int64(modification.tv_sec), modificationNanoseconds: Int64(modification.tv_nsec))
    }
}

/// `read(2)`, named apart from ``JSONDocumentFile/read()``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
