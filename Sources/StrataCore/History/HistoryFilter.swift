import Foundation

/// The part of a `Predicate<DefaultHistoryTransaction>` a store can run itself: comparisons
/// of the token, identifier, timestamp and author with constants, joined by `&&`, `||` and `!`.
///
/// A store runs ``HistoryFilter/superset(of:)`` to narrow what it reads, then evaluates the
/// whole predicate on what it read: a conjunct it cannot run only widens the read.
package indirect enum HistoryFilter: Sendable, Hashable {
    /// Every transaction.
    case everything
    /// No transaction.
    case nothing
    case and(HistoryFilter, HistoryFilter)
    case or(HistoryFilter, HistoryFilter)
    case not(HistoryFilter)
    /// `field op value`; `value` is `.null` for `nil`.
    case compare(Field, FilterComparison, PersistentValue)
    /// `$0.token op token`.
    case token(FilterComparison, DefaultHistoryToken)

    /// The transaction fields a filter compares.
    package enum Field: String, Sendable, Hashable {
        /// `transactionIdentifier` or `id`: an integer.
        case transactionIdentifier
        /// A date.
        case timestamp
        /// A string or `nil`; compared by canonical equivalence, as Swift compares strings.
        case author
    }

    /// What a store needs from a descriptor's predicate.
    package struct Translation: Sendable {
        /// A filter selecting at least every transaction the predicate selects.
        package var filter: HistoryFilter
        /// Whether ``filter`` selects exactly what the predicate selects.
        package var isExact: Bool
        /// The tokens the predicate asks for transactions after (`$0.token > t`, `$0.token >= t`).
        package var lowerBounds: [DefaultHistoryToken]
    }

    /// The store-side form of `predicate`; `nil` selects everything, exactly.
    package static func superset(of predicate: Predicate<DefaultHistoryTransaction>?) -> Translation {
        guard let predicate else { return Translation(filter: .everything, isExact: true, lowerBounds: []) }
        var context = HistoryFilterContext(variable: predicate.variable.key)
        let filter = context.superset(predicate.expression)
        return Translation(filter: filter ?? .everything, isExact: filter != nil && context.isExact, lowerBounds: context.lowerBounds)
    }

    /// The filter with each token comparison turned into a comparison of the transaction
    /// identifier, for a transaction of `storeIdentifier` (whose token names that store only).
    package func resolved(for storeIdentifier: String) -> HistoryFilter {
        switch self {
        case .everything, .nothing, .compare: return self
        case .and(let lhs, let rhs): return .and(lhs.resolved(for: storeIdentifier), rhs.resolved(for: storeIdentifier))
        case .or(let lhs, let rhs): return .or(lhs.resolved(for: storeIdentifier), rhs.resolved(for: storeIdentifier))
        case .not(let inner): return .not(inner.resolved(for: storeIdentifier))
        case .token(let op, let token):
            let values = token.tokenValue ?? [:]
            guard let bound = values[storeIdentifier] else {
                // DefaultHistoryToken compares over the stores both tokens name; with none in
                // common neither is less, so only `<=`, `>=` and `!=` hold.
                switch op {
                case .lessOrEqual, .greaterOrEqual, .notEqual: return .everything
                case .less, .greater, .equal: return .nothing
                }
            }
            if op == .equal || op == .notEqual, values.count != 1 {
                return op == .equal ? .nothing : .everything  // a one-store token equals only a one-store token
            }
            return .compare(.transactionIdentifier, op, .int(bound))
        }
    }

    /// Whether this filter ends the read early: `.nothing` anywhere it decides alone.
    package var selectsNothing: Bool {
        switch self {
        case .nothing: true
        case .and(let lhs, let rhs): lhs.selectsNothing || rhs.selectsNothing
        case .or(let lhs, let rhs): lhs.selectsNothing && rhs.selectsNothing
        default: false
        }
    }

    /// Whether a token constant names a point before `horizon` in `storeIdentifier`: the
    /// transactions after it that were pruned are gone, so the token expired.
    package static func isExpired(_ token: DefaultHistoryToken, storeIdentifier: String, horizon: Int64) -> Bool {
        guard let value = token.tokenValue?[storeIdentifier] else { return false }
        return value < horizon
    }

    /// The error for a descriptor asking after a token older than what was pruned.
    package static func expired(_ token: DefaultHistoryToken, storeIdentifier: String, horizon: Int64) -> SwiftDataError {
        SwiftDataError.historyTokenExpired.with(
            details: "the token names transaction \(token.tokenValue?[storeIdentifier] ?? 0) of store \(storeIdentifier), but history up to transaction \(horizon) was deleted")
    }
}

