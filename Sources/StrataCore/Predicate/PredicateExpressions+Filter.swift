import Foundation

// The `PredicateExpressions` node types Strata translates, each with its filter meaning.
// Nodes not listed here fail translation with an error naming them (see
// `PredicateTranslator.knownUnsupportedReasons`).

// MARK: Variables, key paths and constants

extension PredicateExpressions.Variable: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        guard let bound = context.binding(of: key) else {
            throw PredicateTranslator.unsupported(self, "the variable is not bound by the predicate")
        }
        return bound
    }
}

extension PredicateExpressions.KeyPath: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        // The usual root, a closure's variable, is told by comparing types (one metadata
        // request); the cast to a captured value, which most roots are not, makes three.
        if Root.self != PredicateExpressions.Variable<Root.Output>.self,
            let constant = root as? PredicateExpressions.Value<Root.Output>
        {
            // A key path on a captured value is a constant: `searchText.isEmpty`, `trip.name`.
            return try PredicateTranslator.constant(constant.value[keyPath: keyPath], node: self)
        }
        let base = try context.translate(root)
        let rootType: Any.Type = Root.Output.self
        // The fetched model type is known without a conformance check (about 650 instructions).
        if let modelType = context.fetchedModelType(ifSameAs: rootType) ?? rootType as? any PersistentModel.Type {
            return try PredicateTranslator.modelMember(keyPath, of: modelType, layout: context.layout(of: modelType), base: base, node: self)
        }
        if let collection = rootType as? any _FilterCollection.Type, let member = collection.filterMember(keyPath) {
            switch member {
            case .count:
                return .count(base)
            case .isEmpty:
                return .comparison(.equal, .count(base), .value(.int(0)))
            case .first, .last:
                throw PredicateTranslator.unsupported(self, "`first` and `last` of \(Root.Output.self) are not supported; use `min()`, `max()` or a sort instead")
            }
        }
        if let raw = rootType as? any RawRepresentable.Type, Self.isRawValue(keyPath, of: raw) {
            return base  // an enum is stored as its raw value
        }
        throw PredicateTranslator.unsupported(
            self, "the key path \(keyPath) on \(Root.Output.self) is not supported (only persisted model properties, `count`, `isEmpty` and an enum's `rawValue` are)")
    }

    private static func isRawValue<Raw: RawRepresentable>(_ keyPath: AnyKeyPath, of type: Raw.Type) -> Bool {
        PredicateTranslator.isRawValueKeyPath(keyPath, of: type)
    }
}

extension PredicateExpressions.Value: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        if let scalar = PredicateTranslator.scalar(value) { return .value(scalar) }
        if value is any _FilterRangeConstant {
            throw PredicateTranslator.unsupported(self, "a captured range can only be used with `contains`")
        }
        return try PredicateTranslator.constant(value, node: self)
    }
}

extension PredicateExpressions.NilLiteral: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .value(.null)
    }
}

// MARK: Comparison and logic

extension PredicateExpressions.Equal: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .comparison(.equal, try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.NotEqual: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .comparison(.notEqual, try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.Comparison: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        try PredicateTranslator.checkOrderable(LHS.Output.self, node: self)
        guard let comparison = FilterComparison(op) else {
            throw PredicateTranslator.unsupported(self, "the comparison operator \(op) is unknown")
        }
        return .comparison(comparison, try context.translate(lhs), try context.translate(rhs))
    }
}

extension FilterComparison {
    /// The comparison a predicate's `<`, `<=`, `>` or `>=` stands for; `nil` for an operator this version does not know.
    init?(_ op: PredicateExpressions.ComparisonOperator) {
        switch op {
        case .lessThan: self = .less
        case .lessThanOrEqual: self = .lessOrEqual
        case .greaterThan: self = .greater
        case .greaterThanOrEqual: self = .greaterOrEqual
        @unknown default: return nil
        }
    }
}

