import Foundation

/// A predicate's translation kept for the next predicate of the same shape, with its values
/// read fresh.
///
/// A predicate's expression type fixes its nodes; what two predicates of one type can still
/// differ in is stored in the nodes: captured values, key paths, comparison operators and
/// variables. For predicates made only of the nodes that record where these lie (equality,
/// ordering, `&&`, `||`, `!`, key paths on the predicate's variable and captured scalars),
/// a shape keeps the byte offset of each in the expression, the key paths and operators it
/// was translated with, and the translated filter with a parameter in place of each
/// captured value. A later predicate of the type whose key paths, operators and variables
/// are the same is translated by reading its values at their offsets, about a tenth of a
/// translation (which casts each node to find how to translate it and hashes each key path
/// to find its property). Anything else is translated in full.
final class PredicateShape: @unchecked Sendable {  // immutable; AnyKeyPath is not marked Sendable
    /// Something stored in the expression that must be as it was for the shape to apply.
    enum Check {
        /// The key path object at the offset is this one, which the shape holds, so that its
        /// address cannot be reused by another.
        case keyPath(Int, AnyKeyPath)
        /// The comparison operator at the offset is this one.
        case comparison(Int, PredicateExpressions.ComparisonOperator)
        /// The variable at the offset is the predicate's own.
        case variable(Int)
    }

    /// The translated filter, with a parameter for each captured value.
    indirect enum Template {
        case fixed(FilterExpression)
        case parameter(Int)
        case comparison(FilterComparison, Template, Template)
        case and(Template, Template)
        case or(Template, Template)
        case not(Template)
    }

    /// How to read one captured value: its offset and a reader of its type.
    struct Value {
        let offset: Int
        let read: @Sendable (UnsafeRawPointer) -> PersistentValue
    }

    /// The layout the filter's property paths were found in, held so that no other layout
    /// can take its address.
    private let layout: ModelLayout
    private let checks: [Check]
    private let values: [Value]
    private let template: Template

    private init(layout: ModelLayout, checks: [Check], values: [Value], template: Template) {
        self.layout = layout
        self.checks = checks
        self.values = values
        self.template = template
    }

    // MARK: Using a shape

    /// What the shapes kept tell of a predicate.
    enum Lookup {
        /// The predicate's filter, from the shape kept for its expression type.
        case filter(FilterExpression)
        /// No shape applies; the predicate's, once translated, is to be kept.
        case miss
        /// Predicates of this expression type have a node that cannot be recorded.
        case unrecordable
    }

    /// The filter of the predicate of `expression` and `variable` from the shape last kept
    /// for its expression type.
    static func lookUp(_ expression: any StandardPredicateExpression<Bool>, variable: PredicateExpressions.VariableID, layout: ModelLayout) -> Lookup {
        guard let kept = shapes.withLock({ $0[ObjectIdentifier(type(of: expression))] }) else { return .miss }
        guard let shape = kept else { return .unrecordable }
        guard shape.layout === layout, let filter = shape.filter(of: expression, variable: variable) else { return .miss }
        return .filter(filter)
    }

    private func filter<E: StandardPredicateExpression<Bool>>(of expression: E, variable: PredicateExpressions.VariableID) -> FilterExpression? {
        withUnsafePointer(to: expression) { filter(at: UnsafeRawPointer($0), variable: variable) }
    }

    private func filter(at base: UnsafeRawPointer, variable: PredicateExpressions.VariableID) -> FilterExpression? {
        for check in checks {
            switch check {
            case .keyPath(let offset, let keyPath):
                guard base.load(fromByteOffset: offset, as: UnsafeRawPointer.self) == UnsafeRawPointer(Unmanaged.passUnretained(keyPath).toOpaque())
                else { return nil }
            case .comparison(let offset, let op):
                guard base.load(fromByteOffset: offset, as: PredicateExpressions.ComparisonOperator.self) == op else { return nil }
            case .variable(let offset):
                guard base.load(fromByteOffset: offset, as: PredicateExpressions.VariableID.self) == variable else { return nil }
            }
        }
        var read: [PersistentValue] = []
        read.reserveCapacity(values.count)
        for value in values { read.append(value.read(base + value.offset)) }
        return Self.build(template, read)
    }

    private static func build(_ template: Template, _ values: [PersistentValue]) -> FilterExpression {
        switch template {
        case .fixed(let filter): filter
        case .parameter(let index): .value(values[index])
        case .comparison(let comparison, let lhs, let rhs): .comparison(comparison, build(lhs, values), build(rhs, values))
        case .and(let lhs, let rhs): .and(build(lhs, values), build(rhs, values))
        case .or(let lhs, let rhs): .or(build(lhs, values), build(rhs, values))
        case .not(let operand): .not(build(operand, values))
        }
    }

    // MARK: Keeping a shape

    /// The last shape kept for each expression type, `nil` for a type whose predicates
    /// cannot be recorded; bounded by the app's predicates.
    private static let shapes = Locked<[ObjectIdentifier: PredicateShape?]>([:])

    /// Keeps the shape of the predicate of `expression`, just translated into `filter` in
    /// `layout`, or that its expression type has none when a node cannot record where its
    /// contents lie.
    static func remember(_ expression: any StandardPredicateExpression<Bool>, filter: FilterExpression, layout: ModelLayout) {
        var recorder = Recorder()
        var leaf = 0
        var shape: PredicateShape?
        if recorder.record(expression, at: 0), let template = recorder.template(of: filter, leaf: &leaf), leaf == recorder.leaves.count {
            shape = PredicateShape(layout: layout, checks: recorder.checks, values: recorder.values, template: template)
        }
        shapes.withLock { $0[ObjectIdentifier(type(of: expression))] = .some(shape) }
    }

