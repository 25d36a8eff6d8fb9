import Foundation

/// Turns Foundation `Predicate`s and `SortDescriptor`s into the store-neutral
/// ``FilterExpression`` and ``FilterSortKey``s that stores run.
///
/// Each `PredicateExpressions` node type Strata understands conforms to
/// ``FilterTranslatable`` (see `PredicateExpressions+Filter.swift`); a node that does not
/// conform stops the translation with an error naming it.
enum PredicateTranslator {
    /// Translates `predicate` into a filter whose variable `0` is the fetched model;
    /// `layout` is `T`'s, passed by a caller that has it. A predicate of a shape translated
    /// before is translated by reading its values (see ``PredicateShape``).
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` whose details name the node type
    ///   that could not be translated (e.g. `PredicateExpressions.ForcedUnwrap`) and why.
    static func translate<T: PersistentModel>(_ predicate: Predicate<T>, layout: ModelLayout = .of(T.self)) throws -> FilterExpression {
        try translate(predicate.expression, variable: predicate.variable.key, of: T.self, layout: layout)
    }

    /// Translates the predicate of `expression` and `variable` on models of `type`, whose
    /// layout is `layout`: the parts of a `Predicate` a translation reads, in code that is
    /// not generic over the model type.
    ///
    /// - Throws: As ``translate(_:layout:)``.
    static func translate(
        _ expression: any StandardPredicateExpression<Bool>, variable: PredicateExpressions.VariableID, of type: any PersistentModel.Type,
        layout: ModelLayout
    ) throws -> FilterExpression {
        let lookup = PredicateShape.lookUp(expression, variable: variable, layout: layout)
        if case .filter(let filter) = lookup { return filter }
        var context = TranslationContext(fetched: layout, of: type, expressionType: Swift.type(of: expression))
        context.bind(variable, to: .property(variable: 0, path: []))
        let filter = try context.translate(expression)
        context.rememberNodeTypes()
        if case .miss = lookup { PredicateShape.remember(expression, filter: filter, layout: layout) }
        return filter
    }

    /// The name of a node's type without its module and generic arguments, e.g. `PredicateExpressions.Equal`.
    static func nodeName(of node: Any) -> String {
        var name = String(reflecting: type(of: node))
        if let angle = name.firstIndex(of: "<") { name = String(name[..<angle]) }
        if let range = name.range(of: "PredicateExpressions.") { name = String(name[range.lowerBound...]) }
        return name
    }

    /// The error for a node that cannot be translated, naming it and saying why.
    static func unsupported(_ node: Any, _ reason: String) -> SwiftDataError {
        SwiftDataError.unsupportedPredicate.with(details: "\(nodeName(of: node)): \(reason)")
    }

    /// Why Strata does not translate some well-known nodes, by node name.
    static let knownUnsupportedReasons: [String: String] = [
        "PredicateExpressions.ForcedUnwrap": "force unwrapping is not supported; use `?.`, `flatMap` or `??` instead",
        "PredicateExpressions.TypeCheck": "type checks (`is`) are not supported",
        "PredicateExpressions.ConditionalCast": "type casts (`as?`) are not supported",
        "PredicateExpressions.ForceCast": "type casts (`as!`) are not supported",
        "PredicateExpressions.StringContainsRegex": "regular expressions are not supported",
        "PredicateExpressions.PredicateRegex": "regular expressions are not supported",
        "PredicateExpressions.CollectionIndexSubscript": "subscripting a collection is not supported",
        "PredicateExpressions.CollectionRangeSubscript": "subscripting a collection is not supported",
        "PredicateExpressions.DictionaryKeySubscript": "subscripting a dictionary is not supported",
        "PredicateExpressions.DictionaryKeyDefaultValueSubscript": "subscripting a dictionary is not supported",
        "PredicateExpressions.PredicateEvaluate": "evaluating a predicate inside a predicate is not supported",
        "PredicateExpressions.ExpressionEvaluate": "evaluating an expression inside a predicate is not supported",
    ]
}

/// A `PredicateExpressions` node that Strata can express as a ``FilterExpression``.
protocol FilterTranslatable {
    /// The node as a filter, with its sub-expressions translated through `context`.
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` naming the node that cannot be translated.
    func translate(_ context: inout TranslationContext) throws -> FilterExpression

    /// Records where this node, found at `offset` bytes into a predicate's expression, and
    /// its operands keep their captured values, key paths, operators and variables, for
    /// ``PredicateShape``; `false` when they cannot be recorded (the default).
    ///
    /// A node may record itself only when its translation is fixed by those contents and
    /// its type: it writes a value into the filter for each captured value and `nil`
    /// literal, in translation order, and none of its own.
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool
}

