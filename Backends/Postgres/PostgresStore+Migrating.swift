import Foundation
import PostgresNIO
import StrataCore

/// Runs the core's ``RelationalLightweightMigration`` steps in a PostgreSQL database schema,
/// inside the transaction that opens the store and records the new schema: PostgreSQL's DDL
/// is transactional, so the changes commit together or not at all.
struct PostgresLightweightMigration {
    let store: (pool: PostgresConnectionPool, writer: PostgresSchemaWriter, configuration: PostgresStoreConfiguration)
    let stored: Schema
    let schema: Schema
    let mapping: RelationalSchemaMapping

    private var plan: RelationalLightweightMigration {
        let writer = store.writer
        return RelationalLightweightMigration(
            stored: stored, schema: schema, mapping: mapping, location: store.configuration.location,
            indexNames: { writer.indexes(of: $0).map(\.name) })
    }

    /// The steps, in the order they must run.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` for a change that is not lightweight.
    func steps() throws -> [RelationalLightweightMigration.Step] {
        try plan.steps()
    }

    /// Runs one step on `connection`, inside the caller's transaction.
    func run(_ step: RelationalLightweightMigration.Step, on connection: PostgresConnection) throws {
        let pool = store.pool, writer = store.writer
        func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws { try pool.execute(sql, binds, on: connection) }
        switch step {
        case .dropTable(let name):
            try execute("DROP TABLE IF EXISTS \(writer.qualified(name))")
        case .dropIndex(let name):
            try execute("DROP INDEX IF EXISTS \(writer.qualified(name))")
        case .createTable(let table):
            for statement in writer.create(table) { try execute(statement) }
        case .renameTable(let old, let new):
            try execute("ALTER TABLE \(writer.qualified(old)) RENAME TO \(SQLIdentifier.quote(new))")
        case .renameJoinTable(let old, let new, let swapsSides):
            if old != new { try execute("ALTER TABLE \(writer.qualified(old)) RENAME TO \(SQLIdentifier.quote(new))") }
            guard swapsSides else { return }
            // The other side now owns the table: its keys move to the source column.
            let name = writer.qualified(new)
            try execute("ALTER TABLE \(name) RENAME COLUMN \"source\" TO \"_strata_swap\"")
            try execute("ALTER TABLE \(name) RENAME COLUMN \"target\" TO \"source\"")
            try execute("ALTER TABLE \(name) RENAME COLUMN \"_strata_swap\" TO \"target\"")
        case .renameColumn(let table, let old, let new):
            try execute("ALTER TABLE \(writer.qualified(table)) RENAME COLUMN \(SQLIdentifier.quote(old)) TO \(SQLIdentifier.quote(new))")
        case .dropColumn(let table, let column):
            try execute("ALTER TABLE \(writer.qualified(table)) DROP COLUMN IF EXISTS \(SQLIdentifier.quote(column))")
        case .addColumn(let table, let column, let fill):
            let name = writer.qualified(table.tableName)
            if fill == nil, !column.isOptional, try pool.query("SELECT 1 FROM \(name) LIMIT 1", on: connection).first != nil {
                throw plan.missingValue(table: table, column: column)
            }
            try execute("ALTER TABLE \(name) ADD COLUMN \(writer.definition(of: column))")
            if let fill { try execute("UPDATE \(name) SET \(SQLIdentifier.quote(column.name)) = \(placeholder(column))", binds(fill)) }
        case .requireValues(let table, let column, let fill):
            let name = writer.qualified(table.tableName), quoted = SQLIdentifier.quote(column.name)
            let missing = try pool.query("SELECT count(*) FROM \(name) WHERE \(quoted) IS NULL", on: connection)
                .first.map { try $0.decode(Int64.self) } ?? 0
            guard missing > 0 else { return }
            guard let fill else { throw plan.nilValues(table: table, column: column, count: Int(missing)) }
            try execute("UPDATE \(name) SET \(quoted) = \(placeholder(column)) WHERE \(quoted) IS NULL", binds(fill))
        case .createMissing:
            for table in mapping.orderedTables {
                try execute(writer.createTable(table))
                for index in writer.indexes(of: table) {
                    do {
                        try execute(index.sql)
                    } catch let error as PostgresStoreError where index.isUnique && error.sqlState == "23505" {
                        throw plan.brokenUniqueness(table: table, columns: index.columns)
                    }
                }
            }
            for join in mapping.joinTables { for statement in writer.create(join) { try execute(statement) } }
        }
    }

    private func placeholder(_ column: RelationalSchemaMapping.Column) -> String {
        PostgresValueCodec.placeholder(1, kind: column.kind)
    }

