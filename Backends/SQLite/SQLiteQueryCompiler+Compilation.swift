import Foundation
import StrataCore

// The state of compiling one statement and the operand types the compiler passes around.
extension SQLiteQueryCompiler {
    /// What a filter variable stands for inside a (sub)query.
    enum Bound {
        /// A model: a row of `entity`'s table under `alias`.
        case row(Alias, entity: String)
        /// A single value, such as an element of a stored array (`t1."value"`).
        case element(Operand)
    }

    /// The filter variables visible at a point of the compiled SQL.
    typealias Scope = [Int: Bound]

    /// A compiled single value: its SQL and what the compiler knows about it.
    struct Operand {
        var sql: SQLiteQuery
        /// The kind of the value, or `nil` when it cannot be known (elements of stored arrays).
        var kind: PersistentValue.Kind?
        /// For identifiers: the entity whose `_pk` (or, `crossStore`, JSON identifier) this is.
        var destination: String? = nil
        /// For identifiers: whether the value is JSON text rather than a `_pk` of this store.
        var crossStore = false
        /// Whether the value may be `NULL`.
        var nullable = true
        /// Whether ``sql`` can stand as an operand of any operator without parentheses.
        var atomic = true
        /// For an element of stored JSON: its `json_each` `type` column (`'text'`, `'array'`, ...).
        var jsonType: SQLiteQuery? = nil
        /// For a `Double` column, which may hold NaN: the test that the value is NaN. ``sql``
        /// reads NaN as `NULL`; only comparisons, ranges and sorts, which guard it with this
        /// test, take such an operand.
        var isNaN: SQLiteQuery? = nil

        /// The SQL, parenthesized unless atomic.
        var wrapped: SQLiteQuery { atomic ? sql : "(\(sql))" }

        /// ``wrapped`` as an operand of `=`, `<`, `IN` and the like: a string with
        /// `COLLATE strata_canonical`, so that SQL equates and orders it as Swift does
        /// (``CanonicalString``) and an index on its column, made with that collation, serves.
        var compared: SQLiteQuery {
            kind == .string ? wrapped + SQLiteQuery(sql: " COLLATE " + SQLiteFunctions.Name.canonical) : wrapped
        }

        /// Two operands of one comparison, the collation written once: SQLite applies an
        /// explicit `COLLATE` on either side to the comparison. None for a `NULL` literal.
        static func compared(_ lhs: Operand, _ rhs: Operand) -> (SQLiteQuery, SQLiteQuery) {
            if lhs.sql.sql == "NULL" || rhs.sql.sql == "NULL" { return (lhs.wrapped, rhs.wrapped) }
            if lhs.kind == .string { return (lhs.compared, rhs.wrapped) }
            return (lhs.wrapped, rhs.compared)
        }

        /// A Boolean (or `NULL`) result of an operator.
        static func condition(_ sql: SQLiteQuery, nullable: Bool, atomic: Bool = false) -> Operand {
            Operand(sql: sql, kind: .bool, nullable: nullable, atomic: atomic)
        }
    }

    /// A compiled collection: rows to iterate in a subquery, and what each element is.
    struct Collection {
        /// The `FROM` clause of a subquery over the elements.
        var from: SQLiteQuery
        /// Conditions (ANDed) that select the elements among the rows of ``from``.
        var conditions: [SQLiteQuery]
        /// What a variable bound to an element stands for.
        var element: Bound
        /// When this holds, the collection itself is `nil` (an optional stored array, or a
        /// to-many reached through a `nil` to-one).
        var nullCheck: SQLiteQuery?
        /// Whether the elements come from stored JSON (`json_each`), whose values have no known kind.
        var holdsJSON = false

        /// `FROM ... [WHERE ...]` with `extra` conditions added.
        func fromWhere(_ extra: [SQLiteQuery] = []) -> SQLiteQuery {
            let all = conditions + extra
            guard !all.isEmpty else { return from }
            return from + " WHERE " + .joined(all, separator: " AND ")
        }

        /// `sql`, or `NULL` when the collection is `nil`.
        func guarded(_ sql: SQLiteQuery) -> SQLiteQuery {
            guard let nullCheck else { return sql }
            return "CASE WHEN \(nullCheck) THEN NULL ELSE \(sql) END"
        }
    }

    /// A compiled sub-expression.
    enum Compiled {
        case value(Operand)
        case collection(Collection)
        /// A constant list, kept as values so membership tests can bind them as `IN (?, ...)`.
        case list([PersistentValue])
    }

