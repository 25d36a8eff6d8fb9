import Foundation
import PostgresNIO
import StrataCore

/// The core's filter trees and sort keys as PostgreSQL SQL, with every value a bound parameter.
///
/// Only what PostgreSQL answers as Swift does is compiled; the rest throws ``Unsupported``,
/// which the store reports as `preferInMemoryFilter` or `preferInMemorySort` so the core
/// finishes the fetch in memory. Every condition it writes is two-valued (`TRUE` or
/// `FALSE`, never `NULL`), so `AND`, `OR` and `NOT` combine them as Swift's operators do:
/// - `==` and `!=` are `IS [NOT] DISTINCT FROM`, so `nil == nil` holds;
/// - an ordering comparison with a `NULL` side is `FALSE`;
/// - a `Double` NaN is equal to nothing and ordered against nothing (PostgreSQL itself
///   equates NaNs and orders NaN above every number);
/// - strings compare by their NFC forms' bytes (``PostgresStrings``): equal exactly when
///   Swift's `==` holds, ordered as ``CanonicalString`` orders them.
///
/// Compiled: comparisons of attributes, to-one relationships and identifiers with values and
/// with each other, also through chains of to-one relationships (correlated scalar subqueries,
/// `NULL` where Swift's optional chaining gives `nil`); `??` and ternaries; `&&`, `||`, `!`;
/// `contains` on a list of values; ranges; and over a model's to-many relationships, `contains(model)`,
/// `contains(where:)`, `allSatisfy`, `filter` and `count` (`EXISTS` and `count(*)` subqueries).
/// String tests (`contains`, `starts(with:)`, `localizedStandardContains`, which Swift answers by
/// `Character`), localized orderings, arithmetic, and to-many relationships reached through a
/// to-one run in memory.
struct PostgresQueryCompiler {
    let mapping: RelationalSchemaMapping
    let writer: PostgresSchemaWriter
    let storeIdentifier: String

    /// Why a filter or sort has no exact SQL form.
    struct Unsupported: Error {
        let reason: String
    }

    /// SQL text and its bound values.
    struct Query {
        var sql: String
        var binds = PostgresBindings()
    }

    /// A compiled operand: its SQL, its kind (`nil` for a `NULL` constant), and for an
    /// identifier, the entity it names.
    struct Operand {
        var sql: String
        var kind: PersistentValue.Kind?
        var destination: String? = nil
    }

    /// What a filter variable stands for: a row of a table under an alias (the model, or an
    /// element of a to-many relationship), or a plain value.
    enum Bound {
        case row(alias: String, table: RelationalSchemaMapping.Table)
        case element(Operand)
    }

    /// The rows of a to-many relationship of one model: `FROM ... WHERE conditions`, each
    /// row bound to `element`.
    struct Collection {
        var from: String
        var conditions: [String]
        var element: Bound

        /// `from WHERE conditions AND extra`.
        func fromWhere(_ extra: [String] = []) -> String {
            let all = conditions + extra
            return all.isEmpty ? from : from + " WHERE " + all.joined(separator: " AND ")
        }
    }

    /// Compiles one query's filter and sort, appending bound values as it goes.
    struct Compilation {
        let compiler: PostgresQueryCompiler
        let table: RelationalSchemaMapping.Table
        var binds = PostgresBindings()
        private var aliases = 0

        init(compiler: PostgresQueryCompiler, table: RelationalSchemaMapping.Table) {
            self.compiler = compiler
            self.table = table
        }

        /// The root model's scope: variable 0 is the row aliased `t0`.
        var rootScope: [Int: Bound] { [0: .row(alias: "t0", table: table)] }

        private mutating func newAlias() -> String {
            aliases += 1
            return "t\(aliases)"
        }

        /// `filter` as a two-valued condition on rows aliased `t0`.
        mutating func condition(_ filter: FilterExpression) throws -> String {
            try condition(filter, in: rootScope)
        }