    private func binds(_ value: PersistentValue) -> PostgresBindings {
        var binds = PostgresBindings()
        PostgresValueCodec.bind(value, to: &binds, storeIdentifier: "")
        return binds
    }
}

/// Migration plans on a PostgreSQL store run on a copy of its database schema, made beside it
/// in the same database; one transaction then drops the original schema and renames the copy
/// into its place, so the migration commits whole or not at all.
///
/// Run a migration while no other process writes to the store: the replacement refuses, and
/// leaves the original as it was, when the original recorded a commit since the copy was made.
extension PostgresStore: DataStoreMigrating {
    /// The schema recorded in the database schema; `nil` when it holds nothing yet. Reads without writing.
    ///
    /// - Throws: As ``init(_:migrationPlan:)`` for a database schema that is not a Strata store.
    public static func storedSchema(for configuration: PostgresStoreConfiguration) throws -> Schema? {
        try configuration.validate()
        let pool = PostgresConnectionPool(configuration: configuration, limit: 1)
        defer { pool.shutdown() }
        return try pool.withConnection { connection in try PostgresMetadata(reading: configuration, pool: pool).recorded(on: connection)?.schema }
    }

    /// Copies every table of the store, with its rows, indexes and key sequences, into a new
    /// database schema `<schema>_migrating_<random>`, and returns a configuration that opens it.
    ///
    /// - Throws: ``PostgresStoreError``; the original is unchanged.
    public static func makeWorkingCopy(of configuration: PostgresStoreConfiguration) throws -> PostgresStoreConfiguration {
        var copy = configuration
        copy.databaseSchema = PostgresSchemaWriter.indexName(configuration.databaseSchema, "migrating_\(UUID().uuidString.prefix(8).lowercased())")
        let pool = PostgresConnectionPool(configuration: configuration, limit: 1)
        defer { pool.shutdown() }
        let original = writer(for: configuration), target = writer(for: copy)
        do {
            try pool.transaction { connection in
                guard let (_, stored) = try PostgresMetadata(reading: configuration, pool: pool).recorded(on: connection) else { return }
                let storedWriter = PostgresSchemaWriter(mapping: RelationalSchemaMapping(schema: stored), databaseSchema: copy.databaseSchema)
                try pool.execute("CREATE SCHEMA \(target.namespace)", on: connection)
                for statement in storedWriter.createStatements() { try pool.execute(statement, on: connection) }
                try copyRows(from: original, to: target, databaseSchemas: (configuration.databaseSchema, copy.databaseSchema), pool: pool, on: connection)
                // The commits the original had when copied: a replacement finding more refuses.
                var binds = PostgresBindings()
                binds.append(String(try commitCount(original, pool: pool, on: connection)))
                try pool.execute(
                    "INSERT INTO \(target.qualified(PostgresSchemaWriter.metadataTable)) (\"key\", \"value\") VALUES ('migratedFromCommits', $1)",
                    binds, on: connection)
            }
        } catch {
            discardWorkingCopy(copy)
            throw error
        }
        return copy
    }

    /// Drops the original database schema and renames the copy into its place, in one
    /// transaction that first locks the original's tables.
    ///
    /// - Throws: ``PostgresStoreError/server(location:sqlState:message:sql:)`` (SQLSTATE `40001`)
    ///   when the original recorded a commit since the copy was made, or another server error;
    ///   the original is then as it was.
    public static func replaceData(of configuration: PostgresStoreConfiguration, withWorkingCopy copy: PostgresStoreConfiguration) throws {
        let pool = PostgresConnectionPool(configuration: configuration, limit: 1)
        defer { pool.shutdown() }
        let original = writer(for: configuration), target = writer(for: copy)
        try pool.transaction { connection in
            var binds = PostgresBindings()
            binds.append(configuration.databaseSchema)
            let tables = try pool.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", binds, on: connection)
                .map { original.qualified(try $0.decode(String.self)) }
            if !tables.isEmpty { try pool.execute("LOCK TABLE \(tables.joined(separator: ", ")) IN ACCESS EXCLUSIVE MODE", on: connection) }
            let recorded = try pool.query(
                "SELECT \"value\" FROM \(target.qualified(PostgresSchemaWriter.metadataTable)) WHERE \"key\" = 'migratedFromCommits'", on: connection
            ).first.flatMap { Int64(try $0.decode(String.self)) }
            if let recorded, !tables.isEmpty, try commitCount(original, pool: pool, on: connection) != recorded {
                throw PostgresStoreError.server(
                    location: configuration.location, sqlState: "40001",
                    message: "the store was written to while it was being migrated; nothing was replaced. Migrate while no other process writes to it",
                    sql: "")
            }
            try pool.execute("DELETE FROM \(target.qualified(PostgresSchemaWriter.metadataTable)) WHERE \"key\" = 'migratedFromCommits'", on: connection)
            try pool.execute("DROP SCHEMA IF EXISTS \(original.namespace) CASCADE", on: connection)
            try pool.execute("ALTER SCHEMA \(target.namespace) RENAME TO \(original.namespace)", on: connection)
        }
    }

