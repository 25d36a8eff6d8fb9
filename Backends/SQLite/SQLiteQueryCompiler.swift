import Foundation
import StrataCore

/// A piece of SQL — a whole statement or a fragment of one — and the values bound to its
/// `?` parameters, in order.
///
/// Build fragments with string interpolation so values can only enter as bindings:
/// `"\(alias: t0).\(name: "title") = \(bind: .text(title))"` gives `t0."title" = ?`.
struct SQLiteQuery: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The SQL text, with a `?` for every binding.
    var sql: String
    /// The values of the `?` parameters, in the order they appear in ``sql``.
    var bindings: [SQLiteValue]

    init(sql: String, bindings: [SQLiteValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    init(stringLiteral value: String) {
        self.init(sql: value)
    }

    init(stringInterpolation: Interpolation) {
        self.init(sql: stringInterpolation.sql, bindings: stringInterpolation.bindings)
    }

    /// The SQL text; bound values are never printed.
    var description: String { sql }

    /// `parts` joined by `separator`, bindings in order.
    static func joined(_ parts: [SQLiteQuery], separator: String) -> SQLiteQuery {
        SQLiteQuery(sql: parts.map(\.sql).joined(separator: separator), bindings: parts.flatMap(\.bindings))
    }

    /// `lhs` followed by `rhs`.
    static func + (lhs: SQLiteQuery, rhs: SQLiteQuery) -> SQLiteQuery {
        SQLiteQuery(sql: lhs.sql + rhs.sql, bindings: lhs.bindings + rhs.bindings)
    }

    /// Appends `rhs`'s text and bindings.
    static func += (lhs: inout SQLiteQuery, rhs: SQLiteQuery) {
        lhs.sql += rhs.sql
        lhs.bindings += rhs.bindings
    }

    /// The interpolations a fragment accepts: fragments, bindings, quoted names and aliases.
    struct Interpolation: StringInterpolationProtocol {
        var sql = ""
        var bindings: [SQLiteValue] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount * 8)
        }

        mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A nested fragment, with its bindings.
        mutating func appendInterpolation(_ fragment: SQLiteQuery) {
            sql += fragment.sql
            bindings += fragment.bindings
        }

        /// A `?` bound to `value`.
        mutating func appendInterpolation(bind value: SQLiteValue) {
            sql += "?"
            bindings.append(value)
        }

        /// A table or column name, quoted.
        mutating func appendInterpolation(name: String) {
            sql += SQLIdentifier.quote(name)
        }

        /// A table alias the compiler made (`t0`, `t1`, ...).
        mutating func appendInterpolation(alias: SQLiteQueryCompiler.Alias) {
            sql += alias.sql
        }
    }
}

/// Compiles store-neutral filters (``FilterExpression``) and sorts (``FilterSortKey``) into
/// SQLite statements over the tables ``SQLiteSchemaMapping`` describes.
///
/// Constants only ever become `?` bindings and names are quoted, so no user value is part
/// of the SQL text. The fetched entity's table is `t0`; subqueries for to-one hops and
/// collection variables use `t1`, `t2`, ... Results equal `FilterEvaluator`'s: strings
/// compare under the `strata_canonical` collation and match through Swift functions
/// (``SQLiteFunctions``), and what SQL cannot follow throws ``Unsupported``, which the store
/// turns into `preferInMemoryFilter`. Two exceptions, as the compiling functions' comments
/// say: decimals compare as `REAL`, and integer overflow or division by zero give a `REAL`
/// or `NULL` where Swift traps.
///
/// ```swift
/// let compiler = SQLiteQueryCompiler(mapping: mapping, storeIdentifier: store.identifier)
/// let query = try compiler.identifiers(entity: "Trip", filter: filter, sort: keys, limit: 20, offset: nil)
/// ```
struct SQLiteQueryCompiler: Sendable {
    let mapping: SQLiteSchemaMapping
    let storeIdentifier: String
    /// The `SELECT`s compiled so far, by shape.
    let selects = SQLiteSelectCache()

    /// Creates a compiler for the tables of `mapping`; identifiers of `storeIdentifier` are its rows.
    init(mapping: SQLiteSchemaMapping, storeIdentifier: String) {
        self.mapping = mapping
        self.storeIdentifier = storeIdentifier
    }

