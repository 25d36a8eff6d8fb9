import Foundation

/// A predicate in a form every store can run: properties named by schema name, constants
/// as ``PersistentValue``s, and no Swift closures.
///
/// The core translates a `Predicate<T>` into this tree once per fetch. SQLite compiles it
/// to SQL; memory and document stores evaluate it on snapshots with ``FilterEvaluator``.
///
/// Values follow Swift's semantics: comparing with `nil` by `==`/`!=` is allowed and
/// `nil == nil` holds; any other operation on `nil` yields `nil`, which a predicate reads
/// as `false`. Models are bound to numbered variables: `0` is the fetched model, and each
/// ``anySatisfy(_:variable:test:)``, ``allSatisfy(_:variable:test:)`` or
/// ``filter(_:variable:test:)`` binds the next number to each element it visits.
public indirect enum FilterExpression: Sendable, Hashable {
    /// A constant.
    case value(PersistentValue)
    /// A constant list, for membership tests.
    case list([PersistentValue])
    /// A property reached from the model bound to `variable` through `path`.
    ///
    /// Every component but the last names a to-one relationship. The last names an
    /// attribute (its value), a to-one relationship (the related model's identifier, or
    /// `nil`), or a to-many relationship (a collection of models). An empty path is the
    /// bound model's own identifier.
    case property(variable: Int, path: [String])
    /// A comparison of two operands.
    case comparison(FilterComparison, FilterExpression, FilterExpression)
    /// Both operands hold.
    case and(FilterExpression, FilterExpression)
    /// Either operand holds.
    case or(FilterExpression, FilterExpression)
    /// The operand does not hold.
    case not(FilterExpression)
    /// Arithmetic on two numeric operands.
    case arithmetic(FilterArithmetic, FilterExpression, FilterExpression)
    /// The numeric operand negated.
    case negate(FilterExpression)
    /// `condition ? then : else`.
    case conditional(FilterExpression, then: FilterExpression, else: FilterExpression)
    /// `value ?? fallback`.
    case coalesce(FilterExpression, FilterExpression)
    /// A Boolean test of a string against another string.
    case stringTest(FilterStringTest, FilterExpression, FilterExpression)
    /// The order of two strings under a comparison: `-1`, `0` or `1` (`ComparisonResult`'s raw values).
    case stringOrder(FilterStringOrder, FilterExpression, FilterExpression)
    /// Whether `collection` (a list, a to-many relationship or a stored array) contains `element`.
    case contains(collection: FilterExpression, element: FilterExpression)
    /// Whether `element` lies in `lower..<upper` (or `lower...upper` when `closed`).
    case rangeContains(lower: FilterExpression, upper: FilterExpression, closed: Bool, element: FilterExpression)
    /// Whether some element of `collection`, bound to `variable`, satisfies `test`.
    case anySatisfy(FilterExpression, variable: Int, test: FilterExpression)
    /// Whether every element of `collection`, bound to `variable`, satisfies `test`.
    case allSatisfy(FilterExpression, variable: Int, test: FilterExpression)
    /// The elements of `collection`, bound to `variable`, that satisfy `test`.
    case filter(FilterExpression, variable: Int, test: FilterExpression)
    /// The number of elements of a collection, or of characters of a string.
    case count(FilterExpression)
    /// The smallest or largest element of a collection, or `nil` when it is empty.
    case aggregate(FilterAggregate, FilterExpression)
}

/// How ``FilterExpression/comparison(_:_:_:)`` compares.
public enum FilterComparison: String, Sendable, Hashable, Codable {
    /// `==`
    case equal
    /// `!=`
    case notEqual
    /// `<`
    case less
    /// `<=`
    case lessOrEqual
    /// `>`
    case greater
    /// `>=`
    case greaterOrEqual
}

/// The operator of ``FilterExpression/arithmetic(_:_:_:)``.
public enum FilterArithmetic: String, Sendable, Hashable, Codable {
    /// `+`
    case add
    /// `-`
    case subtract
    /// `*`
    case multiply
    /// `/` (floating-point, or integer division truncating toward zero)
    case divide
    /// `%` (integers)
    case remainder
}

/// The test of ``FilterExpression/stringTest(_:_:_:)``.
public enum FilterStringTest: String, Sendable, Hashable, Codable {
    /// `a.contains(b)`: case-sensitive, by `Character` as Swift's `contains` (so `"cafe\u{301}"` does not contain `"e"`).
    case contains
    /// `a.starts(with: b)`: case-sensitive prefix.
    case startsWith
    /// `a.localizedStandardContains(b)`: ignoring case and diacritics; `false` for an empty `b`.
    case localizedStandardContains
}

/// The comparison of ``FilterExpression/stringOrder(_:_:_:)``.
public enum FilterStringOrder: String, Sendable, Hashable, Codable {
    /// `a.caseInsensitiveCompare(b)`
    case caseInsensitive
    /// `a.localizedCompare(b)`
    case localized
    /// `a.localizedStandardCompare(b)`
    case localizedStandard
}

/// The aggregate of ``FilterExpression/aggregate(_:_:)``.
public enum FilterAggregate: String, Sendable, Hashable, Codable {
    /// `min()`
    case min
    /// `max()`
    case max
}

/// One key of a store-neutral sort: a property path, a direction and, for strings, a comparison.
public struct FilterSortKey: Sendable, Hashable {
    /// The property, named as in ``FilterExpression/property(variable:path:)``; all but the last component are to-one relationships.
    public var path: [String]
    /// Whether smaller values come first. `nil` sorts before any value in ascending order.
    public var ascending: Bool
    /// How strings compare: `nil` for plain lexical order (by Unicode scalars).
    public var stringOrder: FilterStringOrder?