    /// Drops a working copy after a failed migration.
    public static func discardWorkingCopy(_ copy: PostgresStoreConfiguration) {
        let pool = PostgresConnectionPool(configuration: copy, limit: 1)
        defer { pool.shutdown() }
        _ = try? pool.withConnection { connection in
            try pool.execute("DROP SCHEMA IF EXISTS \(writer(for: copy).namespace) CASCADE", on: connection)
        }
    }

    private static func writer(for configuration: PostgresStoreConfiguration) -> PostgresSchemaWriter {
        PostgresSchemaWriter(mapping: RelationalSchemaMapping(schema: configuration.schema ?? Schema([])), databaseSchema: configuration.databaseSchema)
    }

    /// Every commit any store instance counted in `writer`'s database schema.
    private static func commitCount(_ writer: PostgresSchemaWriter, pool: PostgresConnectionPool, on connection: PostgresConnection) throws -> Int64 {
        try pool.query(
            "SELECT COALESCE(sum(\"commits\"), 0)::bigint FROM \(writer.qualified(PostgresSchemaWriter.commitsTable))", on: connection
        ).first.map { try $0.decode(Int64.self) } ?? 0
    }

    /// Copies the rows of every table the copy has from the original (the columns both have),
    /// and sets each identity sequence of the copy where the original's stands, so no key or
    /// transaction identifier is reused.
    private static func copyRows(
        from original: PostgresSchemaWriter, to target: PostgresSchemaWriter, databaseSchemas: (original: String, copy: String),
        pool: PostgresConnectionPool, on connection: PostgresConnection
    ) throws {
        var binds = PostgresBindings()
        binds.append(databaseSchemas.original)
        binds.append(databaseSchemas.copy)
        let shared = try pool.query(
            """
            SELECT c.table_name, c.column_name FROM information_schema.columns c
            JOIN information_schema.columns o ON o.table_name = c.table_name AND o.column_name = c.column_name AND o.table_schema = $1
            WHERE c.table_schema = $2 ORDER BY c.table_name, c.ordinal_position
            """, binds, on: connection)
        var columns: [(table: String, names: [String])] = []
        for row in shared {
            let (table, column) = try row.decode((String, String).self)
            if columns.last?.table == table { columns[columns.count - 1].names.append(column) } else { columns.append((table, [column])) }
        }
        for (table, names) in columns {
            let list = names.map(SQLIdentifier.quote).joined(separator: ", ")
            try pool.execute(
                "INSERT INTO \(target.qualified(table)) (\(list)) OVERRIDING SYSTEM VALUE SELECT \(list) FROM \(original.qualified(table))",
                on: connection)
        }
        var copySchema = PostgresBindings()
        copySchema.append(databaseSchemas.copy)
        let identities = try pool.query(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1 AND is_identity = 'YES'", copySchema, on: connection)
        for row in identities {
            let (table, column) = try row.decode((String, String).self)
            // The copy's sequence continues from the original's last value; one never used
            // stays fresh. The original's sequence is read itself: the `pg_sequences` view
            // reads every sequence of the database, and failed ("could not open relation
            // with OID …") when another session dropped one of them meanwhile.
            var originalColumn = PostgresBindings()
            originalColumn.append(original.qualified(table))
            originalColumn.append(column)
            // The name comes back quoted as a sequence function takes it.
            guard let sequence = try pool.query("SELECT pg_get_serial_sequence($1, $2)", originalColumn, on: connection)
                .first.flatMap({ try $0.decode(String?.self) })
            else { continue }
            guard let (lastValue, isCalled) = try pool.query("SELECT last_value, is_called FROM \(sequence)", on: connection)
                .first.map({ try $0.decode((Int64, Bool).self) }), isCalled
            else { continue }
            var copyColumn = PostgresBindings()
            copyColumn.append(target.qualified(table))
            copyColumn.append(column)
            copyColumn.append(lastValue)
            try pool.execute("SELECT setval(pg_get_serial_sequence($1, $2), $3, true)", copyColumn, on: connection)
        }
    }
}