    /// `SELECT <columns> FROM "Entity" AS t0 [WHERE ...] ORDER BY ..., t0."_pk" [LIMIT ? OFFSET ?]`.
    ///
    /// `columns` are SQL expressions the caller writes (such as `t0."_pk"`); they are used
    /// as given. Rows always end ordered by `_pk`, so equal sort keys and unsorted fetches
    /// come back in a stable order.
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   for a filter or sort SQL cannot express exactly (see ``fallbackReason(entity:filter:sort:)``);
    ///   ``DataStoreError/unsupportedFeature`` for an entity the mapping does not have.
    ///
    /// A request of a shape compiled before takes its SQL from ``selects`` and only binds its constants.
    func select(
        entity: String, columns: [String], filter: FilterExpression?, sort: [FilterSortKey], limit: Int?, offset: Int?
    ) throws -> SQLiteQuery {
        var query = try selects.select(entity: entity, columns: columns, filter: filter, sort: sort, storeIdentifier: storeIdentifier) {
            try compileSelect(entity: entity, columns: columns, filter: $0, sort: sort)
        }
        if limit != nil || offset != nil { query += Self.limitClause(limit: limit, offset: offset) }
        return query
    }

    /// ``select(entity:columns:filter:sort:limit:offset:)`` without limit or offset, compiled afresh.
    ///
    /// - Throws: As ``select(entity:columns:filter:sort:limit:offset:)``.
    func compileSelect(entity: String, columns: [String], filter: FilterExpression?, sort: [FilterSortKey]) throws -> SQLiteQuery {
        var compilation = try Compilation(compiler: self, entity: entity)
        var query = SQLiteQuery(sql: "SELECT " + columns.joined(separator: ", ") + " FROM ")
        query += compilation.rootTable
        if let filter { query += " WHERE " + (try compilation.whereCondition(filter)) }
        query += " ORDER BY " + (try compilation.orderBy(sort))
        return query
    }

