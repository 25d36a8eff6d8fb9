import Foundation
import PostgresNIO
import StrataCore

/// A store that keeps models in PostgreSQL tables, for apps whose processes share one
/// database server.
///
/// The tables follow the same rules as SQLiteStore's (the core's relational mapping): one
/// per entity with a `bigint` primary key `_pk`, a column per attribute and to-one
/// relationship, join tables for to-many relationships without a to-one inverse; the column
/// types are in ``PostgresValueCodec``. Each save is one transaction. Fetches compile their
/// filter and sort to SQL with bound parameters where PostgreSQL gives Swift's answer, and
/// refuse the rest with `preferInMemoryFilter`/`preferInMemorySort`, which the core then
/// finishes in memory. An update writes only the columns its snapshot lists
/// (``DataStorePartialUpdating``), so two processes that change different attributes of one
/// model both keep their changes; for the same attribute, the last save wins.
///
/// `DataStore`'s methods are synchronous; ``PostgresConnectionPool`` describes how they wait
/// for postgres-nio without tying up an event loop.
public final class PostgresStore: DataStore, DataStoreBatchDeleteListing, DataStoreExplaining, DataStorePartialUpdating, DataStoreExternalChangeDetecting,
    @unchecked Sendable
{
    /// The configuration the store was opened with.
    public let configuration: PostgresStoreConfiguration
    /// The models the store holds.
    public let schema: Schema
    /// The store's identity, kept in the database so identifiers stay valid across launches
    /// and processes.
    public let identifier: String

    let mapping: RelationalSchemaMapping
    let writer: PostgresSchemaWriter
    let pool: PostgresConnectionPool
    var location: String { configuration.location }
    /// For each entity with `.preserveValueOnDeletion` attributes, their columns: what a
    /// delete returns for the tombstone it records in history.
    let preservedColumns: [String: [RelationalSchemaMapping.Column]]
    /// This store instance's row in the commits table.
    let writerID = UUID().uuidString

    /// Opens the store, creating its tables in an empty database schema.
    ///
    /// - Throws: ``PostgresStoreError/unreachable(location:reason:)`` when the server cannot be
    ///   reached or refuses the credentials, ``PostgresStoreError/foreignDatabase(location:databaseSchema:tables:)``
    ///   for a database schema that holds tables Strata did not create,
    ///   ``SwiftDataError/backwardMigration`` for one written by a newer schema version,
    ///   ``SwiftDataError/unknownSchema`` when the schema changed other than by adding,
    ///   ``PostgresStoreError/readOnly(location:)`` when an `allowsSave: false` store would have
    ///   to create or change tables, or ``PostgresStoreError``. Nothing is written then.
    public init(_ configuration: PostgresStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else { throw DataStoreError.unsupportedFeature }
        try configuration.validate()
        self.configuration = configuration
        self.schema = schema
        mapping = RelationalSchemaMapping(schema: schema)
        preservedColumns = mapping.preservedColumns(in: schema)
        writer = PostgresSchemaWriter(mapping: mapping, databaseSchema: configuration.databaseSchema)
        pool = PostgresConnectionPool(configuration: configuration)
        do {
            identifier = try PostgresMetadata(store: (pool, writer, configuration), schema: schema, mapping: mapping)
                .prepare(allowsBackward: migrationPlan != nil)
        } catch {
            pool.shutdown()
            throw error
        }
    }

    deinit {
        pool.shutdown()
    }

    func table<T: PersistentModel>(for type: T.Type) throws -> RelationalSchemaMapping.Table {
        try table(named: Schema.entityName(for: T.self))
    }

    func table(named entityName: String) throws -> RelationalSchemaMapping.Table {
        guard let table = mapping.tables[entityName] else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the PostgreSQL store \(configuration.name) holds no entity \(entityName)")
        }
        return table
    }

    /// Removes every model and the history; keys and transaction identifiers go on from where
    /// they were, so no identifier is reused and every token from before expires.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store, or ``PostgresStoreError``.
    public func erase() throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        let tables = mapping.orderedTables.map(\.tableName) + mapping.joinTables.map(\.name)
        try pool.transaction { connection in
            if !tables.isEmpty { try pool.execute("TRUNCATE \(tables.map(writer.qualified).joined(separator: ", "))", on: connection) }
            try PostgresHistory(store: self).deleteAll(on: connection)
            try countCommit(on: connection)
        }
    }

    /// Counts a commit of this store instance, inside the committing transaction.
    func countCommit(on connection: PostgresConnection) throws {
        var binds = PostgresBindings()
        binds.append(writerID)
        try pool.execute(
            "INSERT INTO \(writer.qualified(PostgresSchemaWriter.commitsTable)) AS c (\"writer\", \"commits\") VALUES ($1, 1) ON CONFLICT (\"writer\") DO UPDATE SET \"commits\" = c.\"commits\" + 1",
            binds, on: connection)
    }

    /// How many commits other store instances made: other processes', and other containers'
    /// on the same database schema. The core compares it before each fetch and refreshes the
    /// registered models when it changed.
    ///
    /// - Throws: ``PostgresStoreError``.
    public func externalChangeCount() throws -> Int64 {
        var binds = PostgresBindings()
        binds.append(writerID)
        return try pool.withConnection { connection in
            try pool.query(
                "SELECT COALESCE(sum(\"commits\"), 0)::bigint FROM \(writer.qualified(PostgresSchemaWriter.commitsTable)) WHERE \"writer\" <> $1",
                binds, on: connection
            ).first.map { try $0.decode(Int64.self) } ?? 0
        }
    }
}

