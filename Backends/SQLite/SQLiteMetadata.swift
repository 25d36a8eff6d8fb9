import Foundation
import StrataCore

/// The metadata table: the store's identity, its file format, and the schema (JSON) and
/// version it was last written with. Opening checks it before anything is written.
enum SQLiteMetadata {
    /// Creates the tables of an empty database, or checks (and additively migrates) an existing one.
    ///
    /// - Returns: The store identifier recorded in the database.
    /// - Throws: As ``SQLiteStore/init(_:migrationPlan:)``; nothing is written unless every check passes.
    static func prepare(
        _ connection: SQLiteConnection, mapping: SQLiteSchemaMapping, schema: Schema, allowsSave: Bool, allowsBackward: Bool, path: String
    ) throws -> String {
        let tables = try stringColumn(connection, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        let metadata = SQLiteSchemaWriter.metadataTable
        if tables.isEmpty {
            guard allowsSave else { throw SQLiteStoreError.readOnly(path: path) }
            let identifier = UUID().uuidString
            try connection.transaction {
                for statement in SQLiteSchemaWriter.createStatements(mapping) + SQLiteHistory.createStatements { try connection.execute(statement) }
                try connection.execute("CREATE TABLE \(SQLIdentifier.quote(metadata)) (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
                try write(connection, ["format": SQLiteSchemaWriter.formatVersion, "storeIdentifier": identifier])
                try record(schema, in: connection)
            }
            return identifier
        }
        guard tables.contains(metadata) else { throw SQLiteStoreError.foreignDatabase(path: path, tables: tables) }
        let values = try read(connection)
        let format = try readableFormat(values, path: path)
        guard let identifier = values["storeIdentifier"], let stored = try recordedSchema(values, path: path) else {
            throw SwiftDataError.unknownSchema.with(details: "\(path) has no readable schema record")
        }
        if stored.version > schema.version && !allowsBackward {
            throw SwiftDataError.backwardMigration.with(
                details: "\(path) was written by schema version \(stored.version); this app's schema is \(schema.version)")
        }
        var changes = stored.hasSameStructure(as: schema)
            ? [] : try SQLiteLightweightMigration(stored: stored, schema: schema, mapping: mapping, path: path).steps()
        if allowsSave && format != SQLiteSchemaWriter.formatVersion {
            // Format 1 indexed strings by their bytes; read-only opening leaves the file as it is,
            // and queries, which name the collation, stay exact without the index's help.
            changes.append { connection in
                try SQLiteSchemaWriter.upgradeIndexes(connection, mapping: mapping)
                try write(connection, ["format": SQLiteSchemaWriter.formatVersion])
            }
        }
        if allowsSave && !tables.contains(SQLiteHistory.table) {
            // A file from before history: the table is added as any additive change is.
            changes.append { connection in for statement in SQLiteHistory.createStatements { try connection.execute(statement) } }
        }
        guard !changes.isEmpty || stored != schema else { return identifier }
        guard allowsSave else {
            if changes.isEmpty { return identifier }
            throw SQLiteStoreError.readOnly(path: path)
        }
        try connection.transaction {
            for change in changes { try change(connection) }
            try record(schema, in: connection)
        }
        return identifier
    }

    /// The schema a database records, or `nil` when it records none.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` when the record is not a schema.
    private static func recordedSchema(_ values: [String: String], path: String) throws -> Schema? {
        guard let text = values["schema"] else { return nil }
        do {
            return try JSONDecoder().decode(Schema.self, from: Data(text.utf8))
        } catch {
            throw SwiftDataError.unknownSchema.with(details: "\(path) records a schema that cannot be read: \(error)")
        }
    }

    /// The schema an existing Strata database was last written with, read without writing;
    /// `nil` for an empty database.
    ///
    /// - Throws: As ``prepare(_:mapping:schema:allowsSave:allowsBackward:path:)`` for a file
    ///   that is not a Strata database.
    static func storedSchema(_ connection: SQLiteConnection, path: String) throws -> Schema? {
        let tables = try stringColumn(connection, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        if tables.isEmpty { return nil }
        guard tables.contains(SQLiteSchemaWriter.metadataTable) else { throw SQLiteStoreError.foreignDatabase(path: path, tables: tables) }
        let values = try read(connection)
        _ = try readableFormat(values, path: path)
        return try recordedSchema(values, path: path)
    }

    /// The file format `values` record, when this version reads it.
    ///
    /// - Throws: ``SQLiteStoreError/unsupportedFormat(path:version:)`` for a newer or unknown format.
    private static func readableFormat(_ values: [String: String], path: String) throws -> String {
        guard let format = values["format"], SQLiteSchemaWriter.readableFormats.contains(format) else {
            throw SQLiteStoreError.unsupportedFormat(path: path, version: values["format"] ?? "unknown")
        }
        return format
    }

    private static func record(_ schema: Schema, in connection: SQLiteConnection) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
        try write(connection, ["schema": json, "schemaVersion": schema.version.description])
    }

    private static func write(_ connection: SQLiteConnection, _ values: [String: String]) throws {
        let statement = try connection.prepare(SQLiteWriteStatements.upsertMetadata)
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            statement.reset()
            try statement.bind([.text(key), .text(value)])
            try statement.run()
        }
    }

    private static func read(_ connection: SQLiteConnection) throws -> [String: String] {
        let statement = try connection.prepare(SQLiteWriteStatements.selectMetadata)
        var values: [String: String] = [:]
        while try statement.step() {
            if case .text(let key) = statement.column(0), case .text(let value) = statement.column(1) { values[key] = value }
        }
        return values
    }

    private static func stringColumn(_ connection: SQLiteConnection, _ sql: String) throws -> [String] {
        let statement = try connection.prepare(sql)
        var result: [String] = []
        while try statement.step() {
            if case .text(let text) = statement.column(0) { result.append(text) }
        }
        return result
    }
}