    /// `SELECT t0."_pk" ...`: the primary keys of the matching rows, in sort order.
    ///
    /// - Throws: As ``select(entity:columns:filter:sort:limit:offset:)``.
    func identifiers(
        entity: String, filter: FilterExpression?, sort: [FilterSortKey], limit: Int?, offset: Int?
    ) throws -> SQLiteQuery {
        try select(
            entity: entity, columns: [Alias.root.sql + "." + SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)],
            filter: filter, sort: sort, limit: limit, offset: offset)
    }

    /// `SELECT t0."_pk" FROM "Entity" AS t0 [WHERE ...]`: the keys of the matching rows, in no
    /// particular order, to use as an `IN (...)` subquery.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` for a filter SQL cannot express;
    ///   ``DataStoreError/unsupportedFeature`` for an unknown entity.
    func keys(entity: String, filter: FilterExpression?) throws -> SQLiteQuery {
        var compilation = try Compilation(compiler: self, entity: entity)
        var query = SQLiteQuery(sql: "SELECT " + Alias.root.sql + "." + SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey) + " FROM ")
        query += compilation.rootTable
        if let filter { query += " WHERE " + (try compilation.whereCondition(filter)) }
        return query
    }

    /// `SELECT COUNT(*) ...`: the number of matching rows, after `offset` and `limit`.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` for a filter SQL cannot express;
    ///   ``DataStoreError/unsupportedFeature`` for an unknown entity.
    func count(entity: String, filter: FilterExpression?, limit: Int?, offset: Int?) throws -> SQLiteQuery {
        var compilation = try Compilation(compiler: self, entity: entity)
        var rows = compilation.rootTable
        if let filter { rows += " WHERE " + (try compilation.whereCondition(filter)) }
        guard limit != nil || offset != nil else { return "SELECT COUNT(*) FROM " + rows }
        let key = SQLiteQuery(sql: Alias.root.sql + "." + SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey))
        return "SELECT COUNT(*) FROM (SELECT \(key) FROM \(rows)\(Self.limitClause(limit: limit, offset: offset)))"
    }

    /// `DELETE FROM "Entity" [WHERE "_pk" IN (SELECT t0."_pk" FROM "Entity" AS t0 WHERE ...)]`.
    ///
    /// Only the entity's own rows are deleted; join-table rows and delete rules are the caller's.
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` for a filter SQL cannot express;
    ///   ``DataStoreError/unsupportedFeature`` for an unknown entity.
    func delete(entity: String, filter: FilterExpression?) throws -> SQLiteQuery {
        guard filter != nil else {
            let compilation = try Compilation(compiler: self, entity: entity)
            return "DELETE FROM \(name: compilation.rootTableName)"
        }
        return try delete(entity: entity, within: keys(entity: entity, filter: filter))
    }

    /// `DELETE FROM "Entity" WHERE "_pk" IN (<keys>)`, where `keys` is a query of keys, such
    /// as ``keys(entity:filter:)`` or ``keys(_:)``.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an unknown entity.
    func delete(entity: String, within keys: SQLiteQuery) throws -> SQLiteQuery {
        let compilation = try Compilation(compiler: self, entity: entity)
        return "DELETE FROM \(name: compilation.rootTableName) WHERE \(name: SQLiteSchemaMapping.primaryKey) IN (\(keys))"
    }

    /// `SELECT <columns> FROM "Entity" AS t0 WHERE t0."_pk" IN (<keys>)`: the rows of a query
    /// of keys, in no particular order; `columns` are SQL expressions on `t0`.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an unknown entity.
    func select(entity: String, columns: [String], within keys: SQLiteQuery) throws -> SQLiteQuery {
        let compilation = try Compilation(compiler: self, entity: entity)
        let key: SQLiteQuery = "\(alias: .root).\(name: SQLiteSchemaMapping.primaryKey)"
        return "\(SQLiteQuery(sql: "SELECT " + columns.joined(separator: ", "))) FROM \(compilation.rootTable) WHERE \(key) IN (\(keys))"
    }

    /// `SELECT value FROM json_each(?)`: `keys` as a query of keys, bound as one JSON array,
    /// so a list of any length is one parameter.
    func keys(_ keys: [Int64]) -> SQLiteQuery {
        "SELECT value FROM json_each(\(bind: .text(Self.jsonArray(of: keys))))"
    }

    /// `keys` as a JSON array, the form key lists are bound in, its digits written straight
    /// into the string's storage: appending `String(key)` for each key cost about 950
    /// instructions a key (the generic integer description, then the append), and a
    /// prefetch binds one list of every owner's key.
    static func jsonArray(of keys: [Int64]) -> String {
        // A key is at most 20 characters ("-9223372036854775808"), and one comma before it.
        String(unsafeUninitializedCapacity: 2 + keys.count * 21) { buffer in
            var end = 0
            buffer[end] = UInt8(ascii: "[")
            end += 1
            for (index, key) in keys.enumerated() {
                if index > 0 {
                    buffer[end] = UInt8(ascii: ",")
                    end += 1
                }
                if key < 0 {
                    buffer[end] = UInt8(ascii: "-")
                    end += 1
                }
                // `magnitude` is exact for `Int64.min` too.
                var rest = key.magnitude
                var digits = 1
                var bound: UInt64 = 10
                while digits < 20 && rest >= bound {
                    digits += 1
                    bound &*= 10
                }
                var at = end + digits
                end = at
                repeat {
                    at -= 1
                    buffer[at] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                } while rest > 0
            }
            buffer[end] = UInt8(ascii: "]")
            return end + 1
        }
    }

    /// The condition of `filter` on rows of `entity` aliased `t0`, without the `WHERE` keyword.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` for a filter SQL cannot express;
    ///   ``DataStoreError/unsupportedFeature`` for an unknown entity.
    func whereClause(_ filter: FilterExpression, entity: String) throws -> SQLiteQuery {
        var compilation = try Compilation(compiler: self, entity: entity)
        return try compilation.whereCondition(filter)
    }

    /// The `ORDER BY` terms of `sort` on rows of `entity` aliased `t0`, ending with `t0."_pk"`.
    ///
    /// - Throws: ``DataStoreError/preferInMemorySort`` for a key SQL cannot order exactly;
    ///   ``DataStoreError/unsupportedFeature`` for an unknown entity.
    func orderBy(_ sort: [FilterSortKey], entity: String) throws -> SQLiteQuery {
        var compilation = try Compilation(compiler: self, entity: entity)
        return try compilation.orderBy(sort)
    }

    /// Why `filter` or `sort` must run in memory, or `nil` when both compile; for `explain()` and logs.
    func fallbackReason(entity: String, filter: FilterExpression?, sort: [FilterSortKey]) -> String? {
        guard var compilation = try? Compilation(compiler: self, entity: entity) else {
            return "the SQLite store has no table for \(entity)"
        }
        do {
            if let filter { _ = try compilation.condition(filter, in: compilation.rootScope) }
            for key in sort { _ = try compilation.orderTerm(key) }
            return nil
        } catch let unsupported as Unsupported {
            return unsupported.reason
        } catch {
            return "\(error)"
        }
    }

    /// `LIMIT ? OFFSET ?`, `LIMIT ?`, `LIMIT -1 OFFSET ?` or nothing.
    static func limitClause(limit: Int?, offset: Int?) -> SQLiteQuery {
        switch (limit, offset) {
        case (nil, nil): return ""
        case (let limit?, nil): return " LIMIT \(bind: .integer(Int64(limit)))"
        case (nil, let offset?): return " LIMIT -1 OFFSET \(bind: .integer(Int64(offset)))"
        case (let limit?, let offset?): return " LIMIT \(bind: .integer(Int64(limit))) OFFSET \(bind: .integer(Int64(offset)))"
        }
    }

    /// A table alias of a compiled statement: `t0` is the fetched entity.
    struct Alias: Hashable, Sendable {
        let number: Int
        var sql: String { "t\(number)" }
        static let root = Alias(number: 0)
    }

    /// Why a filter or sort cannot be compiled; becomes `preferInMemoryFilter`/`preferInMemorySort`.
    struct Unsupported: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