extension PredicateExpressions.Conjunction: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .and(try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.Disjunction: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .or(try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.Negation: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .not(try context.translate(wrapped))
    }
}

extension PredicateExpressions.Conditional: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        let condition = try context.translate(test)
        let then = try context.translate(trueBranch)
        let otherwise = try context.translate(falseBranch)
        if case .value(.bool(let constant)) = condition { return constant ? then : otherwise }
        return .conditional(condition, then: then, else: otherwise)
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        try PredicateTranslator.checkOrderable(LHS.Output.self, node: self)
        let arithmetic: FilterArithmetic
        switch op {
        case .add: arithmetic = .add
        case .subtract: arithmetic = .subtract
        case .multiply: arithmetic = .multiply
        @unknown default: throw PredicateTranslator.unsupported(self, "the arithmetic operator \(op) is unknown")
        }
        return .arithmetic(arithmetic, try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.IntDivision: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        try PredicateTranslator.checkOrderable(LHS.Output.self, node: self)
        return .arithmetic(.divide, try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.IntRemainder: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        try PredicateTranslator.checkOrderable(LHS.Output.self, node: self)
        return .arithmetic(.remainder, try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.FloatDivision: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .arithmetic(.divide, try context.translate(lhs), try context.translate(rhs))
    }
}

extension PredicateExpressions.UnaryMinus: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .negate(try context.translate(wrapped))
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        let unwrapped = try context.translate(wrapped)
        context.bind(variable.key, to: unwrapped)
        let transformed = try context.translate(transform)
        // A property path through the unwrapped value is `nil` whenever the value is.
        if case .property(let number, let path) = unwrapped,
            case .property(number, let longer) = transformed, longer.starts(with: path)
        {
            return transformed
        }
        if case .value(.null) = unwrapped { return .value(.null) }
        return .conditional(.comparison(.equal, unwrapped, .value(.null)), then: .value(.null), else: transformed)
    }
}

extension PredicateExpressions.NilCoalesce: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .coalesce(try context.translate(lhs), try context.translate(rhs))
    }
}

// MARK: Strings

extension PredicateExpressions.CollectionContainsCollection: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        guard Base.Output.self is any StringProtocol.Type else {
            throw PredicateTranslator.unsupported(self, "only strings can be searched for a sub-sequence")
        }
        return .stringTest(.contains, try context.translate(base), try context.translate(other))
    }
}

extension PredicateExpressions.SequenceStartsWith: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        guard Base.Output.self is any StringProtocol.Type else {
            throw PredicateTranslator.unsupported(self, "only strings can be tested for a prefix")
        }
        return .stringTest(.startsWith, try context.translate(base), try context.translate(prefix))
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .stringTest(.localizedStandardContains, try context.translate(root), try context.translate(other))
    }
}

extension PredicateExpressions.StringCaseInsensitiveCompare: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .stringOrder(.caseInsensitive, try context.translate(root), try context.translate(other))
    }
}

extension PredicateExpressions.StringLocalizedCompare: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        .stringOrder(.localized, try context.translate(root), try context.translate(other))
    }
}

// MARK: Sequences

extension PredicateExpressions.SequenceContains: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        let sequence = try context.translate(self.sequence)
        let element = try context.translate(self.element)
        if LHS.Output.self is any StringProtocol.Type {
            return .stringTest(.contains, sequence, element)  // a Character in a String
        }
        return .contains(collection: sequence, element: element)
    }
}

extension PredicateExpressions.SequenceContainsWhere: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        let collection = try context.translate(sequence)
        let number = context.newVariable()
        context.bind(variable.key, to: .property(variable: number, path: []))
        return .anySatisfy(collection, variable: number, test: try context.translate(test))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        let collection = try context.translate(sequence)
        let number = context.newVariable()
        context.bind(variable.key, to: .property(variable: number, path: []))
        return .allSatisfy(collection, variable: number, test: try context.translate(test))
    }
}