extension FilterTranslatable {
    func recordShape(at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool { false }
}

/// The state of one translation: what each predicate variable stands for, and the last
/// filter variable number handed out.
struct TranslationContext {
    /// The variables bound so far: a predicate has one, plus one per closure inside it, so a
    /// list searched from its end costs less than a dictionary made for every translation.
    private var bindings: [(variable: PredicateExpressions.VariableID, expression: FilterExpression)] = []
    private var lastVariable = 0
    /// The fetched model type and its layout, which most key paths of a predicate read.
    private let fetchedType: any PersistentModel.Type
    private let fetchedLayout: ModelLayout
    /// The predicate's expression type, and the node types met in it so far with whether
    /// each is ``FilterTranslatable``: a predicate's nodes are a handful of types, fixed by
    /// its expression type, so a short list searched in place replaces a locked look-up
    /// per node (about 750 instructions each).
    private let expressionType: ObjectIdentifier
    private var nodeTypes: [(type: ObjectIdentifier, translatable: (any FilterTranslatable.Type)?)]
    private var metNewNodeType = false

    /// A context for a predicate on models of `type`, whose layout is `layout`, and whose
    /// expression is of type `expressionType`.
    init(fetched layout: ModelLayout, of type: any PersistentModel.Type, expressionType: Any.Type) {
        fetchedType = type
        fetchedLayout = layout
        self.expressionType = ObjectIdentifier(expressionType)
        nodeTypes = Self.nodeTypesByExpression.withLock { $0[ObjectIdentifier(expressionType)] } ?? []
    }

    /// Keeps the node types this translation met for the next predicate of its expression type.
    func rememberNodeTypes() {
        guard metNewNodeType else { return }
        Self.nodeTypesByExpression.withLock { $0[expressionType] = nodeTypes }
    }

    /// The fetched model type when `type` is it, else `nil`.
    func fetchedModelType(ifSameAs type: Any.Type) -> (any PersistentModel.Type)? {
        type == fetchedType ? fetchedType : nil
    }

    /// The layout of `type`: the fetched model type's without a look-up in the process-wide cache.
    func layout(of type: any PersistentModel.Type) -> ModelLayout {
        type == fetchedType ? fetchedLayout : ModelLayout.of(type)
    }

    /// Makes `variable` stand for `expression` in the expressions translated after this.
    mutating func bind(_ variable: PredicateExpressions.VariableID, to expression: FilterExpression) {
        bindings.append((variable, expression))
    }

    /// The expression `variable` stands for, or `nil` when nothing bound it.
    func binding(of variable: PredicateExpressions.VariableID) -> FilterExpression? {
        bindings.last { $0.variable == variable }?.expression
    }

    /// A filter variable number not used before in this translation.
    mutating func newVariable() -> Int {
        lastVariable += 1
        return lastVariable
    }

    /// Translates a sub-expression.
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` naming the first node that is not ``FilterTranslatable``.
    mutating func translate(_ expression: Any) throws -> FilterExpression {
        guard let translatable = nodeType(of: type(of: expression)) else {
            let name = PredicateTranslator.nodeName(of: expression)
            let reason = PredicateTranslator.knownUnsupportedReasons[name] ?? "Strata cannot translate this expression"
            throw SwiftDataError.unsupportedPredicate.with(details: "\(name): \(reason)")
        }
        return try translatable.translate(opening: expression, &self)
    }

    /// Node types by whether they conform to ``FilterTranslatable``, as the first cast found.
    ///
    /// A cast of a node to the protocol costs about 2,000 instructions (a conformance lookup
    /// and an existential), a lookup here about 750 (the lock and the hash); a predicate
    /// fetched in a loop paid that cast for every node of every fetch. The types are those of the app's
    /// predicates, a bounded set.
    private static let translatableTypes = Locked<[ObjectIdentifier: (any FilterTranslatable.Type)?]>([:])

    /// The node types met in the predicates of each expression type (see ``nodeTypes``);
    /// bounded, as ``translatableTypes`` is, by the app's predicates.
    private static let nodeTypesByExpression =
        Locked<[ObjectIdentifier: [(type: ObjectIdentifier, translatable: (any FilterTranslatable.Type)?)]]>([:])

    /// Whether nodes of `type` are ``FilterTranslatable``, from this predicate's node types
    /// when it met the type before.
    private mutating func nodeType(of type: Any.Type) -> (any FilterTranslatable.Type)? {
        let key = ObjectIdentifier(type)
        for known in nodeTypes where known.type == key { return known.translatable }
        let translatable = Self.translatableType(of: type)
        nodeTypes.append((key, translatable))
        metNewNodeType = true
        return translatable
    }

    /// Whether nodes of `type` are ``FilterTranslatable``, from a table of the types met before.
    static func translatableType(of type: Any.Type) -> (any FilterTranslatable.Type)? {
        let key = ObjectIdentifier(type)
        if let known = translatableTypes.withLock({ $0[key] }) { return known }
        let translatable = type as? any FilterTranslatable.Type
        translatableTypes.withLock { $0[key] = translatable }
        return translatable
    }
}

extension FilterTranslatable {
    /// Translates `expression`, which is of this type.
    static func translate(opening expression: Any, _ context: inout TranslationContext) throws -> FilterExpression {
        try (expression as! Self).translate(&context)
    }

    /// Records `expression`, which is of this type (see ``recordShape(at:_:)``).
    static func recordShape(opening expression: Any, at offset: Int, _ recorder: inout PredicateShape.Recorder) -> Bool {
        (expression as! Self).recordShape(at: offset, &recorder)
    }
}
