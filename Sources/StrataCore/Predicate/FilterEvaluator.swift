import Foundation

/// Evaluates ``FilterExpression``s on ``DefaultSnapshot``s, resolving relationships through `resolve`.
///
/// Results equal Swift's own evaluation of the original `Predicate` on model objects; where
/// Swift would trap (integer overflow, division by zero) the evaluator throws instead. An
/// evaluator is meant to live for one fetch, so it is not `Sendable`: `resolve` may read
/// state the caller owns without locking. A related identifier that `resolve` cannot find
/// reads as a missing model (`nil`).
///
/// ```swift
/// let evaluator = FilterEvaluator { snapshotsByID[$0] }
/// let matching = try snapshots.filter { try evaluator.matches($0, filter) }
/// ```
public struct FilterEvaluator {
    private let resolve: (PersistentIdentifier) -> DefaultSnapshot?

    /// Creates an evaluator that reads related models through `resolve`.
    public init(resolve: @escaping (PersistentIdentifier) -> DefaultSnapshot?) {
        self.resolve = resolve
    }

    /// Whether `snapshot` satisfies `filter` (a `nil` result counts as false).
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` when operand kinds cannot be compared
    ///   (naming them), on integer overflow and on integer division by zero.
    public func matches(_ snapshot: DefaultSnapshot, _ filter: FilterExpression) throws -> Bool {
        try withUnsafePointer(to: snapshot) { model in try truth(of: evaluate(filter, in: Scope(model: model))) == true }
    }

    /// Whether `a` sorts before `b` under `keys` (stable tie-breaking is the caller's).
    ///
    /// `nil` sorts before any value in ascending order; strings compare by the key's
    /// ``FilterSortKey/stringOrder``, or by Swift's `<` when it is `nil`.
    /// - Throws: `SwiftDataError.unsupportedSortDescriptor` when the values of a key cannot be ordered.
    public func areInIncreasingOrder(_ a: DefaultSnapshot, _ b: DefaultSnapshot, by keys: [FilterSortKey]) throws -> Bool {
        for key in keys {
            let lhs = try sortValue(of: a, path: key.path)
            let rhs = try sortValue(of: b, path: key.path)
            let order: ComparisonResult
            do {
                order = try Self.sortOrder(lhs, rhs, stringOrder: key.stringOrder)
            } catch let error as SwiftDataError {
                throw SwiftDataError.unsupportedSortDescriptor.with(details: "\(key.path.joined(separator: ".")): \(error.details)")
            }
            if order == .orderedSame { continue }
            return key.ascending ? order == .orderedAscending : order == .orderedDescending
        }
        return false
    }

    // MARK: Evaluation

    /// The variables in scope: the fetched model as variable 0, and the elements that
    /// `anySatisfy`, `allSatisfy` and `filter` bind, innermost last. No dictionary: a scope is
    /// made for every row a filter tests, and holds one or two variables.
    ///
    /// The model is the caller's snapshot, borrowed for the evaluation a scope lives in: a
    /// copy retained and released its arrays and copied its identifier for every row a
    /// filter tests (about 100 instructions; issue I).
    struct Scope {
        private let modelAddress: UnsafePointer<DefaultSnapshot>
        var elements: [(variable: Int, value: PersistentValue)] = []

        /// A scope of `model`, which must outlive it.
        init(model: UnsafePointer<DefaultSnapshot>) { self.modelAddress = model }

        /// The model's identifier.
        var modelIdentifier: PersistentIdentifier { modelAddress.pointee.persistentIdentifier }

        /// The model's value of the property `name`, read where the snapshot is: handing the
        /// snapshot on to ``FilterEvaluator/value(of:in:)`` copied it.
        func modelValue(of name: String) throws -> PersistentValue {
            guard let value = modelAddress.pointee[name] else { throw FilterEvaluator.noProperty(name, in: modelAddress.pointee) }
            return value
        }

        func binding(_ variable: Int, _ value: PersistentValue) -> Scope {
            var scope = self
            scope.elements.append((variable, value))
            return scope
        }

        /// The element bound to `variable`, the innermost binding first; `nil` when no element
        /// is (variable 0 is then the model).
        func element(_ variable: Int) -> PersistentValue? {
            for element in elements.reversed() where element.variable == variable { return element.value }
            return nil
        }
    }

    /// An evaluated operand: one value (``PersistentValue/null`` for `nil`), or a collection.
    enum Operand {
        case value(PersistentValue)
        case collection([PersistentValue])

        static let null = Operand.value(.null)

        var isNull: Bool {
            if case .value(.null) = self { return true }
            return false
        }
    }

    private func evaluate(_ expression: FilterExpression, in scope: Scope) throws -> Operand {
        switch expression {
        case .value(let value):
            return .value(value)
        case .list(let values):
            return .collection(values)
        case .property(let variable, let path):
            return try property(variable: variable, path: path, in: scope)
        case .comparison(let comparison, let lhs, let rhs):
            return .value(try Self.compare(comparison, evaluate(lhs, in: scope), evaluate(rhs, in: scope)))
        case .and(let lhs, let rhs):
            let left = try truth(of: evaluate(lhs, in: scope))
            if left == false { return .value(.bool(false)) }
            let right = try truth(of: evaluate(rhs, in: scope))
            if right == false { return .value(.bool(false)) }
            return left == true && right == true ? .value(.bool(true)) : .null
        case .or(let lhs, let rhs):
            let left = try truth(of: evaluate(lhs, in: scope))
            if left == true { return .value(.bool(true)) }
            let right = try truth(of: evaluate(rhs, in: scope))
            if right == true { return .value(.bool(true)) }
            return left == false && right == false ? .value(.bool(false)) : .null
        case .not(let operand):
            guard let value = try truth(of: evaluate(operand, in: scope)) else { return .null }
            return .value(.bool(!value))
        case .arithmetic(let arithmetic, let lhs, let rhs):
            return .value(try Self.arithmetic(arithmetic, value(of: lhs, in: scope), value(of: rhs, in: scope)))
        case .negate(let operand):
            return .value(try Self.negate(value(of: operand, in: scope)))
        case .conditional(let condition, let then, let otherwise):
            return try truth(of: evaluate(condition, in: scope)) == true
                ? evaluate(then, in: scope) : evaluate(otherwise, in: scope)
        case .coalesce(let operand, let fallback):
            let result = try evaluate(operand, in: scope)
            return result.isNull ? try evaluate(fallback, in: scope) : result
        case .stringTest(let test, let lhs, let rhs):
            return .value(try Self.stringTest(test, value(of: lhs, in: scope), value(of: rhs, in: scope)))
        case .stringOrder(let order, let lhs, let rhs):
            return .value(try Self.stringOrder(order, value(of: lhs, in: scope), value(of: rhs, in: scope)))
        case .contains(let collection, let element):
            let needle = try value(of: element, in: scope)
            guard let elements = try Self.elements(of: evaluate(collection, in: scope), hint: needle.kind) else { return .null }
            return .value(.bool(try elements.contains { try Self.equals($0, needle) }))
        case .rangeContains(let lower, let upper, let closed, let element):
            return .value(try Self.rangeContains(
                lower: value(of: lower, in: scope), upper: value(of: upper, in: scope), closed: closed,
                element: value(of: element, in: scope)))
        case .anySatisfy(let collection, let variable, let test):
            guard let elements = try Self.elements(of: evaluate(collection, in: scope), hint: nil) else { return .null }
            for element in elements {
                if try truth(of: evaluate(test, in: scope.binding(variable, element))) == true { return .value(.bool(true)) }
            }
            return .value(.bool(false))
        case .allSatisfy(let collection, let variable, let test):
            guard let elements = try Self.elements(of: evaluate(collection, in: scope), hint: nil) else { return .null }
            for element in elements {
                if try truth(of: evaluate(test, in: scope.binding(variable, element))) != true { return .value(.bool(false)) }
            }
            return .value(.bool(true))
        case .filter(let collection, let variable, let test):
            guard let elements = try Self.elements(of: evaluate(collection, in: scope), hint: nil) else { return .null }
            return .collection(try elements.filter { try truth(of: evaluate(test, in: scope.binding(variable, $0))) == true })
        case .count(let operand):
            let result = try evaluate(operand, in: scope)
            if case .value(.string(let string)) = result { return .value(.int(Int64(string.count))) }
            if case .value(.codable(let data)) = result,
                case .object(let members)? = try? CodableAttributeCoding.decode(FilterJSONValue.self, from: data)
            {
                return .value(.int(Int64(members.count)))  // a stored dictionary
            }
            guard let elements = try Self.elements(of: result, hint: nil) else { return .null }
            return .value(.int(Int64(elements.count)))
        case .aggregate(let aggregate, let operand):
            guard let elements = try Self.elements(of: evaluate(operand, in: scope), hint: nil) else { return .null }
            return .value(try Self.aggregate(aggregate, elements))
        }
    }

    /// Evaluates an operand that must be a single value.
    private func value(of expression: FilterExpression, in scope: Scope) throws -> PersistentValue {
        switch try evaluate(expression, in: scope) {
        case .value(let value): return value
        case .collection: throw Self.unsupported("a collection is used where a single value is needed")
        }
    }

    /// `true`, `false` or `nil` for a Boolean operand (integers count as stores without Booleans write them).
    private func truth(of operand: Operand) throws -> Bool? {
        switch operand {
        case .value(.null): return nil
        case .value(.bool(let value)): return value
        case .value(.int(let value)): return value != 0
        case .value(let other): throw Self.unsupported("a \(Self.kindName(other)) value is used as a condition")
        case .collection: throw Self.unsupported("a collection is used as a condition")
        }
    }

    /// The value at `path` from the model or element bound to `variable`, following to-one
    /// relationships; `nil` when a relationship on the way is `nil` or cannot be resolved.
    ///
    /// The fetched model is read in place, not copied: this runs for every property of every
    /// row a filter tests.
    private func property(variable: Int, path: [String], in scope: Scope) throws -> Operand {
        var current: PersistentValue
        var names = path[...]
        if let element = scope.element(variable) {
            current = element
        } else if variable == 0 {
            guard let name = names.popFirst() else { return .value(.identifier(scope.modelIdentifier)) }
            current = try scope.modelValue(of: name)
        } else {
            throw Self.unsupported("the filter uses variable \(variable), which nothing binds")
        }
        for name in names {
            switch current {
            case .identifier(let identifier):
                guard let resolved = resolve(identifier) else { return .null }
                current = try Self.value(of: name, in: resolved)
            case .null:
                return .null
            default:
                throw Self.unsupported("\(name) is read from a \(Self.kindName(current)) value, not a model")
            }
        }
        if case .identifiers(let identifiers) = current { return .collection(identifiers.map(PersistentValue.identifier)) }
        return .value(current)
    }

    private static func value(of name: String, in snapshot: DefaultSnapshot) throws -> PersistentValue {
        guard let value = snapshot[name] else { throw noProperty(name, in: snapshot) }
        return value
    }

    private static func noProperty(_ name: String, in snapshot: DefaultSnapshot) -> SwiftDataError {
        unsupported("\(snapshot.persistentIdentifier.entityName) has no property \(name)")
    }

    private func sortValue(of snapshot: DefaultSnapshot, path: [String]) throws -> PersistentValue {
        do {
            switch try withUnsafePointer(to: snapshot, { try property(variable: 0, path: path, in: Scope(model: $0)) }) {
            case .value(let value): return value
            case .collection: throw Self.unsupported("a to-many relationship has no order")
            }
        } catch let error as SwiftDataError {
            throw SwiftDataError.unsupportedSortDescriptor.with(details: "\(path.joined(separator: ".")): \(error.details)")
        }
    }
}
