import Foundation
import StrataCore

// FilterExpression to SQL, case by case. Where SQL and Swift semantics part, the case's
// comment says how the SQL keeps Swift's result, or that it cannot (those differences are
// listed in the DocC article "Differences from SwiftData").
extension SQLiteQueryCompiler.Compilation {
    typealias Operand = SQLiteQueryCompiler.Operand
    typealias Compiled = SQLiteQueryCompiler.Compiled
    typealias Collection = SQLiteQueryCompiler.Collection
    typealias Scope = SQLiteQueryCompiler.Scope
    typealias Unsupported = SQLiteQueryCompiler.Unsupported

    /// `expression` as a condition: a Boolean, an integer (non-zero is true) or `NULL` (false).
    ///
    /// - Throws: ``SQLiteQueryCompiler/Unsupported`` when it cannot be compiled exactly, or
    ///   is a value of another kind (the evaluator reports that error in memory).
    mutating func condition(_ expression: FilterExpression, in scope: Scope) throws -> Operand {
        let operand = try value(expression, in: scope)
        switch operand.kind {
        case nil, .bool, .int: return operand
        case let kind?: throw Unsupported(reason: "a \(kind.rawValue) value is used as a condition")
        }
    }

    /// `expression` as a single value.
    ///
    /// - Throws: ``SQLiteQueryCompiler/Unsupported`` for collections and what cannot be compiled.
    /// A `Double` column, which may hold NaN, is taken only with `allowingNaN` (by comparisons
    /// and ranges, which guard it); elsewhere SQL would treat NaN as `NULL`, so it stays in memory.
    mutating func value(_ expression: FilterExpression, in scope: Scope, allowingNaN: Bool = false) throws -> Operand {
        switch try compile(expression, in: scope) {
        case .value(let operand):
            if operand.isNaN != nil && !allowingNaN {
                throw Unsupported(reason: "a Double property, which may hold NaN, is used other than in a comparison")
            }
            return operand
        case .collection, .list: throw Unsupported(reason: "a collection is used where a single value is needed")
        }
    }

