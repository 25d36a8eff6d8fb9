import Foundation
import StrataCore

/// The lightweight changes that bring a database written with one schema to another, all run
/// in the one transaction that also records the new schema:
///
/// - removed entities and to-many join tables are dropped;
/// - indexes and unique constraints the new schema no longer has are dropped; new ones are
///   built, and a new unique constraint that the stored rows break fails with an error naming it;
/// - a property renamed through `originalName` keeps its column, renamed; so does one whose
///   stored property named it as its `originalName` (the rename undone by a rollback plan);
///   an entity renamed through `@Model(originalName:)` keeps its table, renamed, and its
///   to-many join tables follow;
/// - removed properties' columns are dropped;
/// - new entities get tables, and new properties columns, filled with the property's default
///   value; a new required property without one is refused when the table has rows;
/// - a property that becomes required is refused while rows hold `nil` for it, unless its
///   default value can fill them.
///
/// A change of a property's kind (say `String` to `Int`) is not lightweight: it needs a custom
/// migration stage, and is refused with ``SwiftDataError/unknownSchema``.
struct SQLiteLightweightMigration {
    typealias Step = (SQLiteConnection) throws -> Void

    let stored: Schema
    let schema: Schema
    let mapping: SQLiteSchemaMapping
    let path: String

    /// The steps, in the order they must run; empty when the tables already fit.
    func steps() throws -> [Step] {
        let storedMapping = SQLiteSchemaMapping(schema: stored)
        let entityRenames = schema.entityRenames(from: stored)
        let renamedFrom = Set(entityRenames.values)
        var steps: [Step] = []
        for old in storedMapping.orderedTables where mapping.tables[old.entityName] == nil && !renamedFrom.contains(old.entityName) {
            steps.append { try $0.execute("DROP TABLE IF EXISTS \(SQLIdentifier.quote(old.tableName))") }
        }
        let joinRenames = joinTableRenames(storedMapping, entityRenames: entityRenames)
        let joins = Set(mapping.joinTables.map(\.name))
        let renamedJoins = Set(joinRenames.map(\.old))
        for join in storedMapping.joinTables where !joins.contains(join.name) && !renamedJoins.contains(join.name) {
            steps.append { try $0.execute("DROP TABLE IF EXISTS \(SQLIdentifier.quote(join.name))") }
        }
        let wanted = Set(mapping.orderedTables.flatMap { SQLiteSchemaWriter.indexes($0).map(\.name) })
        for old in storedMapping.orderedTables where mapping.tables[old.entityName] != nil || renamedFrom.contains(old.entityName) {
            for index in SQLiteSchemaWriter.indexes(old) where !wanted.contains(index.name) {
                steps.append { try $0.execute("DROP INDEX IF EXISTS \(SQLIdentifier.quote(index.name))") }
            }
        }
        for table in mapping.orderedTables {
            let formerName = entityRenames[table.entityName]
            guard let old = storedMapping.tables[formerName ?? table.entityName] else {
                steps.append { try $0.execute(SQLiteSchemaWriter.createTable(table, mapping: mapping)) }
                continue
            }
            if formerName != nil {
                steps.append {
                    try $0.execute("ALTER TABLE \(SQLIdentifier.quote(old.tableName)) RENAME TO \(SQLIdentifier.quote(table.tableName))")
                }
            }
            steps += try columnSteps(table, old: old)
        }
        for rename in joinRenames {
            steps.append { connection in
                let name = SQLIdentifier.quote(rename.new)
                if rename.old != rename.new { try connection.execute("ALTER TABLE \(SQLIdentifier.quote(rename.old)) RENAME TO \(name)") }
                guard rename.swapsSides else { return }
                // The other side now owns the table: its keys move to the source column.
                try connection.execute("ALTER TABLE \(name) RENAME COLUMN \"source\" TO \"_strata_swap\"")
                try connection.execute("ALTER TABLE \(name) RENAME COLUMN \"target\" TO \"source\"")
                try connection.execute("ALTER TABLE \(name) RENAME COLUMN \"_strata_swap\" TO \"target\"")
            }
        }
        steps.append { connection in
            for table in mapping.orderedTables {
                try connection.execute(SQLiteSchemaWriter.createTable(table, mapping: mapping))
                for index in SQLiteSchemaWriter.indexes(table) {
                    try createIndex(index.sql, isUnique: index.isUnique, table: table, name: index.name, on: connection)
                }
            }
            for statement in SQLiteSchemaWriter.joinTableStatements(mapping) { try connection.execute(statement) }
        }
        return steps
    }

    /// The join tables whose name or owning side changed because an entity or a to-many
    /// relationship was renamed: the stored table is renamed (and its columns swapped when
    /// the other side now owns it) rather than dropped, so the links are kept.
    private func joinTableRenames(
        _ storedMapping: SQLiteSchemaMapping, entityRenames: [String: String]
    ) -> [(old: String, new: String, swapsSides: Bool)] {
        let propertyRenames = schema.propertyRenames(from: stored)
        var renames: [(old: String, new: String, swapsSides: Bool)] = []
        var seen: Set<String> = []
        for table in mapping.orderedTables {
            let formerEntity = entityRenames[table.entityName] ?? table.entityName
            guard let old = storedMapping.tables[formerEntity] else { continue }
            for (slot, property) in table.properties.enumerated() {
                guard case .joinTable(let name, let owner, _, _) = property, !seen.contains(name) else { continue }
                let propertyName = table.propertyNames[slot]
                let formerProperty = propertyRenames[table.entityName]?[propertyName] ?? propertyName
                guard let oldSlot = old.propertyNames.firstIndex(of: formerProperty),
                    case .joinTable(let oldName, let oldOwner, _, _) = old.properties[oldSlot]
                else { continue }
                let swapsSides = oldOwner != owner
                guard oldName != name || swapsSides else { continue }
                seen.insert(name)
                renames.append((oldName, name, swapsSides))
            }
        }
        return renames
    }