/// Opening: the metadata table's checks, and the tables of an empty or additively changed schema.
struct PostgresMetadata {
    let store: (pool: PostgresConnectionPool, writer: PostgresSchemaWriter, configuration: PostgresStoreConfiguration)
    let schema: Schema
    let mapping: RelationalSchemaMapping

    /// Opening `schema`'s store.
    init(store: (pool: PostgresConnectionPool, writer: PostgresSchemaWriter, configuration: PostgresStoreConfiguration), schema: Schema, mapping: RelationalSchemaMapping) {
        self.store = store
        self.schema = schema
        self.mapping = mapping
    }

    /// Reading what the database schema of `configuration` records, with `pool`.
    init(reading configuration: PostgresStoreConfiguration, pool: PostgresConnectionPool) {
        let schema = configuration.schema ?? Schema([])
        let mapping = RelationalSchemaMapping(schema: schema)
        self.init(store: (pool, PostgresSchemaWriter(mapping: mapping, databaseSchema: configuration.databaseSchema), configuration), schema: schema, mapping: mapping)
    }

    private var location: String { store.configuration.location }
    private var pool: PostgresConnectionPool { store.pool }
    private var writer: PostgresSchemaWriter { store.writer }

    /// Creates the tables of an empty database schema, or checks (and additively migrates) an
    /// existing one, under an advisory lock so that processes opening together create them once.
    ///
    /// - Returns: The store identifier recorded in the database.
    func prepare(allowsBackward: Bool) throws -> String {
        try pool.withConnection { connection in
            let encoding = try pool.query("SHOW server_encoding", on: connection).first.flatMap { try? $0.decode(String.self) } ?? "?"
            guard encoding.uppercased() == "UTF8" else {
                throw PostgresStoreError.unsupportedEncoding(location: location, encoding: encoding)
            }
            // Read first, without a transaction or lock: a read-only store must write nothing.
            if let identifier = try check(on: connection, allowsBackward: allowsBackward, changing: false) { return identifier }
            guard store.configuration.allowsSave else { throw PostgresStoreError.readOnly(location: location) }
            try pool.execute("BEGIN", on: connection)
            do {
                var binds = PostgresBindings()
                binds.append("strata:" + store.configuration.databaseSchema)
                try pool.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", binds, on: connection)
                try pool.execute("CREATE SCHEMA IF NOT EXISTS \(writer.namespace)", on: connection)
                let identifier = try check(on: connection, allowsBackward: allowsBackward, changing: true) ?? create(on: connection)
                try pool.execute("COMMIT", on: connection)
                return identifier
            } catch {
                _ = try? pool.execute("ROLLBACK", on: connection)
                throw error
            }
        }
    }

