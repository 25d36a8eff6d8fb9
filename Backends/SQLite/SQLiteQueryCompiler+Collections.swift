import Foundation
import StrataCore

// Property paths (to-one hops as correlated scalar subqueries) and collections: to-many
// relationships, stored JSON arrays and constant lists, iterated in subqueries.
extension SQLiteQueryCompiler.Compilation {
    typealias ModelReference = SQLiteQueryCompiler.ModelReference
    typealias Alias = SQLiteQueryCompiler.Alias

    // MARK: Properties

    /// The value (or collection) at `path` from the model or element bound to `variable`.
    ///
    /// Each to-one hop reads the next column through a correlated scalar subquery,
    /// `(SELECT t1."placeName" FROM "LivingAccommodation" AS t1 WHERE t1."_pk" = t0."livingAccommodation")`,
    /// which is `NULL` when the relationship is, as Swift's optional chaining. A to-one
    /// column is the related `_pk`; a to-many becomes a ``SQLiteQueryCompiler/Collection``.
    /// - Throws: ``SQLiteQueryCompiler/Unsupported`` for unknown names, hops across stores or
    ///   through attributes, cross-store to-many lists, and paths from plain values.
    mutating func property(variable: Int, path: [String], in scope: Scope) throws -> Compiled {
        guard let bound = scope[variable] else {
            throw Unsupported(reason: "the filter uses variable \(variable), which nothing binds")
        }
        var reference: ModelReference
        switch bound {
        case .element(let operand):
            guard path.isEmpty else {
                throw Unsupported(reason: "\(path.joined(separator: ".")) is read from a value, not a model")
            }
            return .value(operand)
        case .row(let alias, let entity):
            reference = .row(alias, entity: entity)
        }
        guard let last = path.last else { return .value(key(of: reference)) }
        for name in path.dropLast() {
            let table = try table(of: reference.entity)
            guard case .column(let index)? = try storage(of: name, in: table), let destination = table.columns[index].destination else {
                throw Unsupported(reason: "\(table.entityName).\(name) is not a to-one relationship, so no property can be read through it")
            }
            guard !table.columns[index].crossStore else {
                throw Unsupported(reason: "\(table.entityName).\(name) leads to another store")
            }
            reference = .key(read(table.columns[index], of: reference), entity: destination)
        }
        let table = try table(of: reference.entity)
        switch try storage(of: last, in: table) {
        case .column(let index):
            return .value(read(table.columns[index], of: reference))
        case .inverseColumn(let destination, let column):
            let owner = key(of: reference)
            let alias = newAlias()
            return .collection(Collection(
                from: "\(name: try self.table(of: destination).tableName) AS \(alias: alias)",
                conditions: ["\(alias: alias).\(name: column) = \(owner.sql)"],
                element: .row(alias, entity: destination),
                nullCheck: owner.nullable ? "\(owner.wrapped) IS NULL" : nil))
        case .joinTable(let name, let ownerColumn, let memberColumn, let destination):
            let owner = key(of: reference)
            let join = newAlias(), alias = newAlias()
            let primaryKey = SQLiteSchemaMapping.primaryKey
            return .collection(Collection(
                from: "\(name: name) AS \(alias: join) JOIN \(name: try self.table(of: destination).tableName) AS \(alias: alias) ON \(alias: alias).\(name: primaryKey) = \(alias: join).\(name: memberColumn)",
                conditions: ["\(alias: join).\(name: ownerColumn) = \(owner.sql)"],
                element: .row(alias, entity: destination),
                nullCheck: owner.nullable ? "\(owner.wrapped) IS NULL" : nil))
        case .crossStoreList:
            throw Unsupported(reason: "\(table.entityName).\(last) lists models of another store")
        case nil:
            throw Unsupported(reason: "\(table.entityName) has no property \(last)")
        }
    }

    func table(of entity: String) throws -> SQLiteSchemaMapping.Table {
        guard let table = compiler.mapping.tables[entity] else {
            throw Unsupported(reason: "the SQLite store has no table for \(entity)")
        }
        return table
    }

    func storage(of name: String, in table: SQLiteSchemaMapping.Table) throws -> SQLiteSchemaMapping.Property? {
        guard let index = table.propertyNames.firstIndex(of: name) else {
            throw Unsupported(reason: "\(table.entityName) has no property \(name)")
        }
        return table.properties[index]
    }

    /// The model's `_pk`.
    func key(of reference: ModelReference) -> Operand {
        switch reference {
        case .row(let alias, let entity):
            return Operand(sql: "\(alias: alias).\(name: SQLiteSchemaMapping.primaryKey)", kind: .identifier, destination: entity, nullable: false)
        case .key(let operand, _):
            return operand
        }
    }