    /// Compiles any expression.
    ///
    /// - Throws: ``SQLiteQueryCompiler/Unsupported`` naming what SQL cannot express exactly.
    mutating func compile(_ expression: FilterExpression, in scope: Scope) throws -> Compiled {
        switch expression {
        case .value(let value):
            return .value(try constant(value))
        case .list(let values):
            return .list(values)
        case .property(let variable, let path):
            return try property(variable: variable, path: path, in: scope)
        case .comparison(let comparison, let lhs, let rhs):
            return .value(try self.comparison(
                comparison, value(lhs, in: scope, allowingNaN: true), value(rhs, in: scope, allowingNaN: true)))
        case .and(let lhs, let rhs):
            // SQL's three-valued AND/OR/NOT are Swift's on optional Booleans as the evaluator reads them.
            let left = try condition(lhs, in: scope), right = try condition(rhs, in: scope)
            return .value(.condition("\(left.wrapped) AND \(right.wrapped)", nullable: left.nullable || right.nullable))
        case .or(let lhs, let rhs):
            let left = try condition(lhs, in: scope), right = try condition(rhs, in: scope)
            return .value(.condition("\(left.wrapped) OR \(right.wrapped)", nullable: left.nullable || right.nullable))
        case .not(let operand):
            let inner = try condition(operand, in: scope)
            return .value(.condition("NOT \(inner.wrapped)", nullable: inner.nullable))
        case .arithmetic(let arithmetic, let lhs, let rhs):
            return .value(try self.arithmetic(
                arithmetic, value(lhs, in: scope, allowingNaN: true), value(rhs, in: scope, allowingNaN: true)))
        case .negate(let operand):
            let inner = try value(operand, in: scope, allowingNaN: true)
            try Self.requireNumeric(inner.kind, "negate")
            return .value(Operand(
                sql: "-\(inner.wrapped)", kind: Self.arithmeticKind(inner.kind, inner.kind), nullable: inner.nullable, atomic: false,
                isNaN: inner.isNaN))
        case .conditional(let test, let then, let otherwise):
            // `CASE WHEN NULL` takes the ELSE branch, as the evaluator treats a `nil` condition as false.
            let condition = try condition(test, in: scope)
            let yes = try value(then, in: scope), no = try value(otherwise, in: scope)
            return .value(Operand(
                sql: "CASE WHEN \(condition.sql) THEN \(yes.sql) ELSE \(no.sql) END",
                kind: yes.kind ?? no.kind, destination: yes.destination ?? no.destination,
                crossStore: yes.crossStore || no.crossStore, nullable: yes.nullable || no.nullable))
        case .coalesce(let operand, let fallback):
            let first = try value(operand, in: scope, allowingNaN: true), second = try value(fallback, in: scope, allowingNaN: true)
            // NaN is a value, so `NaN ?? x` is NaN; the NaN test goes with the operand chosen.
            let isNaN: SQLiteQuery? = switch (first.isNaN, second.isNaN) {
            case (nil, nil): nil
            case (let test?, nil): test
            case (nil, let test?): "(\(first.sql) IS NULL AND \(test))"
            case (let left?, let right?): "(\(left) OR (\(first.sql) IS NULL AND \(right)))"
            }
            return .value(Operand(
                sql: "COALESCE(\(first.sql), \(second.sql))", kind: first.kind ?? second.kind,
                destination: first.destination ?? second.destination, crossStore: first.crossStore || second.crossStore,
                nullable: first.nullable && second.nullable, isNaN: isNaN))
        case .stringTest(let test, let lhs, let rhs):
            return .value(try stringTest(test, value(lhs, in: scope), value(rhs, in: scope)))
        case .stringOrder(let order, let lhs, let rhs):
            let left = try value(lhs, in: scope), right = try value(rhs, in: scope)
            try Self.requireStrings(left, right)
            let function = SQLiteQuery(sql: SQLiteFunctions.Name.compare(order))
            return .value(Operand(sql: "\(function)(\(left.sql), \(right.sql))", kind: .int, nullable: left.nullable || right.nullable))
        case .contains(let collection, let element):
            return .value(try contains(collection, element, in: scope))
        case .rangeContains(let lower, let upper, let closed, let element):
            return .value(try rangeContains(
                lower: value(lower, in: scope, allowingNaN: true), upper: value(upper, in: scope, allowingNaN: true), closed: closed,
                element: value(element, in: scope, allowingNaN: true)))
        case .anySatisfy(let collection, let variable, let test):
            let source = try self.collection(compile(collection, in: scope))
            let matches = try condition(test, in: scope.merging([variable: source.element]) { $1 })
            return .value(.condition(
                source.guarded("EXISTS (SELECT 1 FROM \(source.fromWhere([matches.wrapped])))"),
                nullable: source.nullCheck != nil, atomic: true))
        case .allSatisfy(let collection, let variable, let test):
            // An element whose test is `nil` fails, as the evaluator's `!= true`.
            let source = try self.collection(compile(collection, in: scope))
            let matches = try condition(test, in: scope.merging([variable: source.element]) { $1 })
            let failing: SQLiteQuery = "NOT COALESCE(\(matches.sql), 0)"
            return .value(.condition(
                source.guarded("NOT EXISTS (SELECT 1 FROM \(source.fromWhere([failing])))"),
                nullable: source.nullCheck != nil, atomic: source.nullCheck != nil))
        case .filter(let collection, let variable, let test):
            var source = try self.collection(compile(collection, in: scope))
            let matches = try condition(test, in: scope.merging([variable: source.element]) { $1 })
            source.conditions.append(matches.wrapped)
            return .collection(source)
        case .count(let operand):
            return .value(try count(compile(operand, in: scope)))
        case .aggregate(let aggregate, let operand):
            let source = try self.collection(compile(operand, in: scope))
            guard case .element(let element) = source.element else {
                throw Unsupported(reason: "models have no \(aggregate.rawValue)()")
            }
            if let kind = element.kind, !Self.orderable.contains(kind) {
                throw Unsupported(reason: "\(kind.rawValue) values have no \(aggregate.rawValue)() in SQL")
            }
            let function = aggregate == .min ? "MIN" : "MAX"
            return .value(Operand(
                sql: source.guarded("(SELECT \(SQLiteQuery(sql: function))(\(element.compared)) FROM \(source.fromWhere()))"),
                kind: element.kind, destination: element.destination, nullable: true))
        }
    }