    /// What a walk over an expression found, in translation order.
    struct Recorder {
        /// A constant the translation writes as a value: a captured value (the index of its
        /// reader in ``values``) or a `nil` literal.
        enum Leaf {
            case parameter(Int)
            case constant
        }

        var checks: [Check] = []
        var values: [Value] = []
        var leaves: [Leaf] = []

        /// Records `node`, found at `offset` bytes into the expression; `false` when it or a
        /// node inside it cannot be recorded.
        mutating func record(_ node: Any, at offset: Int) -> Bool {
            // Through the translator's table of node types: a cast to a protocol the node does
            // not conform to searches every conformance record of the process.
            guard let translatable = TranslationContext.translatableType(of: type(of: node)) else { return false }
            return translatable.recordShape(opening: node, at: offset, &self)
        }

        /// Records `node`, stored at `field` bytes into a node found at `offset`; `false` when
        /// the field's offset is unknown (a type whose layout is hidden by library evolution).
        mutating func record(_ node: Any, at offset: Int, field: Int?) -> Bool {
            guard let field else { return false }
            return record(node, at: offset + field)
        }

        /// Records the two operands of `node`, found at `offset`, stored in `lhs` and `rhs`.
        mutating func record<Node, LHS, RHS>(_ node: Node, _ lhs: KeyPath<Node, LHS>, _ rhs: KeyPath<Node, RHS>, at offset: Int) -> Bool {
            record(node[keyPath: lhs], at: offset, field: MemoryLayout<Node>.offset(of: lhs))
                && record(node[keyPath: rhs], at: offset, field: MemoryLayout<Node>.offset(of: rhs))
        }

        /// Records a captured value read by `read`.
        mutating func recordValue(at offset: Int, read: @escaping @Sendable (UnsafeRawPointer) -> PersistentValue) {
            leaves.append(.parameter(values.count))
            values.append(Value(offset: offset, read: read))
        }

        /// `filter` with each value a captured value became replaced by its parameter, or
        /// `nil` when it has a node the shape cannot rebuild; `leaf` counts the values met.
        func template(of filter: FilterExpression, leaf: inout Int) -> Template? {
            switch filter {
            case .value:
                guard leaf < leaves.count else { return nil }
                defer { leaf += 1 }
                if case .parameter(let index) = leaves[leaf] { return .parameter(index) }
                return .fixed(filter)
            case .property:
                return .fixed(filter)
            case .comparison(let comparison, let lhs, let rhs):
                guard let lhs = template(of: lhs, leaf: &leaf), let rhs = template(of: rhs, leaf: &leaf) else { return nil }
                return .comparison(comparison, lhs, rhs)
            case .and(let lhs, let rhs):
                guard let lhs = template(of: lhs, leaf: &leaf), let rhs = template(of: rhs, leaf: &leaf) else { return nil }
                return .and(lhs, rhs)
            case .or(let lhs, let rhs):
                guard let lhs = template(of: lhs, leaf: &leaf), let rhs = template(of: rhs, leaf: &leaf) else { return nil }
                return .or(lhs, rhs)
            case .not(let operand):
                return template(of: operand, leaf: &leaf).map { .not($0) }
            default:
                return nil
            }
        }
    }
}

// The nodes that record their shape (see `FilterTranslatable.recordShape(at:_:)`).

extension PredicateExpressions.Variable {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        guard let field = MemoryLayout<Self>.offset(of: \.key) else { return false }
        recorder.checks.append(.variable(offset + field))
        return true
    }
}

extension PredicateExpressions.KeyPath {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        // A key path on a captured value translates to the value it reads, which can change.
        guard Root.self == PredicateExpressions.Variable<Root.Output>.self, let field = MemoryLayout<Self>.offset(of: \.keyPath) else { return false }
        recorder.checks.append(.keyPath(offset + field, keyPath))
        return recorder.record(root, at: offset, field: MemoryLayout<Self>.offset(of: \.root))
    }
}

extension PredicateExpressions.Value {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        guard let field = MemoryLayout<Self>.offset(of: \.value), let read = PredicateTranslator.scalarReader(of: Output.self) else { return false }
        recorder.recordValue(at: offset + field, read: read)
        return true
    }
}

extension PredicateExpressions.NilLiteral {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        recorder.leaves.append(.constant)
        return true
    }
}

extension PredicateExpressions.Equal {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        recorder.record(self, \.lhs, \.rhs, at: offset)
    }
}

extension PredicateExpressions.NotEqual {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        recorder.record(self, \.lhs, \.rhs, at: offset)
    }
}

extension PredicateExpressions.Comparison {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        guard let field = MemoryLayout<Self>.offset(of: \.op) else { return false }
        recorder.checks.append(.comparison(offset + field, op))
        return recorder.record(self, \.lhs, \.rhs, at: offset)
    }
}

extension PredicateExpressions.Conjunction {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        recorder.record(self, \.lhs, \.rhs, at: offset)
    }
}

extension PredicateExpressions.Disjunction {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        recorder.record(self, \.lhs, \.rhs, at: offset)
    }
}

extension PredicateExpressions.Negation {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        recorder.record(wrapped, at: offset, field: MemoryLayout<Self>.offset(of: \.wrapped))
    }
}