    /// Checks an existing store and returns its identifier: `nil` when the database schema is
    /// empty, or when it needs changes and `changing` is `false`; with `changing`, makes them.
    private func check(on connection: PostgresConnection, allowsBackward: Bool, changing: Bool) throws -> String? {
        guard let (identifier, stored) = try recorded(on: connection) else { return nil }
        if stored.version > schema.version && !allowsBackward {
            throw SwiftDataError.backwardMigration.with(
                details: "\(location) was written by schema version \(stored.version); this app's schema is \(schema.version)")
        }
        let migration = PostgresLightweightMigration(store: store, stored: stored, schema: schema, mapping: mapping)
        let changes = stored.hasSameStructure(as: schema) ? [] : try migration.steps()
        if changes.isEmpty && stored == schema { return identifier }
        guard store.configuration.allowsSave else {
            if changes.isEmpty { return identifier }
            throw PostgresStoreError.readOnly(location: location)
        }
        guard changing else { return nil }
        for step in changes { try migration.run(step, on: connection) }
        try record(on: connection)
        return identifier
    }

    /// The identity and schema an existing store records, read without writing; `nil` for an
    /// empty database schema.
    ///
    /// - Throws: ``PostgresStoreError/foreignDatabase(location:databaseSchema:tables:)``,
    ///   ``PostgresStoreError/unsupportedFormat(location:version:)``, or ``SwiftDataError/unknownSchema``
    ///   for a record that cannot be read.
    func recorded(on connection: PostgresConnection) throws -> (identifier: String, schema: Schema)? {
        let tables = try existingTables(on: connection)
        if tables.isEmpty { return nil }
        guard tables.contains(PostgresSchemaWriter.metadataTable) else {
            throw PostgresStoreError.foreignDatabase(location: location, databaseSchema: store.configuration.databaseSchema, tables: tables.sorted())
        }
        let values = try read(on: connection)
        guard let format = values["format"] else { throw SwiftDataError.unknownSchema.with(details: "\(location) records no format") }
        guard format == PostgresSchemaWriter.formatVersion else {
            throw PostgresStoreError.unsupportedFormat(location: location, version: format)
        }
        guard let identifier = values["storeIdentifier"], let text = values["schema"] else {
            throw SwiftDataError.unknownSchema.with(details: "\(location) has no readable schema record")
        }
        do {
            return (identifier, try JSONDecoder().decode(Schema.self, from: Data(text.utf8)))
        } catch {
            throw SwiftDataError.unknownSchema.with(details: "\(location) records a schema that cannot be read: \(error)")
        }
    }

    private func create(on connection: PostgresConnection) throws -> String {
        for statement in writer.createStatements() { try pool.execute(statement, on: connection) }
        let identifier = UUID().uuidString
        try write(["format": PostgresSchemaWriter.formatVersion, "storeIdentifier": identifier], on: connection)
        try record(on: connection)
        return identifier
    }

    func existingTables(on connection: PostgresConnection) throws -> Set<String> {
        var binds = PostgresBindings()
        binds.append(store.configuration.databaseSchema)
        var tables: Set<String> = []
        for row in try pool.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", binds, on: connection)
        {
            tables.insert(try row.decode(String.self))
        }
        return tables
    }

    private func record(on connection: PostgresConnection) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
        try write(["schema": json, "schemaVersion": schema.version.description], on: connection)
    }

    private func write(_ values: [String: String], on connection: PostgresConnection) throws {
        let table = writer.qualified(PostgresSchemaWriter.metadataTable)
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            var binds = PostgresBindings()
            binds.append(key)
            binds.append(value)
            try pool.execute(
                "INSERT INTO \(table) (\"key\", \"value\") VALUES ($1, $2) ON CONFLICT (\"key\") DO UPDATE SET \"value\" = EXCLUDED.\"value\"",
                binds, on: connection)
        }
    }

    func read(on connection: PostgresConnection) throws -> [String: String] {
        var values: [String: String] = [:]
        for row in try pool.query("SELECT \"key\", \"value\" FROM \(writer.qualified(PostgresSchemaWriter.metadataTable))", on: connection) {
            let (key, value) = try row.decode((String, String).self)
            values[key] = value
        }
        return values
    }
}