    // MARK: Constants

    /// A constant as a binding in its column representation (``SQLiteValueCodec``).
    ///
    /// Decimals become `CAST(? AS REAL)` of their text, so they convert exactly as a
    /// decimal column does; identifiers of this store become their `_pk`.
    /// - Throws: ``SQLiteQueryCompiler/Unsupported`` for NaN (SQLite stores it as `NULL`) and identifier lists.
    func constant(_ value: PersistentValue) throws -> Operand {
        switch value {
        case .null:
            return Operand(sql: "NULL", kind: nil, nullable: true)
        case .double(let number) where number.isNaN:
            throw Unsupported(reason: "SQLite cannot bind NaN (it becomes NULL)")
        case .double(let number) where number == 0:
            // -0.0 is stored as a blob, but compares as 0.0, as in Swift.
            return Operand(sql: "\(bind: .real(0))", kind: .double, nullable: false)
        case .decimal(let number) where number.isNaN:
            throw Unsupported(reason: "SQLite cannot bind NaN (it becomes NULL)")
        case .decimal:
            return Operand(sql: "CAST(\(bind: encode(value)) AS REAL)", kind: .decimal, nullable: false)
        case .identifier(let id):
            let local = id.primaryKey(as: Int64.self, inStore: compiler.storeIdentifier) != nil
            return Operand(sql: "\(bind: encode(value))", kind: .identifier, destination: id.entityName, crossStore: !local, nullable: false)
        case .identifiers:
            throw Unsupported(reason: "a list of identifiers is used as a single value")
        default:
            return Operand(sql: "\(bind: encode(value))", kind: value.kind, nullable: false)
        }
    }

    func encode(_ value: PersistentValue) -> SQLiteValue {
        SQLiteValueCodec.encode(value, storeIdentifier: compiler.storeIdentifier)
    }

    // MARK: Comparison

    /// The kinds whose stored forms order as Swift orders the values.
    static let orderable: Set<PersistentValue.Kind> = [.int, .double, .decimal, .string, .date, .uuid, .identifier]

    /// `==`/`!=` as `IS`/`IS NOT` (`=`/`<>` when neither side can be `NULL`), so `nil == nil`
    /// holds; `<`, `<=`, `>`, `>=` plain, so `nil` gives `NULL`. Strings compare under
    /// `strata_canonical`, as Swift compares them.
    ///
    /// Identifiers of another entity or store can never equal a relationship column, so
    /// such an equality compiles to a constant. Decimal operands compare as `REAL`.
    mutating func comparison(_ comparison: FilterComparison, _ lhs: Operand, _ rhs: Operand) throws -> Operand {
        let compared = try plainComparison(comparison, lhs, rhs)
        // NaN equals nothing and orders with nothing; only `!=` holds.
        return Self.guardingNaN([lhs, rhs], compared, nanResult: comparison == .notEqual)
    }

    /// `result`, or `nanResult` when one of `operands` is a `Double` column that holds NaN.
    static func guardingNaN(_ operands: [Operand], _ result: Operand, nanResult: Bool) -> Operand {
        let tests = operands.compactMap(\.isNaN)
        guard !tests.isEmpty else { return result }
        let anyNaN = SQLiteQuery.joined(tests.map { "(\($0))" }, separator: " OR ")
        return .condition(
            "CASE WHEN \(anyNaN) THEN \(SQLiteQuery(sql: nanResult ? "1" : "0")) ELSE \(result.sql) END",
            nullable: result.nullable, atomic: true)
    }