    /// Renames, drops, adds and checks the columns of a table that both schemas have.
    private func columnSteps(_ table: SQLiteSchemaMapping.Table, old: SQLiteSchemaMapping.Table) throws -> [Step] {
        var steps: [Step] = []
        var oldColumns = Dictionary(old.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(table.columns.map(\.name))
        let quotedTable = SQLIdentifier.quote(table.tableName)
        // Renames first, so the columns they free are not dropped.
        let renames = schema.propertyRenames(from: stored)[table.entityName] ?? [:]
        for column in table.columns where oldColumns[column.name] == nil {
            guard let original = renames[column.name], let previous = oldColumns[original] else { continue }
            try checkKind(previous, column, table: table)
            oldColumns[original] = nil
            oldColumns[column.name] = previous
            steps.append {
                try $0.execute("ALTER TABLE \(quotedTable) RENAME COLUMN \(SQLIdentifier.quote(original)) TO \(SQLIdentifier.quote(column.name))")
            }
        }
        for name in oldColumns.keys.sorted() where !newNames.contains(name) {
            steps.append { try $0.execute("ALTER TABLE \(quotedTable) DROP COLUMN \(SQLIdentifier.quote(name))") }
        }
        for column in table.columns {
            let fill = try defaultValue(for: column, table: table)
            guard let previous = oldColumns[column.name] else {
                steps.append { connection in
                    if fill == nil, !column.isOptional, try hasRows(table, on: connection) {
                        throw SwiftDataError.unknownSchema.with(
                            details: "\(path): \(table.entityName).\(column.name) is new and neither optional nor given a default value, so existing rows have no value for it")
                    }
                    try connection.execute("ALTER TABLE \(quotedTable) ADD COLUMN \(SQLiteSchemaWriter.columnDefinition(column, mapping: mapping))")
                    if let fill { try run(SQLiteWriteStatements.fill(table, column: column.name), [fill], on: connection) }
                }
                continue
            }
            try checkKind(previous, column, table: table)
            guard previous.isOptional, !column.isOptional else { continue }
            steps.append { connection in
                let column = SQLIdentifier.quote(column.name)
                let missing = Int(try connection.scalarText("SELECT count(*) FROM \(quotedTable) WHERE \(column) IS NULL") ?? "0") ?? 0
                guard missing > 0 else { return }
                guard let fill else {
                    throw SwiftDataError.unknownSchema.with(
                        details: "\(path): \(table.entityName).\(column) is no longer optional, but \(missing) stored row(s) hold nil for it; give it a default value, or fill them in a custom migration stage")
                }
                try run("UPDATE \(quotedTable) SET \(column) = ?1 WHERE \(column) IS NULL", [fill], on: connection)
            }
        }
        return steps
    }

    private func checkKind(_ previous: SQLiteSchemaMapping.Column, _ column: SQLiteSchemaMapping.Column, table: SQLiteSchemaMapping.Table) throws {
        guard previous.kind != column.kind else { return }
        throw SwiftDataError.unknownSchema.with(
            details: "\(path): \(table.entityName).\(column.name) changed from \(previous.kind.rawValue) to \(column.kind.rawValue), which needs a custom migration stage")
    }

    /// The value that fills a column for rows written before it existed: its default value.
    private func defaultValue(for column: SQLiteSchemaMapping.Column, table: SQLiteSchemaMapping.Table) throws -> SQLiteValue? {
        let attribute = schema.entitiesByName[table.entityName]?.attributesByName[column.name]
        if column.isOptional && attribute?.defaultValue == nil { return nil }
        if let value = attribute?.defaultValue as? any PersistentAttributeValue {
            return SQLiteValueCodec.encode(value.persistentValue, storeIdentifier: "")
        }
        if let raw = attribute?.defaultValue as? any RawRepresentable, let value = raw.rawValue as? any PersistentAttributeValue {
            return SQLiteValueCodec.encode(value.persistentValue, storeIdentifier: "")
        }
        return nil
    }

    private func hasRows(_ table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> Bool {
        try connection.scalarText("SELECT EXISTS (SELECT 1 FROM \(SQLIdentifier.quote(table.tableName)))") == "1"
    }

    private func run(_ sql: String, _ values: [SQLiteValue], on connection: SQLiteConnection) throws {
        let statement = try connection.prepare(sql)
        try statement.bind(values)
        try statement.run()
    }

    /// Builds an index; a unique one the stored rows break is refused with an error naming it.
    private func createIndex(_ sql: String, isUnique: Bool, table: SQLiteSchemaMapping.Table, name: String, on connection: SQLiteConnection) throws {
        do {
            try connection.execute(sql)
        } catch let error as SQLiteStoreError where isUnique && SQLiteStoreError.ResultCode.constraint ~= error.resultCode {
            let columns = table.uniqueConstraints.first { "\(table.tableName)_unique_\($0.joined(separator: "_"))" == name } ?? []
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(path): the unique constraint on \(table.entityName) (\(columns.joined(separator: ", "))) does not hold for the stored rows, which have duplicates; remove them in a custom migration stage's willMigrate first")
        }
    }
}
