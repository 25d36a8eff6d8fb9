import Foundation
import StrataCore

/// Writes the tables, indexes and metadata of a ``SQLiteSchemaMapping``, and checks an
/// existing database against a schema before anything is written to it.
enum SQLiteSchemaWriter {
    static let metadataTable = "_strata_metadata"
    /// The format this version writes. `2` indexes string columns under `strata_canonical`.
    static let formatVersion = "2"
    /// The formats this version opens; opening a `1` store for writing upgrades it (``upgradeIndexes(_:mapping:)``).
    static let readableFormats: Set<String> = ["1", "2"]

    /// The statements that create every table and index of `mapping`.
    static func createStatements(_ mapping: SQLiteSchemaMapping) -> [String] {
        var statements: [String] = []
        for table in mapping.orderedTables {
            statements.append(createTable(table, mapping: mapping))
            statements.append(contentsOf: indexStatements(table))
        }
        return statements + joinTableStatements(mapping)
    }

    /// The statements that create the join tables of `mapping` and their indexes.
    static func joinTableStatements(_ mapping: SQLiteSchemaMapping) -> [String] {
        var statements: [String] = []
        for join in mapping.joinTables {
            let name = SQLIdentifier.quote(join.name)
            let source = SQLIdentifier.quote(join.sourceColumn)
            let target = SQLIdentifier.quote(join.targetColumn)
            statements.append("CREATE TABLE IF NOT EXISTS \(name) (\(source) INTEGER NOT NULL, \(target) INTEGER NOT NULL, UNIQUE (\(source), \(target)))")
            statements.append("CREATE INDEX IF NOT EXISTS \(SQLIdentifier.quote("\(join.name)_\(join.targetColumn)")) ON \(name) (\(target))")
        }
        return statements
    }

    static func createTable(_ table: SQLiteSchemaMapping.Table, mapping: SQLiteSchemaMapping) -> String {
        var columns = ["\(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) INTEGER PRIMARY KEY"]
        for column in table.columns { columns.append(columnDefinition(column, mapping: mapping)) }
        return "CREATE TABLE IF NOT EXISTS \(SQLIdentifier.quote(table.tableName)) (\(columns.joined(separator: ", ")))"
    }

    static func columnDefinition(_ column: SQLiteSchemaMapping.Column, mapping: SQLiteSchemaMapping) -> String {
        let name = SQLIdentifier.quote(column.name)
        if let destination = column.destination, column.kind == .identifier, !column.crossStore,
            let target = mapping.tables[destination]
        {
            return "\(name) INTEGER REFERENCES \(SQLIdentifier.quote(target.tableName))(\(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey))) ON DELETE SET NULL"
        }
        return "\(name) \(columnType(column.kind))"
    }

    static func columnType(_ kind: PersistentValue.Kind) -> String {
        switch kind {
        case .bool, .int: "INTEGER"
        case .double, .date: "REAL"
        case .string, .uuid, .url, .decimal, .codable, .identifier, .identifiers: "TEXT"
        case .data: "BLOB"
        }
    }

    static func indexStatements(_ table: SQLiteSchemaMapping.Table) -> [String] {
        indexes(table).map(\.sql)
    }

    /// The indexes of `table`: its unique constraints, `#Index`es and to-one columns.
    static func indexes(_ table: SQLiteSchemaMapping.Table) -> [(name: String, sql: String, isUnique: Bool)] {
        var indexes: [(name: String, sql: String, isUnique: Bool)] = []
        let tableName = SQLIdentifier.quote(table.tableName)
        let strings = Set(table.columns.filter { $0.kind == .string }.map(\.name))
        func add(_ name: String, _ columns: [String], unique: Bool) {
            // String columns under the collation queries compare with, so the index serves them
            // and uniqueness means Swift's `==`.
            let list = columns.map { SQLIdentifier.quote($0) + (strings.contains($0) ? " COLLATE " + SQLiteFunctions.Name.canonical : "") }
                .joined(separator: ", ")
            let sql = "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(SQLIdentifier.quote(name)) ON \(tableName) (\(list))"
            indexes.append((name, sql, unique))
        }
        for constraint in table.uniqueConstraints {
            add("\(table.tableName)_unique_\(constraint.joined(separator: "_"))", constraint, unique: true)
        }
        for index in table.indices {
            add("\(table.tableName)_index_\(index.joined(separator: "_"))", index, unique: false)
        }
        for column in table.columns where column.kind == .identifier && !column.crossStore {
            add("\(table.tableName)_fk_\(column.name)", [column.name], unique: false)
        }
        return indexes
    }

    /// Rebuilds each index of `mapping` that covers a string column without the
    /// `strata_canonical` collation (format 1), so that lookups use it and uniqueness means
    /// Swift's `==`.
    ///
    /// A unique index that existing rows break under canonical equality (one holds `"\u{E4}"`,
    /// another `"a\u{308}"`) is kept as it was: no row is changed or lost, and the core's check
    /// of pending inserts still compares canonically.
    /// - Throws: ``SQLiteStoreError`` for any other failure; the caller's transaction then rolls back.
    static func upgradeIndexes(_ connection: SQLiteConnection, mapping: SQLiteSchemaMapping) throws {
        for table in mapping.orderedTables {
            for index in indexes(table) where index.sql.contains(SQLiteFunctions.Name.canonical) {
                let name = index.name.replacingOccurrences(of: "'", with: "''")
                guard let stored = try connection.scalarText("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = '\(name)'"),
                    !stored.contains(SQLiteFunctions.Name.canonical)
                else { continue }
                try connection.execute("SAVEPOINT strata_index")
                do {
                    try connection.execute("DROP INDEX \(SQLIdentifier.quote(index.name))")
                    try connection.execute(index.sql)
                } catch SQLiteStoreError.sqlite(let code, _, _, _) where index.isUnique && code.primaryResultCode == .constraint {
                    try connection.execute("ROLLBACK TO strata_index")
                }
                try connection.execute("RELEASE strata_index")
            }
        }
    }
}