        mutating func condition(_ filter: FilterExpression, in scope: [Int: Bound]) throws -> String {
            switch filter {
            case .and(let lhs, let rhs): return "(\(try condition(lhs, in: scope)) AND \(try condition(rhs, in: scope)))"
            case .or(let lhs, let rhs): return "(\(try condition(lhs, in: scope)) OR \(try condition(rhs, in: scope)))"
            case .not(let operand): return "(NOT \(try condition(operand, in: scope)))"
            case .comparison(let comparison, let lhs, let rhs):
                return try compare(comparison, operand(lhs, in: scope), operand(rhs, in: scope))
            case .contains(.list(let values), let element):
                let item = try operand(element, in: scope)
                guard !values.isEmpty else { return "FALSE" }
                var terms: [String] = []
                for value in values { terms.append(try compare(.equal, item, operand(.value(value), in: scope))) }
                return "(" + terms.joined(separator: " OR ") + ")"
            case .contains(let collection, let element):
                // A to-many relationship holding a model: an `EXISTS` over its rows.
                let source = try self.collection(collection, in: scope)
                let needle = try operand(element, in: scope)
                let match = try compare(.equal, key(of: source.element), needle)
                return "EXISTS (SELECT 1 FROM \(source.fromWhere([match])))"
            case .rangeContains(let lower, let upper, let closed, let element):
                let item = try operand(element, in: scope)
                let low = try compare(.greaterOrEqual, item, operand(lower, in: scope))
                let high = try compare(closed ? .lessOrEqual : .less, item, operand(upper, in: scope))
                return "(\(low) AND \(high))"
            case .anySatisfy(let collection, let variable, let test):
                let source = try self.collection(collection, in: scope)
                let matches = try condition(test, in: scope.merging([variable: source.element]) { $1 })
                return "EXISTS (SELECT 1 FROM \(source.fromWhere([matches])))"
            case .allSatisfy(let collection, let variable, let test):
                let source = try self.collection(collection, in: scope)
                let matches = try condition(test, in: scope.merging([variable: source.element]) { $1 })
                return "(NOT EXISTS (SELECT 1 FROM \(source.fromWhere(["NOT \(matches)"]))))"
            case .property, .value, .coalesce, .conditional:
                let value = try operand(filter, in: scope)
                guard value.kind == .bool || value.kind == nil else { throw Unsupported(reason: "a \(value.kind!.rawValue) value is used as a condition") }
                return "COALESCE(\(value.sql), FALSE)"
            default:
                throw Unsupported(reason: "\(filter) has no exact PostgreSQL form in this store")
            }
        }