/// The state of one history predicate translation.
struct HistoryFilterContext {
    let variable: PredicateExpressions.VariableID
    /// Whether every node translated so far was translated exactly.
    var isExact = true
    /// Whether the node being translated counts positively (not under a `!`).
    var isPositive = true
    var lowerBounds: [DefaultHistoryToken] = []

    init(variable: PredicateExpressions.VariableID) {
        self.variable = variable
    }

    /// A filter selecting at least what `expression` selects: conjuncts that do not translate are dropped.
    mutating func superset(_ expression: Any) -> HistoryFilter? {
        if let conjunction = expression as? any HistoryConjunctionNode {
            let lhs = superset(conjunction.left)
            let rhs = superset(conjunction.right)
            switch (lhs, rhs) {
            case (let lhs?, let rhs?): return .and(lhs, rhs)
            case (let side?, nil), (nil, let side?): return side
            case (nil, nil): return nil
            }
        }
        let filter = exact(expression)
        if filter == nil { isExact = false }
        return filter
    }

    /// `expression` as a filter that selects exactly what it selects, or `nil`.
    mutating func exact(_ expression: Any) -> HistoryFilter? {
        guard let node = expression as? any HistoryFilterNode else { return nil }
        return node.historyFilter(&self)
    }

    /// `expression` as an operand: a field, the token, or a constant.
    func operand(_ expression: Any) -> HistoryOperand? {
        (expression as? any HistoryOperandNode)?.historyOperand(self)
    }

    /// `lhs op rhs` where one side is a field or the token and the other a constant.
    mutating func comparison(_ op: FilterComparison, _ lhs: Any, _ rhs: Any) -> HistoryFilter? {
        guard let left = operand(lhs), let right = operand(rhs) else { return nil }
        switch (left, right) {
        case (.field(let field), .constant(let value)): return comparison(field, op, value)
        case (.constant(let value), .field(let field)): return comparison(field, op.flipped, value)
        case (.transactionToken, .token(let token)): return tokenComparison(op, token)
        case (.token(let token), .transactionToken): return tokenComparison(op.flipped, token)
        default: return nil
        }
    }

    private func comparison(_ field: HistoryFilter.Field, _ op: FilterComparison, _ value: PersistentValue) -> HistoryFilter? {
        switch (field, value) {
        case (.transactionIdentifier, .int), (.timestamp, .date), (.author, .string), (.author, .null): .compare(field, op, value)
        default: nil
        }
    }

    private mutating func tokenComparison(_ op: FilterComparison, _ token: DefaultHistoryToken) -> HistoryFilter {
        let lowerBound = (op == .greater || op == .greaterOrEqual) == isPositive
        if lowerBound && op != .equal && op != .notEqual { lowerBounds.append(token) }
        return .token(op, token)
    }
}

/// An operand of a history comparison.
enum HistoryOperand {
    case field(HistoryFilter.Field)
    /// The transaction's own token.
    case transactionToken
    /// A captured token.
    case token(DefaultHistoryToken)
    case constant(PersistentValue)
}

extension FilterComparison {
    /// The comparison with its operands swapped: `a < b` is `b > a`.
    var flipped: FilterComparison {
        switch self {
        case .equal, .notEqual: self
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        }
    }
}

// MARK: Nodes

/// A `PredicateExpressions` node that is a history filter.
protocol HistoryFilterNode {
    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter?
}

/// A `PredicateExpressions` node that is an operand of a history comparison.
protocol HistoryOperandNode {
    func historyOperand(_ context: HistoryFilterContext) -> HistoryOperand?
}

/// `&&`, split by ``HistoryFilterContext/superset(_:)``.
protocol HistoryConjunctionNode {
    var left: Any { get }
    var right: Any { get }
}

extension PredicateExpressions.Conjunction: HistoryConjunctionNode, HistoryFilterNode {
    var left: Any { lhs }
    var right: Any { rhs }

    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter? {
        let left = context.exact(lhs)
        let right = context.exact(rhs)
        guard let left, let right else { return nil }
        return .and(left, right)
    }
}

extension PredicateExpressions.Disjunction: HistoryFilterNode {
    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter? {
        let left = context.exact(lhs)
        let right = context.exact(rhs)
        guard let left, let right else { return nil }
        return .or(left, right)
    }
}

