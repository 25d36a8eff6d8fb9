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
        _ connection: SQLiteConnection, mapping: SQLiteSchemaMapping, schema: Schema, allowsSave: Bool, path: String
    ) throws -> String {
        let tables = try stringColumn(connection, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        let metadata = SQLiteSchemaWriter.metadataTable
        if tables.isEmpty {
            guard allowsSave else { throw SQLiteStoreError.readOnly(path: path) }
            let identifier = UUID().uuidString
            try connection.transaction {
                for statement in SQLiteSchemaWriter.createStatements(mapping) { try connection.execute(statement) }
                try connection.execute("CREATE TABLE \(SQLIdentifier.quote(metadata)) (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
                try write(connection, ["format": SQLiteSchemaWriter.formatVersion, "storeIdentifier": identifier])
                try record(schema, in: connection)
            }
            return identifier
        }
        guard tables.contains(metadata) else { throw SQLiteStoreError.foreignDatabase(path: path, tables: tables) }
        let values = try read(connection)
        guard values["format"] == SQLiteSchemaWriter.formatVersion else {
            throw SQLiteStoreError.unsupportedFormat(path: path, version: values["format"] ?? "unknown")
        }
        guard let identifier = values["storeIdentifier"], let schemaText = values["schema"],
            let stored = try? JSONDecoder().decode(Schema.self, from: Data(schemaText.utf8))
        else {
            throw SwiftDataError.unknownSchema.with(details: "\(path) has no readable schema record")
        }
        if stored.version > schema.version {
            throw SwiftDataError.backwardMigration.with(
                details: "\(path) was written by schema version \(stored.version); this app's schema is \(schema.version)")
        }
        let changes = try additiveChanges(from: stored, to: schema, mapping: mapping, path: path)
        guard !changes.isEmpty || stored.version != schema.version || stored != schema else { return identifier }
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

    /// The steps that bring a database written with `stored` to `schema`: new tables, join
    /// tables, indexes and columns. Anything else is not a lightweight change.
    private static func additiveChanges(
        from stored: Schema, to schema: Schema, mapping: SQLiteSchemaMapping, path: String
    ) throws -> [(SQLiteConnection) throws -> Void] {
        var changes: [(SQLiteConnection) throws -> Void] = []
        let storedMapping = SQLiteSchemaMapping(schema: stored)
        for table in mapping.orderedTables {
            guard let old = storedMapping.tables[table.entityName] else {
                changes.append { try $0.execute(SQLiteSchemaWriter.createTable(table, mapping: mapping)) }
                continue
            }
            let oldColumns = Dictionary(old.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for column in table.columns {
                if let previous = oldColumns[column.name] {
                    guard previous.kind == column.kind else {
                        throw SwiftDataError.unknownSchema.with(
                            details: "\(path): \(table.entityName).\(column.name) changed from \(previous.kind.rawValue) to \(column.kind.rawValue), which needs a migration stage")
                    }
                    continue
                }
                let fill = try defaultValue(for: column, table: table, schema: schema, path: path)
                changes.append { connection in
                    try connection.execute("ALTER TABLE \(SQLIdentifier.quote(table.tableName)) ADD COLUMN \(SQLiteSchemaWriter.columnDefinition(column, mapping: mapping))")
                    if let fill {
                        let statement = try connection.prepare(SQLiteWriteStatements.fill(table, column: column.name))
                        try statement.bind([fill])
                        try statement.run()
                    }
                }
            }
        }
        if !changes.isEmpty || stored != schema {
            changes.append { connection in
                for statement in SQLiteSchemaWriter.createStatements(mapping) { try connection.execute(statement) }
            }
        }
        return changes
    }

    private static func defaultValue(
        for column: SQLiteSchemaMapping.Column, table: SQLiteSchemaMapping.Table, schema: Schema, path: String
    ) throws -> SQLiteValue? {
        if column.isOptional { return nil }
        let attribute = schema.entitiesByName[table.entityName]?.attributesByName[column.name]
        if let value = attribute?.defaultValue as? any PersistentAttributeValue {
            return SQLiteValueCodec.encode(value.persistentValue, storeIdentifier: "")
        }
        if let raw = attribute?.defaultValue as? any RawRepresentable, let value = raw.rawValue as? any PersistentAttributeValue {
            return SQLiteValueCodec.encode(value.persistentValue, storeIdentifier: "")
        }
        throw SwiftDataError.unknownSchema.with(
            details: "\(path): \(table.entityName).\(column.name) is new and neither optional nor given a default value, so existing rows have no value for it")
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
