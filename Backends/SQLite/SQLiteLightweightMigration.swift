import Foundation
import StrataCore

/// Runs the core's ``RelationalLightweightMigration`` steps on a SQLite database, in the one
/// transaction that also records the new schema.
struct SQLiteLightweightMigration {
    typealias Step = (SQLiteConnection) throws -> Void

    let stored: Schema
    let schema: Schema
    let mapping: SQLiteSchemaMapping
    let path: String

    /// The steps, in the order they must run; empty when the tables already fit.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` for a change that is not lightweight.
    func steps() throws -> [Step] {
        let migration = RelationalLightweightMigration(
            stored: stored, schema: schema, mapping: mapping, location: path, indexNames: { SQLiteSchemaWriter.indexes($0).map(\.name) })
        return try migration.steps().map { step in { connection in try run(step, of: migration, on: connection) } }
    }

    private func run(_ step: RelationalLightweightMigration.Step, of migration: RelationalLightweightMigration, on connection: SQLiteConnection) throws {
        switch step {
        case .dropTable(let name):
            try connection.execute("DROP TABLE IF EXISTS \(SQLIdentifier.quote(name))")
        case .dropIndex(let name):
            try connection.execute("DROP INDEX IF EXISTS \(SQLIdentifier.quote(name))")
        case .createTable(let table):
            try connection.execute(SQLiteSchemaWriter.createTable(table, mapping: mapping))
        case .renameTable(let old, let new):
            try connection.execute("ALTER TABLE \(SQLIdentifier.quote(old)) RENAME TO \(SQLIdentifier.quote(new))")
        case .renameJoinTable(let old, let new, let swapsSides):
            let name = SQLIdentifier.quote(new)
            if old != new { try connection.execute("ALTER TABLE \(SQLIdentifier.quote(old)) RENAME TO \(name)") }
            guard swapsSides else { return }
            // The other side now owns the table: its keys move to the source column.
            try connection.execute("ALTER TABLE \(name) RENAME COLUMN \"source\" TO \"_strata_swap\"")
            try connection.execute("ALTER TABLE \(name) RENAME COLUMN \"target\" TO \"source\"")
            try connection.execute("ALTER TABLE \(name) RENAME COLUMN \"_strata_swap\" TO \"target\"")
        case .renameColumn(let table, let old, let new):
            try connection.execute("ALTER TABLE \(SQLIdentifier.quote(table)) RENAME COLUMN \(SQLIdentifier.quote(old)) TO \(SQLIdentifier.quote(new))")
        case .dropColumn(let table, let column):
            try connection.execute("ALTER TABLE \(SQLIdentifier.quote(table)) DROP COLUMN \(SQLIdentifier.quote(column))")
        case .addColumn(let table, let column, let fill):
            if fill == nil, !column.isOptional,
                try connection.scalarText("SELECT EXISTS (SELECT 1 FROM \(SQLIdentifier.quote(table.tableName)))") == "1"
            {
                throw migration.missingValue(table: table, column: column)
            }
            try connection.execute(
                "ALTER TABLE \(SQLIdentifier.quote(table.tableName)) ADD COLUMN \(SQLiteSchemaWriter.columnDefinition(column, mapping: mapping))")
            if let fill { try run(SQLiteWriteStatements.fill(table, column: column.name), [fill], on: connection) }
        case .requireValues(let table, let column, let fill):
            let quotedTable = SQLIdentifier.quote(table.tableName), quotedColumn = SQLIdentifier.quote(column.name)
            let missing = Int(try connection.scalarText("SELECT count(*) FROM \(quotedTable) WHERE \(quotedColumn) IS NULL") ?? "0") ?? 0
            guard missing > 0 else { return }
            guard let fill else { throw migration.nilValues(table: table, column: column, count: missing) }
            try run("UPDATE \(quotedTable) SET \(quotedColumn) = ?1 WHERE \(quotedColumn) IS NULL", [fill], on: connection)
        case .createMissing:
            for table in mapping.orderedTables {
                try connection.execute(SQLiteSchemaWriter.createTable(table, mapping: mapping))
                for index in SQLiteSchemaWriter.indexes(table) {
                    do {
                        try connection.execute(index.sql)
                    } catch let error as SQLiteStoreError where index.isUnique && SQLiteStoreError.ResultCode.constraint ~= error.resultCode {
                        let columns = table.uniqueConstraints.first { "\(table.tableName)_unique_\($0.joined(separator: "_"))" == index.name } ?? []
                        throw migration.brokenUniqueness(table: table, columns: columns)
                    }
                }
            }
            for statement in SQLiteSchemaWriter.joinTableStatements(mapping) { try connection.execute(statement) }
        }
    }

    private func run(_ sql: String, _ values: [PersistentValue], on connection: SQLiteConnection) throws {
        let statement = try connection.prepare(sql)
        try statement.bind(values.map { SQLiteValueCodec.encode($0, storeIdentifier: "") })
        try statement.run()
    }
}