    /// A model a property path passes through: a row under an alias, or a `_pk` expression
    /// that may be `NULL` (a to-one relationship's column).
    enum ModelReference {
        case row(Alias, entity: String)
        case key(Operand, entity: String)

        var entity: String {
            switch self {
            case .row(_, let entity), .key(_, let entity): entity
            }
        }
    }

    /// One statement's compilation: the aliases handed out so far.
    struct Compilation {
        let compiler: SQLiteQueryCompiler
        let rootEntity: String
        let rootTableName: String
        private var lastAlias = 0

        /// - Throws: ``DataStoreError/unsupportedFeature`` when the mapping has no table for `entity`.
        init(compiler: SQLiteQueryCompiler, entity: String) throws {
            guard let table = compiler.mapping.tables[entity] else { throw DataStoreError.unsupportedFeature }
            self.compiler = compiler
            self.rootEntity = entity
            self.rootTableName = table.tableName
        }

        /// `"Entity" AS t0`.
        var rootTable: SQLiteQuery { "\(name: rootTableName) AS \(alias: .root)" }

        /// Variable `0` bound to the fetched row.
        var rootScope: Scope { [0: .row(.root, entity: rootEntity)] }

        /// A fresh alias: `t1`, `t2`, ...
        mutating func newAlias() -> Alias {
            lastAlias += 1
            return Alias(number: lastAlias)
        }

        /// The condition of a `WHERE` clause for `filter`.
        ///
        /// - Throws: ``DataStoreError/preferInMemoryFilter`` when part of it cannot be expressed.
        mutating func whereCondition(_ filter: FilterExpression) throws -> SQLiteQuery {
            do {
                return try condition(filter, in: rootScope).sql
            } catch is Unsupported {
                throw DataStoreError.preferInMemoryFilter
            }
        }

        /// The terms of an `ORDER BY` clause for `sort`, ending with `t0."_pk"`.
        ///
        /// - Throws: ``DataStoreError/preferInMemorySort`` when a key cannot be ordered exactly.
        mutating func orderBy(_ sort: [FilterSortKey]) throws -> SQLiteQuery {
            var terms: [SQLiteQuery] = []
            do {
                for key in sort { terms.append(try orderTerm(key)) }
            } catch is Unsupported {
                throw DataStoreError.preferInMemorySort
            }
            terms.append("\(alias: .root).\(name: SQLiteSchemaMapping.primaryKey)")
            return .joined(terms, separator: ", ")
        }

        /// One sort key as `expression [COLLATE name] ASC|DESC`.
        ///
        /// SQLite's `NULL`s come first in ascending and last in descending order, as Swift's
        /// `nil` does in the evaluator. Strings use a ``SQLiteFunctions`` collation for a
        /// ``FilterSortKey/stringOrder``, else `strata_canonical` (Swift's `<`); decimals sort as `REAL`.
        /// - Throws: ``SQLiteQueryCompiler/Unsupported`` for paths to to-many relationships,
        ///   cross-store identifiers and kinds whose stored form does not order as Swift orders
        ///   them (data, URLs, Codable values).
        mutating func orderTerm(_ key: FilterSortKey) throws -> SQLiteQuery {
            let path = key.path.joined(separator: ".")
            let compiled: Compiled
            do {
                compiled = try compile(.property(variable: 0, path: key.path), in: rootScope)
            } catch let unsupported as Unsupported {
                throw Unsupported(reason: "sorting by \(path): \(unsupported.reason)")
            }
            guard case .value(let operand) = compiled else {
                throw Unsupported(reason: "sorting by \(path): a to-many relationship has no order")
            }
            var term = operand.sql
            let direction = SQLiteQuery(sql: key.ascending ? " ASC" : " DESC")
            if let isNaN = operand.isNaN {
                // NaN after every number, as the core's evaluator sorts it.
                term = "CASE WHEN \(isNaN) THEN 1 ELSE 0 END\(direction), \(term)"
            }
            switch operand.kind {
            case .string:
                term += SQLiteQuery(sql: " COLLATE " + (key.stringOrder.map(SQLiteFunctions.Name.collation) ?? SQLiteFunctions.Name.canonical))
            case .bool, .int, .double, .date, .uuid, .decimal:
                break
            case .identifier where !operand.crossStore:
                break
            default:
                throw Unsupported(reason: "sorting by \(path): \(Self.kindName(operand.kind)) values cannot be ordered in SQL as Swift orders them")
            }
            return term + direction
        }

        static func kindName(_ kind: PersistentValue.Kind?) -> String {
            kind?.rawValue ?? "unknown"
        }
    }
}