    private mutating func plainComparison(_ comparison: FilterComparison, _ lhs: Operand, _ rhs: Operand) throws -> Operand {
        try Self.requireComparable(lhs, rhs)
        switch comparison {
        case .equal, .notEqual:
            let negated = comparison == .notEqual
            if Self.identifiersNeverMatch(lhs, rhs) { return .condition(negated ? "1" : "0", nullable: false, atomic: true) }
            let exact = !lhs.nullable && !rhs.nullable
            let op = SQLiteQuery(sql: exact ? (negated ? " <> " : " = ") : (negated ? " IS NOT " : " IS "))
            let (left, right) = Operand.compared(lhs, rhs)
            return .condition(left + op + right, nullable: false)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            try Self.requireOrderable(lhs, rhs)
            let symbol = [FilterComparison.less: " < ", .lessOrEqual: " <= ", .greater: " > ", .greaterOrEqual: " >= "][comparison]!
            let (left, right) = Operand.compared(lhs, rhs)
            return .condition(left + SQLiteQuery(sql: symbol) + right, nullable: lhs.nullable || rhs.nullable)
        }
    }

    /// Whether two identifier operands can never be equal: different entities, or one a
    /// `_pk` of this store and the other not.
    static func identifiersNeverMatch(_ lhs: Operand, _ rhs: Operand) -> Bool {
        guard lhs.kind == .identifier, rhs.kind == .identifier else { return false }
        if lhs.crossStore != rhs.crossStore { return true }
        if let left = lhs.destination, let right = rhs.destination, left != right { return true }
        return false
    }

    /// `lower <= element` and `element < upper` (or `<=` when closed); `NULL` when any is `nil`.
    mutating func rangeContains(lower: Operand, upper: Operand, closed: Bool, element: Operand) throws -> Operand {
        Self.guardingNaN([lower, upper, element], try plainRangeContains(lower: lower, upper: upper, closed: closed, element: element), nanResult: false)
    }

    private mutating func plainRangeContains(lower: Operand, upper: Operand, closed: Bool, element: Operand) throws -> Operand {
        try Self.requireComparable(lower, element)
        try Self.requireComparable(element, upper)
        try Self.requireOrderable(lower, element)
        try Self.requireOrderable(element, upper)
        let (above, low) = Operand.compared(element, lower), (below, high) = Operand.compared(element, upper)
        let body: SQLiteQuery = "\(above) >= \(low) AND \(below) \(SQLiteQuery(sql: closed ? "<=" : "<")) \(high)"
        let nullable = [lower, upper, element].filter(\.nullable)
        guard !nullable.isEmpty else { return .condition(body, nullable: false) }
        // Without the guard, `NULL AND false` would be false where Swift gives nil (and `!` of it true).
        let anyNull = SQLiteQuery.joined(nullable.map { "\($0.wrapped) IS NULL" }, separator: " OR ")
        return .condition("CASE WHEN \(anyNull) THEN NULL ELSE \(body) END", nullable: true, atomic: true)
    }

    /// Kinds Swift can compare with `==`: equal kinds, numbers with numbers, Booleans with integers.
    static func requireComparable(_ lhs: Operand, _ rhs: Operand) throws {
        guard let left = lhs.kind, let right = rhs.kind, left != right else { return }
        let numeric: Set<PersistentValue.Kind> = [.int, .double, .decimal]
        if numeric.contains(left) && numeric.contains(right) { return }
        if Set([left, right]) == [.bool, .int] { return }
        throw Unsupported(reason: "a \(left.rawValue) value is compared with a \(right.rawValue) value")
    }

    static func requireOrderable(_ lhs: Operand, _ rhs: Operand) throws {
        for operand in [lhs, rhs] {
            guard let kind = operand.kind else { continue }
            guard orderable.contains(kind), !(kind == .identifier && operand.crossStore) else {
                throw Unsupported(reason: "\(kind.rawValue) values cannot be ordered in SQL as Swift orders them")
            }
        }
        if identifiersNeverMatch(lhs, rhs) {
            throw Unsupported(reason: "identifiers of different entities or stores are ordered by the evaluator")
        }
    }

    // MARK: Arithmetic