    /// A column of the model: directly for a row, by a scalar subquery for a `_pk` expression.
    /// Decimal columns read as `CAST(... AS REAL)`.
    mutating func read(_ column: SQLiteSchemaMapping.Column, of reference: ModelReference) -> Operand {
        var sql: SQLiteQuery
        var nullable = column.isOptional
        switch reference {
        case .row(let alias, _):
            sql = "\(alias: alias).\(name: column.name)"
        case .key(let key, let entity):
            let alias = newAlias()
            let table = compiler.mapping.tables[entity]?.tableName ?? entity
            sql = "(SELECT \(alias: alias).\(name: column.name) FROM \(name: table) AS \(alias: alias) WHERE \(alias: alias).\(name: SQLiteSchemaMapping.primaryKey) = \(key.sql))"
            nullable = true
        }
        if column.kind == .decimal { sql = "CAST(\(sql) AS REAL)" }
        if column.destination != nil {
            return Operand(sql: sql, kind: .identifier, destination: column.destination, crossStore: column.crossStore, nullable: true)
        }
        if column.kind == .double {
            // NaN and -0.0 are stored as text and a blob (see `SQLiteValueCodec`): -0.0 reads as 0.0, which
            // Swift compares as equal, and NaN as NULL, behind a test the comparisons guard with.
            // Against a REAL column, a text literal that is not a number stays text.
            let isNaN: SQLiteQuery = "\(sql) = \(SQLiteQuery(sql: "'\(SQLiteValueCodec.notANumber)'"))"
            let numeric: SQLiteQuery = "CASE typeof(\(sql)) WHEN 'blob' THEN 0.0 WHEN 'text' THEN NULL ELSE \(sql) END"
            return Operand(sql: numeric, kind: .double, nullable: true, isNaN: isNaN)
        }
        return Operand(sql: sql, kind: column.kind, nullable: nullable)
    }

    // MARK: Collections

    /// The elements of a compiled collection operand: to-many rows as they are, a stored
    /// `Codable` value through `json_each`, a constant list as a `VALUES` table.
    ///
    /// - Throws: ``SQLiteQueryCompiler/Unsupported`` for values that are not collections.
    mutating func collection(_ compiled: Compiled) throws -> Collection {
        switch compiled {
        case .collection(let collection):
            return collection
        case .list(let values):
            let alias = newAlias()
            let elements = try values.map { try constant($0) }
            let rows: SQLiteQuery = elements.isEmpty
                ? "(SELECT NULL AS \"column1\" WHERE 0)"
                : "(VALUES " + .joined(elements.map { "(\($0.sql))" }, separator: ", ") + ")"
            let kinds = Set(elements.compactMap(\.kind)), destinations = Set(elements.compactMap(\.destination))
            return Collection(
                from: rows + " AS \(alias: alias)", conditions: [],
                element: .element(Operand(
                    sql: "\(alias: alias).\(name: "column1")", kind: kinds.count == 1 ? kinds.first : nil,
                    destination: destinations.count == 1 ? destinations.first : nil,
                    crossStore: elements.contains(where: \.crossStore), nullable: elements.contains(where: \.nullable))),
                nullCheck: nil)
        case .value(let operand):
            guard operand.kind == .codable else {
                throw Unsupported(reason: "a \(Self.kindName(operand.kind)) value is used as a collection")
            }
            // json_each yields JSON's scalars as SQL values (true as 1), nested arrays and objects as JSON text.
            let alias = newAlias()
            return Collection(
                from: "json_each(\(operand.sql)) AS \(alias: alias)", conditions: [],
                element: .element(Operand(
                    sql: "\(alias: alias).\(name: "value")", kind: nil, nullable: true,
                    jsonType: "\(alias: alias).\(name: "type")")),
                nullCheck: operand.nullable ? "\(operand.wrapped) IS NULL" : nil, holdsJSON: true)
        }
    }

    /// The element of `collection` as a value: a row's `_pk`, or the element itself.
    func elementValue(of collection: Collection) -> Operand {
        switch collection.element {
        case .row(let alias, let entity): key(of: .row(alias, entity: entity))
        case .element(let operand): operand
        }
    }

    /// `.count` of a string (`Character`s, by ``SQLiteFunctions``), of a stored JSON array
    /// or dictionary or an element of one (its characters, elements or members), of a
    /// relationship or filtered collection (`COUNT(*)` in a subquery), or of a constant list.
    mutating func count(_ compiled: Compiled) throws -> Operand {
        switch compiled {
        case .list(let values):
            return Operand(sql: "\(bind: .integer(Int64(values.count)))", kind: .int, nullable: false)
        case .value(let operand) where operand.kind == .string:
            let function = SQLiteQuery(sql: SQLiteFunctions.Name.characterCount)
            return Operand(sql: "\(function)(\(operand.sql))", kind: .int, nullable: operand.nullable)
        case .value(let operand) where operand.kind == nil && operand.jsonType != nil:
            // An element of stored JSON: a string's characters, a nested array's elements or an object's members.
            let function = SQLiteQuery(sql: SQLiteFunctions.Name.characterCount)
            let type = operand.jsonType!, value = operand.sql
            return Operand(
                sql: "CASE \(type) WHEN 'text' THEN \(function)(\(value)) WHEN 'array' THEN json_array_length(\(value)) WHEN 'object' THEN (SELECT COUNT(*) FROM json_each(\(value))) END",
                kind: .int, nullable: true)
        case .value(let operand) where operand.kind != .codable:
            throw Unsupported(reason: "a \(Self.kindName(operand.kind)) value has no count")
        default:
            let source = try collection(compiled)
            return Operand(
                sql: source.guarded("(SELECT COUNT(*) FROM \(source.fromWhere()))"), kind: .int,
                nullable: source.nullCheck != nil)
        }
    }