        /// A value: a bound constant, a column of a row (through to-one hops), a model's key, a
        /// count of a to-many relationship.
        mutating func operand(_ expression: FilterExpression, in scope: [Int: Bound]) throws -> Operand {
            switch expression {
            case .value(.null):
                return Operand(sql: "NULL", kind: nil)
            case .value(let value):
                var destination: String?
                if case .identifier(let id) = value {
                    guard id.primaryKey(as: Int64.self, inStore: compiler.storeIdentifier) != nil else {
                        throw Unsupported(reason: "an identifier of another store is compared")
                    }
                    destination = id.entityName
                }
                guard ![.codable, .identifiers, .url].contains(value.kind) else { throw Unsupported(reason: "a \(value.kind?.rawValue ?? "nil") value is compared") }
                PostgresValueCodec.bind(value, to: &binds, storeIdentifier: compiler.storeIdentifier)
                return Operand(sql: PostgresValueCodec.placeholder(binds.count, kind: value.kind), kind: value.kind, destination: destination)
            case .property(let variable, let path):
                return try property(variable: variable, path: path, in: scope)
            case .coalesce(let value, let fallback):
                // Swift's `??`: NaN is a value, so `NaN ?? x` is NaN, as COALESCE keeps it.
                let first = try operand(value, in: scope), second = try operand(fallback, in: scope)
                if let left = first.kind, let right = second.kind, left != right {
                    throw Unsupported(reason: "?? joins a \(left.rawValue) and a \(right.rawValue)")
                }
                return Operand(sql: "COALESCE(\(first.sql), \(second.sql))", kind: first.kind ?? second.kind, destination: first.destination ?? second.destination)
            case .conditional(let test, let then, let otherwise):
                let condition = try self.condition(test, in: scope)
                let yes = try operand(then, in: scope), no = try operand(otherwise, in: scope)
                if let left = yes.kind, let right = no.kind, left != right {
                    throw Unsupported(reason: "a ternary yields a \(left.rawValue) or a \(right.rawValue)")
                }
                return Operand(sql: "(CASE WHEN \(condition) THEN \(yes.sql) ELSE \(no.sql) END)", kind: yes.kind ?? no.kind, destination: yes.destination ?? no.destination)
            case .count(let collection):
                if case .list(let values) = collection { return Operand(sql: "\(values.count)", kind: .int) }
                let source = try self.collection(collection, in: scope)
                return Operand(sql: "(SELECT count(*) FROM \(source.fromWhere()))", kind: .int)
            default:
                throw Unsupported(reason: "\(expression) has no exact PostgreSQL form in this store")
            }
        }

        /// The value at `path` from what `variable` stands for: each to-one hop reads the next
        /// column through a correlated scalar subquery, `NULL` when the relationship is, as
        /// Swift's optional chaining.
        private mutating func property(variable: Int, path: [String], in scope: [Int: Bound]) throws -> Operand {
            guard let bound = scope[variable] else { throw Unsupported(reason: "the filter uses variable \(variable), which nothing binds") }
            switch bound {
            case .element(let operand):
                guard path.isEmpty else { throw Unsupported(reason: "\(path.joined(separator: ".")) is read from a value") }
                return operand
            case .row(let alias, let table):
                var reference = (sql: "\(alias).\(SQLIdentifier.quote(RelationalSchemaMapping.primaryKey))", table: table, isRow: true, alias: alias)
                guard let last = path.last else { return Operand(sql: reference.sql, kind: .identifier, destination: table.entityName) }
                for name in path.dropLast() {
                    let column = try self.column(name, of: reference.table)
                    guard column.kind == .identifier, !column.crossStore, let destination = column.destination,
                        let next = compiler.mapping.tables[destination]
                    else { throw Unsupported(reason: "\(reference.table.entityName).\(name) is not a to-one relationship of this store") }
                    let value = read(column, reference)
                    reference = (value, next, false, "")
                }
                let column = try self.column(last, of: reference.table)
                guard !column.crossStore, ![.codable, .identifiers, .url].contains(column.kind) else {
                    throw Unsupported(reason: "\(reference.table.entityName).\(column.name) is a \(column.kind.rawValue), which SQL does not compare as Swift does")
                }
                return Operand(sql: read(column, reference), kind: column.kind, destination: column.destination)
            }
        }

        /// A column of a row under an alias, or of the row a key expression names (a scalar subquery).
        private mutating func read(
            _ column: RelationalSchemaMapping.Column, _ reference: (sql: String, table: RelationalSchemaMapping.Table, isRow: Bool, alias: String)
        ) -> String {
            if reference.isRow { return "\(reference.alias).\(SQLIdentifier.quote(column.name))" }
            let alias = newAlias()
            let primaryKey = SQLIdentifier.quote(RelationalSchemaMapping.primaryKey)
            return "(SELECT \(alias).\(SQLIdentifier.quote(column.name)) FROM \(compiler.writer.qualified(reference.table.tableName)) AS \(alias) WHERE \(alias).\(primaryKey) = \(reference.sql))"
        }