    /// `+ - * / %` on numbers. Integer `/` truncates and `%` takes the dividend's sign in
    /// SQLite as in Swift. Where Swift traps (integer overflow, division by zero) SQLite
    /// gives a `REAL` instead. Floating-point division by anything but a non-zero constant is
    /// left to the evaluator: Swift's ±infinity for a zero divisor is `NULL` in SQLite.
    mutating func arithmetic(_ arithmetic: FilterArithmetic, _ lhs: Operand, _ rhs: Operand) throws -> Operand {
        try Self.requireNumeric(lhs.kind, arithmetic.rawValue)
        try Self.requireNumeric(rhs.kind, arithmetic.rawValue)
        let kind = Self.arithmeticKind(lhs.kind, rhs.kind)
        if arithmetic == .remainder, kind != .int, kind != nil {
            throw Unsupported(reason: "the remainder of \(Self.kindName(kind)) values is not defined in Swift")
        }
        let symbol = [FilterArithmetic.add: " + ", .subtract: " - ", .multiply: " * ", .divide: " / ", .remainder: " % "][arithmetic]!
        let result = lhs.wrapped + SQLiteQuery(sql: symbol) + rhs.wrapped
        // NaN in, NaN out: the result is NaN when an operand is.
        var tests = [lhs.isNaN, rhs.isNaN].compactMap { $0 }
        if kind == .double {
            // Swift divides by zero into ±infinity (NaN for 0 / 0); SQLite gives NULL.
            if arithmetic == .divide && !Self.isNonZeroConstant(rhs) {
                throw Unsupported(reason: "floating-point division by a value that may be zero is ±infinity in Swift and NULL in SQL")
            }
            // SQLite turns a NaN result (infinity - infinity, 0 * infinity) into NULL; from
            // operands that are not NULL, a NULL result is that NaN.
            tests.append("\(lhs.wrapped) IS NOT NULL AND \(rhs.wrapped) IS NOT NULL AND (\(result)) IS NULL")
        }
        let isNaN: SQLiteQuery? = tests.isEmpty ? nil : .joined(tests.map { "(\($0))" }, separator: " OR ")
        return Operand(sql: result, kind: kind, nullable: true, atomic: false, isNaN: isNaN)
    }

    /// Whether `operand` is one bound number other than zero.
    static func isNonZeroConstant(_ operand: Operand) -> Bool {
        guard operand.sql.sql == "?", operand.sql.bindings.count == 1 else { return false }
        switch operand.sql.bindings[0] {
        case .integer(let number): return number != 0
        case .real(let number): return number != 0 && !number.isNaN
        default: return false
        }
    }

    static func requireNumeric(_ kind: PersistentValue.Kind?, _ operation: String) throws {
        guard let kind, ![.int, .double, .decimal].contains(kind) else { return }
        throw Unsupported(reason: "cannot \(operation) a \(kind.rawValue) value")
    }

    /// `int` for two integers, `double` when a `REAL` is involved (decimals compute as `REAL`).
    static func arithmeticKind(_ lhs: PersistentValue.Kind?, _ rhs: PersistentValue.Kind?) -> PersistentValue.Kind? {
        guard let lhs, let rhs else { return nil }
        return lhs == .int && rhs == .int ? .int : .double
    }

    // MARK: Strings

    /// `contains`, `starts(with:)` and `localizedStandardContains` call Swift through
    /// ``SQLiteFunctions``: by `Character`, as Swift matches (`"cafe\u{301}"` does not contain
    /// `"e"`, and `"\u{E4}"` starts with `"a\u{308}"`). Plain ASCII is matched by its bytes.
    mutating func stringTest(_ test: FilterStringTest, _ lhs: Operand, _ rhs: Operand) throws -> Operand {
        try Self.requireStrings(lhs, rhs)
        let function = SQLiteQuery(sql: SQLiteFunctions.Name.test(test))
        return .condition("\(function)(\(lhs.sql), \(rhs.sql))", nullable: lhs.nullable || rhs.nullable, atomic: true)
    }

    static func requireStrings(_ operands: Operand...) throws {
        for operand in operands {
            if let kind = operand.kind, kind != .string { throw Unsupported(reason: "a \(kind.rawValue) value is used as a string") }
        }
    }
}