    /// Creates a sort key.
    public init(path: [String], ascending: Bool, stringOrder: FilterStringOrder?) {
        self.path = path
        self.ascending = ascending
        self.stringOrder = stringOrder
    }
}

extension FilterExpression: CustomStringConvertible {
    /// A compact, Swift-like rendering such as `($0.name == ?) && $0.bucketList.contains { !$1.isInPlan }`.
    ///
    /// Constants print as `?` (lists as `[?×3]`) so that logs and ``ModelContext/explain(_:)``
    /// never show the values bound into a query.
    public var description: String {
        switch self {
        case .value: return "?"
        case .list(let values): return "[?×\(values.count)]"
        case .property(let variable, let path):
            return (["$\(variable)"] + (path.isEmpty ? ["persistentModelID"] : path)).joined(separator: ".")
        case .comparison(let op, let lhs, let rhs):
            let symbol = ["equal": "==", "notEqual": "!=", "less": "<", "lessOrEqual": "<=", "greater": ">", "greaterOrEqual": ">="][op.rawValue] ?? op.rawValue
            return "(\(lhs) \(symbol) \(rhs))"
        case .and(let lhs, let rhs): return "(\(lhs) && \(rhs))"
        case .or(let lhs, let rhs): return "(\(lhs) || \(rhs))"
        case .not(let operand): return "!\(operand)"
        case .arithmetic(let op, let lhs, let rhs):
            let symbol = ["add": "+", "subtract": "-", "multiply": "*", "divide": "/", "remainder": "%"][op.rawValue] ?? op.rawValue
            return "(\(lhs) \(symbol) \(rhs))"
        case .negate(let operand): return "-\(operand)"
        case .conditional(let condition, let then, let otherwise): return "(\(condition) ? \(then) : \(otherwise))"
        case .coalesce(let value, let fallback): return "(\(value) ?? \(fallback))"
        case .stringTest(let test, let lhs, let rhs): return "\(lhs).\(test.rawValue)(\(rhs))"
        case .stringOrder(let order, let lhs, let rhs): return "\(lhs).\(order.rawValue)Compare(\(rhs))"
        case .contains(let collection, let element): return "\(collection).contains(\(element))"
        case .rangeContains(let lower, let upper, let closed, let element):
            return "(\(lower)\(closed ? "..." : "..<")\(upper)).contains(\(element))"
        case .anySatisfy(let collection, let variable, let test): return "\(collection).contains { $\(variable) in \(test) }"
        case .allSatisfy(let collection, let variable, let test): return "\(collection).allSatisfy { $\(variable) in \(test) }"
        case .filter(let collection, let variable, let test): return "\(collection).filter { $\(variable) in \(test) }"
        case .count(let operand): return "\(operand).count"
        case .aggregate(let aggregate, let operand): return "\(operand).\(aggregate.rawValue)()"
        }
    }
}

extension FilterExpression {
    /// The same filter with each ``value(_:)`` constant replaced by `transform`'s result;
    /// ``list(_:)`` constants and everything else stay as they are.
    ///
    /// Stores use it to find a filter's shape, for example to reuse SQL compiled for another
    /// filter that differs only in its constants. Subtrees without a constant are shared, not copied.
    package func replacingValues(_ transform: (PersistentValue) throws -> PersistentValue) rethrows -> FilterExpression {
        switch self {
        case .value(let value): return .value(try transform(value))
        case .list, .property: return self
        case .comparison(let op, let lhs, let rhs):
            return .comparison(op, try lhs.replacingValues(transform), try rhs.replacingValues(transform))
        case .and(let lhs, let rhs): return .and(try lhs.replacingValues(transform), try rhs.replacingValues(transform))
        case .or(let lhs, let rhs): return .or(try lhs.replacingValues(transform), try rhs.replacingValues(transform))
        case .not(let operand): return .not(try operand.replacingValues(transform))
        case .arithmetic(let op, let lhs, let rhs):
            return .arithmetic(op, try lhs.replacingValues(transform), try rhs.replacingValues(transform))
        case .negate(let operand): return .negate(try operand.replacingValues(transform))
        case .conditional(let test, let then, let otherwise):
            return .conditional(
                try test.replacingValues(transform), then: try then.replacingValues(transform), else: try otherwise.replacingValues(transform))
        case .coalesce(let operand, let fallback):
            return .coalesce(try operand.replacingValues(transform), try fallback.replacingValues(transform))
        case .stringTest(let test, let lhs, let rhs):
            return .stringTest(test, try lhs.replacingValues(transform), try rhs.replacingValues(transform))
        case .stringOrder(let order, let lhs, let rhs):
            return .stringOrder(order, try lhs.replacingValues(transform), try rhs.replacingValues(transform))
        case .contains(let collection, let element):
            return .contains(collection: try collection.replacingValues(transform), element: try element.replacingValues(transform))
        case .rangeContains(let lower, let upper, let closed, let element):
            return .rangeContains(
                lower: try lower.replacingValues(transform), upper: try upper.replacingValues(transform), closed: closed,
                element: try element.replacingValues(transform))
        case .anySatisfy(let collection, let variable, let test):
            return .anySatisfy(try collection.replacingValues(transform), variable: variable, test: try test.replacingValues(transform))
        case .allSatisfy(let collection, let variable, let test):
            return .allSatisfy(try collection.replacingValues(transform), variable: variable, test: try test.replacingValues(transform))
        case .filter(let collection, let variable, let test):
            return .filter(try collection.replacingValues(transform), variable: variable, test: try test.replacingValues(transform))
        case .count(let operand): return .count(try operand.replacingValues(transform))
        case .aggregate(let aggregate, let operand): return .aggregate(aggregate, try operand.replacingValues(transform))
        }
    }
}