extension PredicateExpressions.Filter: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        let collection = try context.translate(sequence)
        let number = context.newVariable()
        context.bind(variable.key, to: .property(variable: number, path: []))
        return .filter(collection, variable: number, test: try context.translate(filter))
    }
}

extension PredicateExpressions.SequenceMinimum: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        try PredicateTranslator.checkOrderable(Elements.Output.Element.self, node: self)
        return .aggregate(.min, try context.translate(elements))
    }
}

extension PredicateExpressions.SequenceMaximum: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        try PredicateTranslator.checkOrderable(Elements.Output.Element.self, node: self)
        return .aggregate(.max, try context.translate(elements))
    }
}

// MARK: Ranges

/// Implemented by the range-building nodes, whose bounds a range test reads.
protocol _FilterRangeNode {
    var isClosedRange: Bool { get }
    func translateBounds(_ context: inout TranslationContext) throws -> (lower: FilterExpression, upper: FilterExpression)
}

extension PredicateExpressions.Range: _FilterRangeNode {
    var isClosedRange: Bool { false }
    func translateBounds(_ context: inout TranslationContext) throws -> (lower: FilterExpression, upper: FilterExpression) {
        (try context.translate(lower), try context.translate(upper))
    }
}

extension PredicateExpressions.ClosedRange: _FilterRangeNode {
    var isClosedRange: Bool { true }
    func translateBounds(_ context: inout TranslationContext) throws -> (lower: FilterExpression, upper: FilterExpression) {
        (try context.translate(lower), try context.translate(upper))
    }
}

extension PredicateExpressions.RangeExpressionContains: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        try PredicateTranslator.checkOrderable(Element.Output.self, node: self)
        let element = try context.translate(self.element)
        if let node = range as? any _FilterRangeNode {
            let bounds = try node.translateBounds(&context)
            return .rangeContains(lower: bounds.lower, upper: bounds.upper, closed: node.isClosedRange, element: element)
        }
        if let constant = range as? PredicateExpressions.Value<RangeExpression.Output>,
            let bounds = constant.value as? any _FilterRangeConstant
        {
            let lower = try bounds.filterLower.map { FilterExpression.value(try PredicateTranslator.persistentValue(of: $0, node: self)) }
            let upper = try bounds.filterUpper.map { FilterExpression.value(try PredicateTranslator.persistentValue(of: $0, node: self)) }
            switch (lower, upper) {
            case (let lower?, let upper?):
                return .rangeContains(lower: lower, upper: upper, closed: bounds.filterIsClosed, element: element)
            case (let lower?, nil):
                return .comparison(.greaterOrEqual, element, lower)
            case (nil, let upper?):
                return .comparison(bounds.filterIsClosed ? .lessOrEqual : .less, element, upper)
            case (nil, nil):
                break
            }
        }
        throw PredicateTranslator.unsupported(self, "only ranges written in the predicate (`a..<b`, `a...b`) or captured ranges can be tested")
    }
}

/// `model is Subclass`: a test of the stored class (``Schema/entityDiscriminator``) against
/// the class and every class known to inherit from it; always `true` when every value of
/// the operand's type is one.
extension PredicateExpressions.TypeCheck: FilterTranslatable {
    func translate(_ context: inout TranslationContext) throws -> FilterExpression {
        let inputType: Any.Type = Input.Output.self
        if inputType is Desired.Type { return .value(.bool(true)) }
        guard let desired = Desired.self as? any PersistentModel.Type, inputType is any PersistentModel.Type else {
            throw PredicateTranslator.unsupported(self, "only a model's class can be tested in a store")
        }
        guard case .property(let variable, let path) = try context.translate(input) else {
            throw PredicateTranslator.unsupported(self, "the tested value is not a model the store holds")
        }
        let names = ModelHierarchies.names(inheritingFrom: Schema.entityName(for: desired))
        return .contains(
            collection: .list(names.map { .string($0) }),
            element: .property(variable: variable, path: path + [Schema.entityDiscriminator]))
    }
}
