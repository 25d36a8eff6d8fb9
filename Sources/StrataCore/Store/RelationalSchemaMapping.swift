import Foundation

/// How a schema becomes relational tables, for the stores that keep models in SQL tables
/// (SQLite, PostgreSQL): one table per entity with an integer primary key `_pk`, one column
/// per attribute and per to-one relationship, and join tables for to-many relationships
/// that have no to-one inverse. Each store chooses how a column holds its kind of value.
package struct RelationalSchemaMapping: Sendable {
    /// The table of one entity.
    package struct Table: Sendable {
        /// The fields, in one object: a save or fetch hands a table along row after row, and
        /// copying a struct of eleven arrays and strings was eleven retains and releases.
        private final class Fields: Sendable {
            let entityName: String
            let tableName: String
            let propertyNames: [String]
            let properties: [Property]
            let columns: [Column]
            let uniqueConstraints: [[String]]
            let indices: [[String]]
            let columnSlots: [Int]
            let everySlot: [Int?]
            let everyColumn: [Int]
            let wholeRowSelection: [String]
            let columnKinds: [PersistentValue.Kind]
            let columnsExternallyStored: [Bool]
            let columnAtSlot: [Int?]
            let hasJoinTables: Bool
            let hasToManyProperties: Bool
            let hasExternalStorage: Bool

            init(
                entityName: String, tableName: String, propertyNames: [String], properties: [Property], columns: [Column],
                uniqueConstraints: [[String]], indices: [[String]]
            ) {
                self.entityName = entityName
                self.tableName = tableName
                self.propertyNames = propertyNames
                self.properties = properties
                self.columns = columns
                self.uniqueConstraints = uniqueConstraints
                self.indices = indices
                columnSlots = columns.map(\.slot)
                everySlot = propertyNames.indices.map { $0 }
                everyColumn = Array(columns.indices)
                wholeRowSelection = ([RelationalSchemaMapping.primaryKey] + columns.map(\.name)).map { "t0." + SQLIdentifier.quote($0) }
                columnKinds = columns.map(\.kind)
                columnsExternallyStored = columns.map(\.externalStorage)
                var columnAtSlot = [Int?](repeating: nil, count: propertyNames.count)
                for (index, column) in columns.enumerated() { columnAtSlot[column.slot] = index }
                self.columnAtSlot = columnAtSlot
                hasJoinTables = properties.contains { if case .joinTable = $0 { true } else { false } }
                hasToManyProperties = properties.contains {
                    switch $0 {
                    case .column, .crossStoreList: false
                    case .inverseColumn, .joinTable: true
                    }
                }
                hasExternalStorage = columns.contains(where: \.externalStorage)
            }
        }

        private let fields: Fields

        package var entityName: String { fields.entityName }
        package var tableName: String { fields.tableName }
        /// Property names in slot order, as snapshots carry them.
        package var propertyNames: [String] { fields.propertyNames }
        /// One entry per property, in slot order.
        package var properties: [Property] { fields.properties }
        /// Columns besides `_pk`, in table order: attributes and to-one relationships.
        package var columns: [Column] { fields.columns }
        package var uniqueConstraints: [[String]] { fields.uniqueConstraints }
        package var indices: [[String]] { fields.indices }
        /// The slot of each column, in column order.
        package var columnSlots: [Int] { fields.columnSlots }
        /// Every slot, for a snapshot that lists every property (``SnapshotColumns``).
        package var everySlot: [Int?] { fields.everySlot }
        /// Every column index, in order.
        package var everyColumn: [Int] { fields.everyColumn }
        /// The primary key and every column, qualified with the alias `t0`: what a fetch of
        /// whole rows selects, quoted once rather than for every fetch.
        package var wholeRowSelection: [String] { fields.wholeRowSelection }
        /// The kind of each column, in column order.
        package var columnKinds: [PersistentValue.Kind] { fields.columnKinds }
        /// Whether each column, in column order, holds references to externally stored files.
        package var columnsExternallyStored: [Bool] { fields.columnsExternallyStored }
        /// For each slot, the index of its column, or `nil` for a slot without one (a to-many
        /// relationship): where a whole row's reader finds each value, made once per table
        /// rather than for every fetch.
        package var columnAtSlot: [Int?] { fields.columnAtSlot }

        /// Whether a to-many relationship keeps its members in a join table, so that a saved
        /// row has join rows to write.
        package var hasJoinTables: Bool { fields.hasJoinTables }

        /// Whether a to-many relationship is read from another table (its destination's
        /// to-one column or a join table), so a fetch loads members after the rows.
        package var hasToManyProperties: Bool { fields.hasToManyProperties }

        /// Whether a column may keep its data in a file of its own (`.externalStorage`).
        package var hasExternalStorage: Bool { fields.hasExternalStorage }

        package init(
            entityName: String, tableName: String, propertyNames: [String], properties: [Property], columns: [Column],
            uniqueConstraints: [[String]], indices: [[String]]
        ) {
            fields = Fields(
                entityName: entityName, tableName: tableName, propertyNames: propertyNames, properties: properties, columns: columns,
                uniqueConstraints: uniqueConstraints, indices: indices)
        }

        /// The keys of `identifiers` that can name rows of this table (of `storeIdentifier`'s
        /// store and this entity), each once, in order.
        package func keys(of identifiers: [PersistentIdentifier], storeIdentifier: String) -> [Int64] {
            var seen = Set<Int64>()
            return identifiers.compactMap { id in
                guard id.entityName == entityName, let key = id.primaryKey(as: Int64.self, inStore: storeIdentifier),
                    seen.insert(key).inserted
                else { return nil }
                return key
            }
        }

        /// Slots by property name.
        package var slotsByName: [String: Int] { Dictionary(uniqueKeysWithValues: propertyNames.enumerated().map { ($1, $0) }) }
    }

    /// A column of an entity table.
    package struct Column: Sendable {
        package let name: String
        /// The property's slot.
        package let slot: Int
        package let kind: PersistentValue.Kind
        package let isOptional: Bool
        /// For to-one relationships: the destination entity; `crossStore` when it lives elsewhere.
        package let destination: String?
        package let crossStore: Bool
        package let externalStorage: Bool
    }

    /// How one property is stored.
    package enum Property: Sendable {
        /// A column of the entity's own table (attributes and to-one relationships).
        case column(Int)
        /// A to-many read from the destination table's column that holds the inverse to-one.
        case inverseColumn(destination: String, column: String)
        /// A to-many stored in a join table; `ownerColumn` holds this entity's `_pk`.
        case joinTable(name: String, ownerColumn: String, memberColumn: String, destination: String)
        /// A to-many whose destination lives in another store: a JSON array of identifiers.
        case crossStoreList(column: Int)
    }

    /// A join table shared by a many-to-many pair, or owned by a one-way to-many.
    package struct JoinTable: Sendable, Hashable {
        package let name: String
        package let sourceColumn: String
        package let targetColumn: String
    }

    package let tables: [String: Table]
    package let orderedTables: [Table]
    package let joinTables: [JoinTable]

    package static let primaryKey = "_pk"

    /// For each entity with `.preserveValueOnDeletion` attributes, their columns: what a
    /// delete reads for the tombstone it records in history.
    package func preservedColumns(in schema: Schema) -> [String: [Column]] {
        var preservedColumns: [String: [Column]] = [:]
        for table in orderedTables {
            guard let entity = schema.entitiesByName[table.entityName] else { continue }
            let preserved = Set(entity.attributes.filter { $0.options.contains(.preserveValueOnDeletion) }.map(\.name))
            let columns = table.columns.filter { preserved.contains($0.name) }
            if !columns.isEmpty { preservedColumns[table.entityName] = columns }
        }
        return preservedColumns
    }

    package init(schema: Schema) {
        let local = Set(schema.entities.map(\.name))
        var tables: [String: Table] = [:]
        var ordered: [Table] = []
        var joins: [JoinTable] = []
        for entity in schema.entities {
            var columns: [Column] = []
            var properties: [Property] = []
            for (slot, property) in entity.storedProperties.enumerated() {
                if let attribute = property as? Schema.Attribute {
                    properties.append(.column(columns.count))
                    columns.append(Column(
                        name: attribute.name, slot: slot, kind: attribute.persistentValueKind,
                        isOptional: attribute.isOptional, destination: nil, crossStore: false,
                        externalStorage: attribute.options.contains(.externalStorage) && attribute.persistentValueKind == .data))
                    continue
                }
                guard let relationship = property as? Schema.Relationship else { continue }
                let crossStore = !local.contains(relationship.destination)
                if relationship.isToOneRelationship {
                    properties.append(.column(columns.count))
                    columns.append(Column(
                        name: relationship.name, slot: slot, kind: .identifier, isOptional: true,
                        destination: relationship.destination, crossStore: crossStore, externalStorage: false))
                } else if crossStore {
                    properties.append(.crossStoreList(column: columns.count))
                    columns.append(Column(
                        name: relationship.name, slot: slot, kind: .identifiers, isOptional: true,
                        destination: relationship.destination, crossStore: true, externalStorage: false))
                } else if let inverseName = relationship.inverseName,
                    let inverse = schema.entitiesByName[relationship.destination]?.relationshipsByName[inverseName],
                    inverse.isToOneRelationship
                {
                    properties.append(.inverseColumn(destination: relationship.destination, column: inverseName))
                } else {
                    let join = Self.joinTable(entity: entity.name, relationship: relationship)
                    if !joins.contains(join) { joins.append(join) }
                    let owns = join.name == Self.joinTableName(entity.name, relationship.name)
                    properties.append(.joinTable(
                        name: join.name, ownerColumn: owns ? join.sourceColumn : join.targetColumn,
                        memberColumn: owns ? join.targetColumn : join.sourceColumn, destination: relationship.destination))
                }
            }
            let table = Table(
                entityName: entity.name, tableName: entity.name, propertyNames: entity.storedPropertyNames,
                properties: properties, columns: columns, uniqueConstraints: entity.uniquenessConstraints,
                indices: zip(entity.indices, entity.indexKinds).filter { $0.1 == .binary }.map(\.0))
            tables[entity.name] = table
            ordered.append(table)
        }
        self.tables = tables
        self.orderedTables = ordered
        self.joinTables = joins
    }

    private static func joinTableName(_ entity: String, _ relationship: String) -> String {
        "\(entity)_\(relationship)"
    }

    /// The join table of a to-many without a to-one inverse: named after the smaller of the
    /// two (entity, relationship) pairs, so both sides of a many-to-many share it.
    private static func joinTable(entity: String, relationship: Schema.Relationship) -> JoinTable {
        let mine = joinTableName(entity, relationship.name)
        guard let inverse = relationship.inverseName else {
            return JoinTable(name: mine, sourceColumn: "source", targetColumn: "target")
        }
        let theirs = joinTableName(relationship.destination, inverse)
        return JoinTable(name: min(mine, theirs), sourceColumn: "source", targetColumn: "target")
    }
}

/// SQL identifier quoting: every table and column name passes through here.
package enum SQLIdentifier {
    package static func quote(_ name: String) -> String {
        // Names rarely hold a quote; Foundation's replacingOccurrences bridges through
        // NSString and cost more than the rest of compiling a lookup.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        var quoted = "\""
        for scalar in name.unicodeScalars {
            quoted.unicodeScalars.append(scalar)
            if scalar == "\"" { quoted.unicodeScalars.append(scalar) }
        }
        return quoted + "\""
    }
}