    /// Whether `collection` contains `element`.
    ///
    /// A constant list becomes `element IN (?, ...)` (or `IN (SELECT value FROM json_each(?))`
    /// for long lists of integers and strings), `NULL`-safe as Swift's `contains`; other
    /// collections an `EXISTS` subquery comparing elements with `IS`. Stored arrays hold JSON,
    /// so only needles whose JSON form is the column form are matched there (strings,
    /// integers, Booleans, UUIDs, URLs, `nil`); doubles and dates are left to the evaluator,
    /// as SQLite's JSON number parsing is exact only on some platforms.
    mutating func contains(_ collection: FilterExpression, _ element: FilterExpression, in scope: Scope) throws -> Operand {
        let compiled = try compile(collection, in: scope)
        let needle = try value(element, in: scope)
        if case .list(let values) = compiled { return try listContains(values, needle) }
        let source = try self.collection(compiled)
        let member = elementValue(of: source)
        if source.holdsJSON {
            switch needle.kind {
            case nil, .string, .int, .bool, .uuid, .url: break
            case let kind?: throw Unsupported(reason: "\(kind.rawValue) values in stored arrays are JSON that SQL cannot match exactly")
            }
        }
        try Self.requireComparable(member, needle)
        if Self.identifiersNeverMatch(member, needle) {
            return .condition(source.guarded("0"), nullable: source.nullCheck != nil, atomic: true)
        }
        let (left, right) = Operand.compared(member, needle)
        let match: SQLiteQuery = member.nullable || needle.nullable ? "\(left) IS \(right)" : "\(left) = \(right)"
        return .condition(
            source.guarded("EXISTS (SELECT 1 FROM \(source.fromWhere([match])))"),
            nullable: source.nullCheck != nil, atomic: true)
    }

    /// Lists longer than this are bound as one JSON array when their values allow it.
    static let longList = 64

    /// `needle IN (...)` over the list's non-`nil` values, `OR needle IS NULL` when the list
    /// holds `nil`, and never `NULL` itself (Swift's `contains` is `false` for a `nil` needle).
    mutating func listContains(_ values: [PersistentValue], _ needle: Operand) throws -> Operand {
        var hasNull = false
        var members: [Operand] = []
        for value in values {
            if value.isNull { hasNull = true; continue }
            let member = try constant(value)
            try Self.requireComparable(needle, member)
            if Self.identifiersNeverMatch(needle, member) { continue }
            members.append(member)
        }
        let isNull: SQLiteQuery = "\(needle.wrapped) IS NULL"
        guard !members.isEmpty else {
            return hasNull ? .condition(isNull, nullable: false) : .condition("0", nullable: false, atomic: true)
        }
        let bindings = members.map(\.sql.bindings)
        let inList: SQLiteQuery
        if members.count > Self.longList, members.allSatisfy({ $0.sql.sql == "?" }),
            let json = Self.jsonArray(bindings.map { $0[0] })
        {
            inList = "\(needle.compared) IN (SELECT \"value\" FROM json_each(\(bind: .text(json))))"
        } else {
            guard bindings.reduce(0, { $0 + $1.count }) < 30_000 else {
                throw Unsupported(reason: "the list is too long to bind")
            }
            inList = needle.compared + " IN (" + .joined(members.map(\.sql), separator: ", ") + ")"
        }
        if hasNull { return .condition("\(isNull) OR \(inList)", nullable: false) }
        if needle.nullable { return .condition("COALESCE(\(inList), 0)", nullable: false, atomic: true) }
        return .condition(inList, nullable: false)
    }

    /// A JSON array of integers and strings, or `nil` when a value is of another storage class.
    static func jsonArray(_ values: [SQLiteValue]) -> String? {
        var parts: [String] = []
        parts.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .integer(let number): parts.append(String(number))
            case .text(let text):
                guard let data = try? JSONEncoder().encode(text) else { return nil }
                parts.append(String(decoding: data, as: UTF8.self))
            default: return nil
            }
        }
        return "[" + parts.joined(separator: ",") + "]"
    }
}
