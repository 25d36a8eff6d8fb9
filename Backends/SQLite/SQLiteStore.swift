import Foundation
import StrataCore

/// The default store: models in a SQLite database, one table per entity.
///
/// Saves run in one write transaction on the writer connection; fetches run on separate
/// read connections (WAL mode), so reads from several contexts proceed while a save is
/// in progress. A save returns once it is committed to the write-ahead log; copying the log
/// back into the database file (a checkpoint) runs on a connection and queue of the store's
/// own, and the writer, closed last when the store is released, removes the log.
///
/// Filters, sorts and windows compile to SQL with bound parameters; what SQL cannot express
/// is refused with `preferInMemoryFilter`/`preferInMemorySort` so the core finishes it. An
/// update writes only the columns its snapshot lists (``DataStorePartialUpdating``). See
/// ``SQLiteSchemaMapping`` for the table layout.
///
/// Strings compare as Swift compares them (``CanonicalString``): every comparison and sort
/// of a string, and every index over a string column, uses the `strata_canonical`
/// collation, which each connection of the store registers. Other programs that open the
/// file can read every table (`SELECT *`, the `sqlite3` shell's `.dump`), but a query that
/// compares strings, or an index, or `PRAGMA integrity_check`, needs that collation; one
/// that orders by the Unicode scalars of the strings' NFC forms will do, for example in
/// Python:
///
/// ```python
/// def canonical(a, b):
///     a, b = (unicodedata.normalize("NFC", s).encode() for s in (a, b))
///     return (a > b) - (a < b)
/// connection.create_collation("strata_canonical", canonical)
/// ```
public final class SQLiteStore: DataStore, DataStoreBatchDeleteListing, DataStoreMigrating, DataStoreExplaining, DataStorePartialUpdating, DataStorePagingByIdentifier, DataStoreExternalChangeDetecting,
    DataStoreStreaming, DataStoreStreamingWithChangeCount, DataStoreStreamingRelatedInOrder, HistoryProviding, @unchecked Sendable
{
    /// The configuration the store was opened with.
    public let configuration: ModelConfiguration
    /// The models the store holds.
    public let schema: Schema
    /// The store's identity, kept in the database so identifiers stay valid across launches.
    public let identifier: String

    let mapping: SQLiteSchemaMapping
    /// The tables of the schema's model types, by type: a fetch finds its table with one
    /// look-up, where the entity's name was looked up (a lock) and then hashed.
    let tablesByType: [ObjectIdentifier: SQLiteSchemaMapping.Table]
    let compiler: SQLiteQueryCompiler
    /// The text of every statement that writes rows, built once per table and shape.
    let statements: SQLiteWriteStatements
    let path: String
    let externalStorage: ExternalStorage?
    /// For each entity with `.preserveValueOnDeletion` attributes, their columns: what a
    /// delete reads for the tombstone it records in history.
    let preservedColumns: [String: [SQLiteSchemaMapping.Column]]
    /// The one connection that writes; `writerLock` serialises its users.
    private let writer: SQLiteConnection
    private let writerLock = NSLock()
    /// Idle read connections; `readersLock` guards the array, so the dynamic exclusivity
    /// check (two runtime calls per fetch, at taking and at returning a connection) is left out.
    @exclusivity(unchecked) private var readers: [SQLiteConnection] = []
    private let readersLock = NSLock()
    private let sharesWriterForReads: Bool
    /// Whether a reader connection reads the last committed state while the writer is in a
    /// transaction: in WAL mode, and not for an in-memory store (which reads on its writer).
    /// In rollback-journal mode, a writer that spilled its pages locks readers out.
    let readsBesideWrites: Bool
    /// Checkpoints the log off the saving thread: a file-backed store in WAL mode has one.
    let checkpointer: SQLiteCheckpointer?

    /// Opens (creating when needed) the database the configuration names.
    ///
    /// - Throws: ``SQLiteStoreError/notADatabase(path:)`` for a file that is not SQLite,
    ///   ``SQLiteStoreError/foreignDatabase(path:tables:)`` for a SQLite file Strata did not
    ///   create, ``SwiftDataError/backwardMigration`` for a file written by a newer schema
    ///   version, ``SwiftDataError/unknownSchema`` when the schema changed in a way that is
    ///   not additive, ``SQLiteStoreError/readOnly(path:)`` when a read-only store would have
    ///   to be created or changed, or ``SQLiteStoreError``. The file is never modified then.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else { throw DataStoreError.unsupportedFeature }
        self.configuration = configuration
        self.schema = schema
        self.mapping = SQLiteSchemaMapping(schema: schema)
        self.tablesByType = Self.tablesByType(schema, mapping)
        self.statements = SQLiteWriteStatements(mapping: mapping)
        let memory = configuration.isStoredInMemoryOnly
        path = memory ? ":memory:" : configuration.url.path
        if !memory { try Self.checkFile(configuration) }
        let connection = try SQLiteConnection(path: path, readOnly: !configuration.allowsSave)
        try connection.execute("PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON")
        try Self.checkFeatures(connection)
        // Checked before WAL is switched on: changing the journal mode rewrites the header,
        // and a file that is not ours must stay byte for byte as it was.
        identifier = try SQLiteMetadata.prepare(
            connection, mapping: mapping, schema: schema, allowsSave: configuration.allowsSave, allowsBackward: migrationPlan != nil, path: path)
        readsBesideWrites = configuration.allowsSave && !memory ? try Self.enableWAL(connection) : false
        compiler = SQLiteQueryCompiler(mapping: mapping, storeIdentifier: identifier)
        preservedColumns = mapping.preservedColumns(in: schema)
        externalStorage = memory ? nil : ExternalStorage(directory: Self.externalDirectory(of: URL(fileURLWithPath: path)), permissions: configuration.filePermissions)
        writer = connection
        sharesWriterForReads = memory
        checkpointer = readsBesideWrites ? try Self.installCheckpointer(on: connection, path: path) : nil
    }

    /// Closes the readers and the checkpointer's connection before the writer, so that the
    /// writer closes last: SQLite then copies the log back and removes it, and the database
    /// file alone holds every save (a read-only connection closing last leaves the log).
    deinit {
        readers.removeAll()
        checkpointer?.uninstall(from: writer)
    }

    private static func tablesByType(_ schema: Schema, _ mapping: SQLiteSchemaMapping) -> [ObjectIdentifier: SQLiteSchemaMapping.Table] {
        var tables: [ObjectIdentifier: SQLiteSchemaMapping.Table] = [:]
        for entity in schema.entities {
            guard let type = entity.modelType, let table = mapping.tables[Schema.entityName(for: type)] else { continue }
            tables[ObjectIdentifier(type)] = table
        }
        return tables
    }

    private static func checkFile(_ configuration: ModelConfiguration) throws {
        let url = configuration.url
        let manager = FileManager.default
        if manager.fileExists(atPath: url.path) {
            try checkHeader(url)
        } else {
            guard configuration.allowsSave else { throw SQLiteStoreError.readOnly(path: url.path) }
            try StoreFiles.createDirectory(at: url.deletingLastPathComponent(), permissions: configuration.filePermissions)
            // SQLite gives the -wal and -shm files the mode of the database file, so they are
            // as readable as the configuration says, whatever the process's umask.
            try StoreFiles.createEmptyFile(at: url, permissions: configuration.filePermissions)
        }
    }

    /// Refuses a file that is neither empty nor a SQLite database, without changing it.
    ///
    /// - Throws: ``SQLiteStoreError/notADatabase(path:)``.
    static func checkHeader(_ url: URL) throws {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let header = try handle.read(upToCount: 16) ?? Data()
        if !header.isEmpty && header != Data("SQLite format 3\0".utf8) {
            throw SQLiteStoreError.notADatabase(path: url.path)
        }
    }

    /// Checks at run time, rather than by linking optional symbols, that the library has
    /// what the store uses: the JSON functions (`json_each`), built in since SQLite 3.38
    /// but removable at compile time.
    ///
    /// - Throws: ``SQLiteStoreError/missingFeature(_:)``.
    static func checkFeatures(_ connection: SQLiteConnection) throws {
        if connection.hasCompileOption("OMIT_JSON") || (try? connection.scalarText("SELECT count(*) FROM json_each('[1]')")) != "1" {
            throw SQLiteStoreError.missingFeature("the JSON functions (json_each)")
        }
    }

    /// WAL lets readers run while a save writes; `synchronous = NORMAL` is durable in WAL
    /// mode up to the last checkpointed transaction, as SQLite documents.
    ///
    /// - Returns: Whether the database is in WAL mode now (a file system without shared
    ///   memory keeps the rollback journal).
    static func enableWAL(_ connection: SQLiteConnection) throws -> Bool {
        let mode = try connection.scalarText("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL")
        return mode?.lowercased() == "wal"
    }

    /// A checkpointer in place of the writer's automatic checkpoint, at the threshold the
    /// library set for it (`wal_autocheckpoint`, 1,000 pages as SQLite ships); `nil` when
    /// the library checkpoints never.
    ///
    /// - Throws: ``SQLiteStoreError`` when the pragma fails.
    private static func installCheckpointer(on writer: SQLiteConnection, path: String) throws -> SQLiteCheckpointer? {
        guard let threshold = try writer.scalarText("PRAGMA wal_autocheckpoint").flatMap({ Int32($0) }), threshold > 0 else { return nil }
        let checkpointer = SQLiteCheckpointer(path: path, threshold: threshold, inlineThreshold: threshold > .max / 10 ? .max : threshold * 10)
        checkpointer.install(on: writer)
        return checkpointer
    }

    // MARK: Connections

    /// SQLite's `PRAGMA data_version` on the writer connection: it changes when another
    /// connection (another process, or another container on the same file) commits, and
    /// not for this store's own saves.
    ///
    /// - Throws: ``SQLiteStoreError`` when the pragma fails.
    public func externalChangeCount() throws -> Int64 {
        try write { connection in
            // A statement kept prepared: it is asked often, and preparing costs more than the answer.
            let statement = try connection.cached("PRAGMA data_version")
            defer { statement.reset() }
            return try statement.step() ? statement.int64(0) : 0
        }
    }

    /// ``externalChangeCount()`` as of the last read on `connection`, a reader the caller
    /// holds; `nil` when it cannot tell.
    ///
    /// SQLite moves a connection's data version when the connection starts a read after
    /// another connection (this store's writer included) committed. So while a reader's
    /// version is the one it had when the writer was last asked on its behalf, nobody has
    /// committed since that read began, and the count the writer gave, after it, still
    /// holds. The writer, which costs a transaction of its own, is asked only when the
    /// version moved: after a save of this store, or someone else's commit.
    func externalChangeCount(asOfLastReadOn connection: SQLiteConnection) -> Int64? {
        // An in-memory store reads on its writer, which the caller holds.
        guard !sharesWriterForReads, let version = connection.dataVersion else { return nil }
        if let known = connection.knownExternalChangeCount, known.dataVersion == version { return known.count }
        guard let count = try? externalChangeCount() else { return nil }
        connection.knownExternalChangeCount = (version, count)
        return count
    }

    /// Runs `body` on the writer connection, one caller at a time.
    func write<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        writerLock.lock()
        defer { writerLock.unlock() }
        return try body(writer)
    }

    /// Runs `body` on a read connection; in-memory stores read on the writer.
    func read<R>(_ body: (SQLiteConnection) throws -> R) throws -> R {
        if sharesWriterForReads { return try write(body) }
        readersLock.lock()
        let pooled = readers.popLast()
        readersLock.unlock()
        let connection = try pooled ?? openReader()
        defer {
            readersLock.lock()
            if readers.count < 4 { readers.append(connection) }
            readersLock.unlock()
        }
        return try body(connection)
    }

    private func openReader() throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("PRAGMA busy_timeout = 5000")
        return connection
    }

    // MARK: DataStore

    /// Removes every row of every table (the schema stays), the history, and the externally
    /// stored files. Transaction identifiers go on from where they were, so tokens from
    /// before the erase expire.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store, or ``SQLiteStoreError``.
    public func erase() throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        try write { connection in
            try connection.transaction {
                for sql in statements.deleteAllJoinRows { try connection.cached(sql).run() }
                for table in mapping.orderedTables {
                    guard let sql = statements.table(table.entityName)?.deleteAll else { continue }
                    try connection.cached(sql).run()
                }
                try SQLiteHistory.deleteAll(on: connection)
            }
        }
        try externalStorage?.removeAll()
    }
}