        private func column(_ name: String, of table: RelationalSchemaMapping.Table) throws -> RelationalSchemaMapping.Column {
            guard let column = table.columns.first(where: { $0.name == name }) else {
                throw Unsupported(reason: "\(name) is not a column of \(table.entityName)")
            }
            return column
        }

        /// The rows of a to-many relationship of the model a variable stands for, or of such
        /// a collection filtered. Only relationships of a row (not reached through a to-one
        /// hop, which may be `nil`) are compiled.
        private mutating func collection(_ expression: FilterExpression, in scope: [Int: Bound]) throws -> Collection {
            switch expression {
            case .filter(let collection, let variable, let test):
                var source = try self.collection(collection, in: scope)
                source.conditions.append(try condition(test, in: scope.merging([variable: source.element]) { $1 }))
                return source
            case .property(let variable, let path) where path.count == 1:
                guard case .row(let alias, let owner)? = scope[variable], let slot = owner.propertyNames.firstIndex(of: path[0]) else {
                    throw Unsupported(reason: "\(path[0]) is not a to-many relationship of a model in this filter")
                }
                let ownerKey = "\(alias).\(SQLIdentifier.quote(RelationalSchemaMapping.primaryKey))"
                let primaryKey = SQLIdentifier.quote(RelationalSchemaMapping.primaryKey)
                switch owner.properties[slot] {
                case .inverseColumn(let destination, let column):
                    guard let target = compiler.mapping.tables[destination] else { break }
                    let element = newAlias()
                    return Collection(
                        from: "\(compiler.writer.qualified(target.tableName)) AS \(element)",
                        conditions: ["\(element).\(SQLIdentifier.quote(column)) = \(ownerKey)"], element: .row(alias: element, table: target))
                case .joinTable(let name, let ownerColumn, let memberColumn, let destination):
                    guard let target = compiler.mapping.tables[destination] else { break }
                    let join = newAlias(), element = newAlias()
                    return Collection(
                        from: "\(compiler.writer.qualified(name)) AS \(join) JOIN \(compiler.writer.qualified(target.tableName)) AS \(element) ON \(element).\(primaryKey) = \(join).\(SQLIdentifier.quote(memberColumn))",
                        conditions: ["\(join).\(SQLIdentifier.quote(ownerColumn)) = \(ownerKey)"], element: .row(alias: element, table: target))
                case .column, .crossStoreList:
                    break
                }
                throw Unsupported(reason: "\(owner.entityName).\(path[0]) is not a to-many relationship of this store")
            default:
                throw Unsupported(reason: "\(expression) is not a collection this store iterates in SQL")
            }
        }

        /// The key of a collection's element row.
        private func key(of element: Bound) -> Operand {
            switch element {
            case .row(let alias, let table):
                return Operand(sql: "\(alias).\(SQLIdentifier.quote(RelationalSchemaMapping.primaryKey))", kind: .identifier, destination: table.entityName)
            case .element(let operand):
                return operand
            }
        }

        /// A two-valued comparison, with Swift's answers for `nil`, NaN and strings.
        func compare(_ comparison: FilterComparison, _ lhs: Operand, _ rhs: Operand) throws -> String {
            if let left = lhs.kind, let right = rhs.kind, left != right {
                throw Unsupported(reason: "a \(left.rawValue) is compared with a \(right.rawValue)")
            }
            if let left = lhs.destination, let right = rhs.destination, left != right {
                // Models of different entities are never the same model, whatever their keys.
                switch comparison {
                case .equal: return "FALSE"
                case .notEqual: return "TRUE"
                default: throw Unsupported(reason: "identifiers are ordered")
                }
            }
            let kind = lhs.kind ?? rhs.kind
            var left = lhs.sql, right = rhs.sql
            if kind == .string {
                left = PostgresStrings.canonical(left)
                right = PostgresStrings.canonical(right)
            }
            // A NaN side makes == false and every ordering false; `'NaN' <> 'NaN'` is false in PostgreSQL.
            let numbers = kind == .double ? " AND COALESCE(\(lhs.sql) <> 'NaN'::float8, TRUE) AND COALESCE(\(rhs.sql) <> 'NaN'::float8, TRUE)" : ""
            switch comparison {
            case .equal: return "(\(left) IS NOT DISTINCT FROM \(right)\(numbers))"
            case .notEqual: return "(NOT (\(left) IS NOT DISTINCT FROM \(right)\(numbers)))"
            default:
                guard let kind, [.int, .double, .string, .date, .uuid, .decimal].contains(kind) else {
                    throw Unsupported(reason: "values of kind \(kind?.rawValue ?? "nil") are ordered")
                }
                let symbol = switch comparison {
                case .less: "<"
                case .lessOrEqual: "<="
                case .greater: ">"
                default: ">="
                }
                return "(COALESCE(\(left) \(symbol) \(right), FALSE)\(numbers))"
            }
        }

