import Foundation

/// The lightweight changes that bring tables written with one schema to another, for the
/// stores that keep a ``RelationalSchemaMapping`` (SQLite, PostgreSQL). The steps are data;
/// each store runs them in the one transaction that also records the new schema, in its own SQL:
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
package struct RelationalLightweightMigration {
    /// One change, in the order ``steps()`` lists them.
    package enum Step {
        /// Drop the table of a removed entity or join table.
        case dropTable(String)
        /// Drop an index the new schema no longer has.
        case dropIndex(String)
        /// Create the table of a new entity.
        case createTable(RelationalSchemaMapping.Table)
        /// Rename an entity's table.
        case renameTable(from: String, to: String)
        /// Rename a join table; with `swapsSides`, exchange its `source` and `target` columns,
        /// because the other side of the relationship now owns it.
        case renameJoinTable(from: String, to: String, swapsSides: Bool)
        /// Rename a column of `table`.
        case renameColumn(table: String, from: String, to: String)
        /// Drop a column of `table`.
        case dropColumn(table: String, column: String)
        /// Add a column, setting every row to `fill`. With no `fill` and a required column,
        /// refuse (``RelationalLightweightMigration/missingValue(table:column:)``) when the table has rows.
        case addColumn(RelationalSchemaMapping.Table, RelationalSchemaMapping.Column, fill: PersistentValue?)
        /// A column became required: set its `nil`s to `fill`, or refuse
        /// (``RelationalLightweightMigration/nilValues(table:column:count:)``) when there are some and no `fill`.
        case requireValues(RelationalSchemaMapping.Table, RelationalSchemaMapping.Column, fill: PersistentValue?)
        /// Create every table, index and join table of the new mapping that does not exist
        /// yet; a unique index the rows break is refused with ``RelationalLightweightMigration/brokenUniqueness(table:columns:)``.
        case createMissing
    }

    let stored: Schema
    let schema: Schema
    let mapping: RelationalSchemaMapping
    /// Where the data is, for messages: a path, or a server and database.
    let location: String
    /// The names of the indexes a store makes for a table, to tell which old ones to drop.
    let indexNames: (RelationalSchemaMapping.Table) -> [String]

    package init(
        stored: Schema, schema: Schema, mapping: RelationalSchemaMapping, location: String,
        indexNames: @escaping (RelationalSchemaMapping.Table) -> [String]
    ) {
        self.stored = stored
        self.schema = schema
        self.mapping = mapping
        self.location = location
        self.indexNames = indexNames
    }

    /// The steps, in the order they must run.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` for a change that is not lightweight.
    package func steps() throws -> [Step] {
        let storedMapping = RelationalSchemaMapping(schema: stored)
        let entityRenames = schema.entityRenames(from: stored)
        let renamedFrom = Set(entityRenames.values)
        var steps: [Step] = []
        for old in storedMapping.orderedTables where mapping.tables[old.entityName] == nil && !renamedFrom.contains(old.entityName) {
            steps.append(.dropTable(old.tableName))
        }
        let joinRenames = joinTableRenames(storedMapping, entityRenames: entityRenames)
        let joins = Set(mapping.joinTables.map(\.name))
        let renamedJoins = Set(joinRenames.map(\.old))
        for join in storedMapping.joinTables where !joins.contains(join.name) && !renamedJoins.contains(join.name) {
            steps.append(.dropTable(join.name))
        }
        let wanted = Set(mapping.orderedTables.flatMap(indexNames))
        for old in storedMapping.orderedTables where mapping.tables[old.entityName] != nil || renamedFrom.contains(old.entityName) {
            for name in indexNames(old) where !wanted.contains(name) { steps.append(.dropIndex(name)) }
        }
        for table in mapping.orderedTables {
            let formerName = entityRenames[table.entityName]
            guard let old = storedMapping.tables[formerName ?? table.entityName] else {
                steps.append(.createTable(table))
                continue
            }
            if formerName != nil { steps.append(.renameTable(from: old.tableName, to: table.tableName)) }
            steps += try columnSteps(table, old: old)
        }
        for rename in joinRenames { steps.append(.renameJoinTable(from: rename.old, to: rename.new, swapsSides: rename.swapsSides)) }
        steps.append(.createMissing)
        return steps
    }

    /// The join tables whose name or owning side changed because an entity or a to-many
    /// relationship was renamed: the stored table is renamed (and its columns swapped when
    /// the other side now owns it) rather than dropped, so the links are kept.
    private func joinTableRenames(
        _ storedMapping: RelationalSchemaMapping, entityRenames: [String: String]
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
    private func columnSteps(_ table: RelationalSchemaMapping.Table, old: RelationalSchemaMapping.Table) throws -> [Step] {
        var steps: [Step] = []
        var oldColumns = Dictionary(old.columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let newNames = Set(table.columns.map(\.name))
        // Renames first, so the columns they free are not dropped.
        let renames = schema.propertyRenames(from: stored)[table.entityName] ?? [:]
        for column in table.columns where oldColumns[column.name] == nil {
            guard let original = renames[column.name], let previous = oldColumns[original] else { continue }
            try checkKind(previous, column, table: table)
            oldColumns[original] = nil
            oldColumns[column.name] = previous
            steps.append(.renameColumn(table: table.tableName, from: original, to: column.name))
        }
        for name in oldColumns.keys.sorted() where !newNames.contains(name) {
            steps.append(.dropColumn(table: table.tableName, column: name))
        }
        for column in table.columns {
            let fill = defaultValue(for: column, table: table)
            guard let previous = oldColumns[column.name] else {
                steps.append(.addColumn(table, column, fill: fill))
                continue
            }
            try checkKind(previous, column, table: table)
            if previous.isOptional && !column.isOptional { steps.append(.requireValues(table, column, fill: fill)) }
        }
        return steps
    }

    private func checkKind(_ previous: RelationalSchemaMapping.Column, _ column: RelationalSchemaMapping.Column, table: RelationalSchemaMapping.Table) throws {
        guard previous.kind != column.kind else { return }
        throw SwiftDataError.unknownSchema.with(
            details: "\(location): \(table.entityName).\(column.name) changed from \(previous.kind.rawValue) to \(column.kind.rawValue), which needs a custom migration stage")
    }

    /// The value that fills a column for rows written before it existed: its default value.
    private func defaultValue(for column: RelationalSchemaMapping.Column, table: RelationalSchemaMapping.Table) -> PersistentValue? {
        let attribute = schema.entitiesByName[table.entityName]?.attributesByName[column.name]
        if column.isOptional && attribute?.defaultValue == nil { return nil }
        if let value = attribute?.defaultValue as? any PersistentAttributeValue { return value.persistentValue }
        if let raw = attribute?.defaultValue as? any RawRepresentable, let value = raw.rawValue as? any PersistentAttributeValue {
            return value.persistentValue
        }
        return nil
    }

    /// The refusal of ``Step/addColumn(_:_:fill:)`` for a table that has rows.
    package func missingValue(table: RelationalSchemaMapping.Table, column: RelationalSchemaMapping.Column) -> SwiftDataError {
        SwiftDataError.unknownSchema.with(
            details: "\(location): \(table.entityName).\(column.name) is new and neither optional nor given a default value, so existing rows have no value for it")
    }

    /// The refusal of ``Step/requireValues(_:_:fill:)`` when `count` rows hold `nil`.
    package func nilValues(table: RelationalSchemaMapping.Table, column: RelationalSchemaMapping.Column, count: Int) -> SwiftDataError {
        SwiftDataError.unknownSchema.with(
            details: "\(location): \(table.entityName).\(column.name) is no longer optional, but \(count) stored row(s) hold nil for it; give it a default value, or fill them in a custom migration stage")
    }

    /// The refusal of a new unique index that the stored rows break.
    package func brokenUniqueness(table: RelationalSchemaMapping.Table, columns: [String]) -> SwiftDataError {
        SwiftDataError.modelValidationFailure.with(
            details: "\(location): the unique constraint on \(table.entityName) (\(columns.joined(separator: ", "))) does not hold for the stored rows, which have duplicates; remove them in a custom migration stage's willMigrate first")
    }
}