extension PredicateExpressions.Negation: HistoryFilterNode {
    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter? {
        context.isPositive.toggle()
        defer { context.isPositive.toggle() }
        return context.exact(wrapped).map { .not($0) }
    }
}

extension PredicateExpressions.Equal: HistoryFilterNode {
    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter? {
        context.comparison(.equal, lhs, rhs)
    }
}

extension PredicateExpressions.NotEqual: HistoryFilterNode {
    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter? {
        context.comparison(.notEqual, lhs, rhs)
    }
}

extension PredicateExpressions.Comparison: HistoryFilterNode {
    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter? {
        guard let comparison = FilterComparison(op) else { return nil }
        return context.comparison(comparison, lhs, rhs)
    }
}

extension PredicateExpressions.Value: HistoryFilterNode, HistoryOperandNode {
    func historyFilter(_ context: inout HistoryFilterContext) -> HistoryFilter? {
        guard let flag = value as? Bool else { return nil }
        return flag ? .everything : .nothing
    }

    func historyOperand(_ context: HistoryFilterContext) -> HistoryOperand? {
        HistoryOperand(constant: value)
    }
}

extension PredicateExpressions.NilLiteral: HistoryOperandNode {
    func historyOperand(_ context: HistoryFilterContext) -> HistoryOperand? {
        .constant(.null)
    }
}

extension PredicateExpressions.KeyPath: HistoryOperandNode {
    func historyOperand(_ context: HistoryFilterContext) -> HistoryOperand? {
        if let constant = root as? PredicateExpressions.Value<Root.Output> {
            return HistoryOperand(constant: constant.value[keyPath: keyPath])
        }
        guard let variable = root as? PredicateExpressions.Variable<Root.Output>, variable.key == context.variable else { return nil }
        switch keyPath as AnyKeyPath {
        case \DefaultHistoryTransaction.token: return .transactionToken
        case \DefaultHistoryTransaction.transactionIdentifier, \DefaultHistoryTransaction.id: return .field(.transactionIdentifier)
        case \DefaultHistoryTransaction.timestamp: return .field(.timestamp)
        case \DefaultHistoryTransaction.author: return .field(.author)
        default: return nil
        }
    }
}

extension HistoryOperand {
    /// A captured constant, unwrapped from its optional.
    init?(constant: Any) {
        switch constant {
        case let token as DefaultHistoryToken: self = .token(token)
        case let value as Int64: self = .constant(.int(value))
        case let value as Int: self = .constant(.int(Int64(value)))
        case let value as Date: self = .constant(.date(value))
        case let value as String: self = .constant(.string(value))
        default:
            let mirror = Mirror(reflecting: constant)
            guard mirror.displayStyle == .optional else { return nil }
            guard let wrapped = mirror.children.first?.value else {
                self = .constant(.null)
                return
            }
            self.init(constant: wrapped)
        }
    }
}

// MARK: Evaluation

extension HistoryFilter {
    /// Whether `record` passes the filter; token comparisons must be ``resolved(for:)`` first.
    package func matches(_ record: HistoryRecord) -> Bool {
        switch self {
        case .everything: return true
        case .nothing: return false
        case .and(let lhs, let rhs): return lhs.matches(record) && rhs.matches(record)
        case .or(let lhs, let rhs): return lhs.matches(record) || rhs.matches(record)
        case .not(let inner): return !inner.matches(record)
        case .token: return resolved(for: record.storeIdentifier).matches(record)
        case .compare(let field, let op, let value):
            switch (field, value) {
            case (.transactionIdentifier, .int(let bound)): return Self.compare(record.transactionIdentifier, op, bound)
            case (.timestamp, .date(let bound)): return Self.compare(record.timestamp, op, bound)
            case (.author, .string(let bound)):
                guard let author = record.author else { return op == .notEqual }
                return Self.compare(author, op, bound)
            case (.author, .null):
                return op == .equal ? record.author == nil : op == .notEqual ? record.author != nil : false
            default: return false
            }
        }
    }

    private static func compare<T: Comparable>(_ lhs: T, _ op: FilterComparison, _ rhs: T) -> Bool {
        switch op {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        case .less: lhs < rhs
        case .lessOrEqual: lhs <= rhs
        case .greater: lhs > rhs
        case .greaterOrEqual: lhs >= rhs
        }
    }
}
