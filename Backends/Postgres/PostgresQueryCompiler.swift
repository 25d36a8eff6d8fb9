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
/// Compiled today: comparisons of attributes, to-one relationships and the model's own
/// identifier with values and with each other, `&&`, `||`, `!`, `contains` on a list of
/// values, and ranges. String tests (`contains`, `starts(with:)`, `localizedStandardContains`),
/// localized orderings, arithmetic, optional chaining through relationships and tests over
/// to-many relationships run in memory.
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

    /// A compiled operand: its SQL, its kind (`nil` for a `NULL` constant), and whether it is
    /// a to-one or identifier of this store.
    struct Operand {
        var sql: String
        var kind: PersistentValue.Kind?
        var nullable: Bool
    }

    /// Compiles one query's filter and sort, appending bound values as it goes.
    struct Compilation {
        let compiler: PostgresQueryCompiler
        let table: RelationalSchemaMapping.Table
        var binds = PostgresBindings()

        /// `filter` as a two-valued condition on rows aliased `t0`.
        mutating func condition(_ filter: FilterExpression) throws -> String {
            switch filter {
            case .and(let lhs, let rhs): return "(\(try condition(lhs)) AND \(try condition(rhs)))"
            case .or(let lhs, let rhs): return "(\(try condition(lhs)) OR \(try condition(rhs)))"
            case .not(let operand): return "(NOT \(try condition(operand)))"
            case .comparison(let comparison, let lhs, let rhs):
                return try compare(comparison, operand(lhs), operand(rhs))
            case .contains(.list(let values), let element):
                let item = try operand(element)
                guard !values.isEmpty else { return "FALSE" }
                var terms: [String] = []
                for value in values { terms.append(try compare(.equal, item, operand(.value(value)))) }
                return "(" + terms.joined(separator: " OR ") + ")"
            case .rangeContains(let lower, let upper, let closed, let element):
                let item = try operand(element)
                let low = try compare(.greaterOrEqual, item, operand(lower))
                let high = try compare(closed ? .lessOrEqual : .less, item, operand(upper))
                return "(\(low) AND \(high))"
            case .property, .value:
                let value = try operand(filter)
                guard value.kind == .bool || value.kind == nil else { throw Unsupported(reason: "a \(value.kind!.rawValue) value is used as a condition") }
                return "COALESCE(\(value.sql), FALSE)"
            default:
                throw Unsupported(reason: "\(filter) has no exact PostgreSQL form in this store")
            }
        }

        /// A value: a bound constant, a column of the root row, or its key.
        mutating func operand(_ expression: FilterExpression) throws -> Operand {
            switch expression {
            case .value(.null):
                return Operand(sql: "NULL", kind: nil, nullable: true)
            case .value(let value):
                if case .identifier(let id) = value, id.storeIdentifier != compiler.storeIdentifier || id.primaryKey(as: Int64.self) == nil {
                    throw Unsupported(reason: "an identifier of another store is compared")
                }
                guard ![.codable, .identifiers, .url].contains(value.kind) else { throw Unsupported(reason: "a \(value.kind?.rawValue ?? "nil") value is compared") }
                PostgresValueCodec.bind(value, to: &binds, storeIdentifier: compiler.storeIdentifier)
                return Operand(sql: PostgresValueCodec.placeholder(binds.count, kind: value.kind), kind: value.kind, nullable: false)
            case .property(0, []):
                return Operand(sql: "t0." + SQLIdentifier.quote(RelationalSchemaMapping.primaryKey), kind: .identifier, nullable: false)
            case .property(0, let path) where path.count == 1:
                guard let column = table.columns.first(where: { $0.name == path[0] }) else {
                    throw Unsupported(reason: "\(path[0]) is not a column of \(table.entityName)")
                }
                guard !column.crossStore, ![.codable, .identifiers, .url].contains(column.kind) else {
                    throw Unsupported(reason: "\(table.entityName).\(column.name) is a \(column.kind.rawValue), which SQL does not compare as Swift does")
                }
                return Operand(sql: "t0." + SQLIdentifier.quote(column.name), kind: column.kind, nullable: true)
            default:
                throw Unsupported(reason: "\(expression) has no exact PostgreSQL form in this store")
            }
        }

        /// A two-valued comparison, with Swift's answers for `nil`, NaN and strings.
        func compare(_ comparison: FilterComparison, _ lhs: Operand, _ rhs: Operand) throws -> String {
            if let left = lhs.kind, let right = rhs.kind, left != right {
                throw Unsupported(reason: "a \(left.rawValue) is compared with a \(right.rawValue)")
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
        /// after every number ascending, as the core's evaluator sorts.
        func orderBy(_ sort: [FilterSortKey]) throws -> String {
            var terms: [String] = []
            for key in sort {
                guard key.stringOrder == nil else { throw Unsupported(reason: "a localized string order") }
                let sql: String, kind: PersistentValue.Kind
                if key.path.isEmpty {
                    sql = "t0." + SQLIdentifier.quote(RelationalSchemaMapping.primaryKey)
                    kind = .int
                } else {
                    guard key.path.count == 1, let column = table.columns.first(where: { $0.name == key.path[0] }),
                        [.bool, .int, .double, .string, .date, .uuid, .decimal].contains(column.kind)
                    else { throw Unsupported(reason: "sorting by \(key.path.joined(separator: "."))") }
                    sql = "t0." + SQLIdentifier.quote(column.name)
                    kind = column.kind
                }
                let term = kind == .string ? PostgresStrings.canonical(sql) : sql
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
