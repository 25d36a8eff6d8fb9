import Foundation
import StrataCore

/// Migration plans on a SQLite store run on a copy of the database made with `VACUUM INTO`
/// beside the original, which a `rename` puts in place once every stage succeeded.
///
/// Run a migration while no other process has the store open: the original's write-ahead
/// log is checkpointed before the copy is made, and the migration refuses to replace a
/// database that someone wrote to meanwhile.
extension SQLiteStore {
    /// The schema recorded in the database; `nil` for an in-memory configuration, a missing
    /// or empty file. The connection that reads it is read-only only for an `allowsSave: false`
    /// configuration: a read-only connection to a WAL database leaves `-wal` and `-shm` files
    /// behind, which a writable one removes when it closes.
    ///
    /// - Throws: ``SQLiteStoreError/notADatabase(path:)``, ``SQLiteStoreError/foreignDatabase(path:tables:)``,
    ///   ``SwiftDataError/unknownSchema`` for an unreadable record, or ``SQLiteStoreError``.
    public static func storedSchema(for configuration: ModelConfiguration) throws -> Schema? {
        guard !configuration.isStoredInMemoryOnly, FileManager.default.fileExists(atPath: configuration.url.path) else { return nil }
        try checkHeader(configuration.url)
        let connection = try SQLiteConnection(path: configuration.url.path, readOnly: !configuration.allowsSave)
        try connection.execute("PRAGMA busy_timeout = 5000")
        return try SQLiteMetadata.storedSchema(connection, path: configuration.url.path)
    }

    /// Copies the database, with the committed contents of its write-ahead log, and its
    /// externally stored files, to `<file>.migrating-<random>` beside it.
    ///
    /// - Throws: ``SQLiteStoreError`` when the copy cannot be made; the original's contents
    ///   are unchanged (its log may have been checkpointed into it).
    public static func makeWorkingCopy(of configuration: ModelConfiguration) throws -> ModelConfiguration {
        let original = configuration.url
        let copy = original.deletingLastPathComponent()
            .appendingPathComponent("\(original.lastPathComponent).migrating-\(UUID().uuidString.prefix(8))")
        do {
            let connection = try SQLiteConnection(path: original.path)
            try connection.execute("PRAGMA busy_timeout = 5000")
            _ = try connection.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
            // The copy replaces the original, so it takes the original's permissions; until
            // then it is the owner's only (VACUUM INTO fills an empty file).
            try StoreFiles.createEmptyFile(at: copy, permissions: .ownerOnly)
            try connection.execute("VACUUM INTO '\(copy.path.replacingOccurrences(of: "'", with: "''"))'")
            var info = stat()
            if stat(original.path, &info) == 0 { chmod(copy.path, info.st_mode & 0o7777) }
            let externals = externalDirectory(of: original)
            if FileManager.default.fileExists(atPath: externals.path) {
                try FileManager.default.copyItem(at: externals, to: externalDirectory(of: copy))
            }
        } catch {
            discardFiles(at: copy)
            throw error
        }
        return ModelConfiguration(configuration.name, schema: configuration.schema, url: copy, allowsSave: true)
    }

    /// Puts the migrated copy in place of the database: new external files are moved in
    /// first, then the copy is renamed over the original (the step that commits), then the
    /// external files the migration deleted are removed.
    ///
    /// - Throws: ``SQLiteStoreError/sqlite(_:message:sql:path:)`` (`busy`) when the original's
    ///   write-ahead log holds commits made during the migration, or the file-system error;
    ///   the original is then as it was.
    public static func replaceData(of configuration: ModelConfiguration, withWorkingCopy copy: ModelConfiguration) throws {
        let manager = FileManager.default
        let original = configuration.url
        // Fold the copy's log into it and leave rollback-journal mode, so that the renamed
        // file stands alone; the store turns WAL on again when it opens.
        do {
            let connection = try SQLiteConnection(path: copy.url.path)
            _ = try connection.scalarText("PRAGMA wal_checkpoint(TRUNCATE)")
            _ = try connection.scalarText("PRAGMA journal_mode = DELETE")
        }
        let log = URL(fileURLWithPath: original.path + "-wal")
        if let size = (try? manager.attributesOfItem(atPath: log.path))?[.size] as? NSNumber, size.intValue > 0 {
            throw SQLiteStoreError.sqlite(
                .busy, message: "the database was written to while it was being migrated; close other connections and open it again",
                sql: nil, path: original.path)
        }
        let externals = externalDirectory(of: original)
        let migrated = externalDirectory(of: copy.url)
        let kept = Set((try? manager.contentsOfDirectory(atPath: migrated.path)) ?? [])
        let present = Set((try? manager.contentsOfDirectory(atPath: externals.path)) ?? [])
        if !kept.subtracting(present).isEmpty {
            try StoreFiles.createDirectory(at: externals, permissions: configuration.filePermissions)
            for name in kept.subtracting(present) {
                try manager.moveItem(at: migrated.appendingPathComponent(name), to: externals.appendingPathComponent(name))
            }
        }
        try? manager.removeItem(atPath: log.path)
        try? manager.removeItem(atPath: original.path + "-shm")
        guard rename(copy.url.path, original.path) == 0 else {
            throw SQLiteStoreError.sqlite(
                .ioErr, message: "could not rename the migrated copy over the database: \(String(cString: strerror(errno)))",
                sql: nil, path: original.path)
        }
        for name in present.subtracting(kept) { try? manager.removeItem(at: externals.appendingPathComponent(name)) }
        discardFiles(at: copy.url)
    }

    /// Removes a working copy and its files.
    public static func discardWorkingCopy(_ copy: ModelConfiguration) {
        discardFiles(at: copy.url)
    }

    private static func discardFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        try? FileManager.default.removeItem(at: externalDirectory(of: url))
    }

    /// The folder of a database's `.externalStorage` files: `<file>.external` beside it.
    static func externalDirectory(of database: URL) -> URL {
        URL(fileURLWithPath: database.path + ".external")
    }
}