        /// `ORDER BY` terms, ending with the key: `nil` first ascending and last descending, NaN
        /// after every number ascending, as the core's evaluator sorts. A key reached through
        /// to-one relationships reads through them.
        mutating func orderBy(_ sort: [FilterSortKey]) throws -> String {
            var terms: [String] = []
            for key in sort {
                guard key.stringOrder == nil else { throw Unsupported(reason: "a localized string order") }
                let value = try operand(.property(variable: 0, path: key.path), in: rootScope)
                guard let kind = value.kind, [.bool, .int, .double, .string, .date, .uuid, .decimal].contains(kind) || key.path.isEmpty else {
                    throw Unsupported(reason: "sorting by \(key.path.joined(separator: "."))")
                }
                let term = kind == .string ? PostgresStrings.canonical(value.sql) : value.sql
                terms.append(term + (key.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
            }
            terms.append("t0." + SQLIdentifier.quote(RelationalSchemaMapping.primaryKey))
            return terms.joined(separator: ", ")
        }
    }

    /// `FROM "schema"."Entity" AS t0 [WHERE ...]` and its bound values.
    func rows(of table: RelationalSchemaMapping.Table, filter: FilterExpression?) throws -> Compilation.Result {
        var compilation = Compilation(compiler: self, table: table)
        var sql = " FROM \(writer.qualified(table.tableName)) AS t0"
        if let filter { sql += " WHERE " + (try compilation.condition(filter)) }
        return Compilation.Result(from: sql, compilation: compilation)
    }

    /// `SELECT <selection> FROM ... WHERE ... ORDER BY ... LIMIT ... OFFSET ...`.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   for what has no exact SQL form.
    func select(
        _ selection: [String], from table: RelationalSchemaMapping.Table, filter: FilterExpression?, sort: [FilterSortKey]?,
        limit: Int?, offset: Int?
    ) throws -> Query {
        var result: Compilation.Result
        do {
            result = try rows(of: table, filter: filter)
        } catch is Unsupported {
            throw DataStoreError.preferInMemoryFilter
        }
        var sql = "SELECT " + selection.joined(separator: ", ") + result.from
        if let sort {
            do {
                sql += " ORDER BY " + (try result.compilation.orderBy(sort))
            } catch is Unsupported {
                throw DataStoreError.preferInMemorySort
            }
        }
        sql += Self.window(limit: limit, offset: offset)
        return Query(sql: sql, binds: result.compilation.binds)
    }

    /// ` LIMIT n OFFSET m`, for what is set.
    static func window(limit: Int?, offset: Int?) -> String {
        var sql = ""
        if let limit { sql += " LIMIT \(max(0, limit))" }
        if let offset, offset > 0 { sql += " OFFSET \(offset)" }
        return sql
    }
}

extension PostgresQueryCompiler.Compilation {
    /// A compiled `FROM ... WHERE ...` and the compilation that holds its bound values.
    struct Result {
        var from: String
        var compilation: PostgresQueryCompiler.Compilation
    }
}
