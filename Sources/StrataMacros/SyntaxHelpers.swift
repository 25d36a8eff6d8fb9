import SwiftSyntax

extension AttributeSyntax {
    /// The attribute's name without a module qualifier: `Attribute` for `@StrataCore.Attribute`.
    var simpleName: String {
        if let member = attributeName.as(MemberTypeSyntax.self) {
            return member.name.text
        }
        return attributeName.trimmedDescription
    }

    /// The attribute's arguments, or an empty list when it has none.
    var argumentList: LabeledExprListSyntax {
        if case .argumentList(let arguments) = arguments {
            return arguments
        }
        return LabeledExprListSyntax()
    }
}

extension AttributeListSyntax {
    /// The first attribute with the given simple name, such as `Transient`.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            if case .attribute(let attribute) = element, attribute.simpleName == name {
                return attribute
            }
        }
        return nil
    }
}

extension DeclModifierListSyntax {
    /// Whether the list contains a modifier with the given keyword.
    func contains(_ keyword: Keyword) -> Bool {
        contains { $0.name.tokenKind == .keyword(keyword) }
    }
}

extension VariableDeclSyntax {
    /// Whether the property is `static` or `class`.
    var isTypeProperty: Bool {
        modifiers.contains(.static) || modifiers.contains(.class)
    }

    var isLet: Bool {
        bindingSpecifier.tokenKind == .keyword(.let)
    }
}

extension PatternBindingSyntax {
    /// The bound name, when the pattern is a plain identifier.
    var identifierName: String? {
        pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmed.text
    }

    /// Whether the binding stores its value: it has no accessors, or only `willSet`/`didSet`.
    var isStored: Bool {
        guard let accessorBlock else { return true }
        switch accessorBlock.accessors {
        case .getter:
            return false
        case .accessors(let accessors):
            return accessors.allSatisfy {
                [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
            }
        }
    }

    /// Whether the binding has `willSet` or `didSet` observers.
    var hasObservers: Bool {
        isStored && accessorBlock != nil
    }
}

extension TypeSyntax {
    /// Whether the type is written as an optional: `T?`, `T!` or `Optional<T>`.
    var isOptional: Bool {
        if self.is(OptionalTypeSyntax.self) || self.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return true
        }
        if let identifier = self.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == "Optional" && identifier.genericArgumentClause != nil
        }
        if let member = self.as(MemberTypeSyntax.self) {
            return member.baseType.trimmedDescription == "Swift" && member.name.text == "Optional"
        }
        return false
    }

    /// The type as written before `.self`, parenthesised where `T.self` would not parse as intended.
    var metatypeBase: String {
        if let unwrapped = self.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return "\(unwrapped.wrappedType.metatypeBase)?"
        }
        if self.is(SomeOrAnyTypeSyntax.self) || self.is(FunctionTypeSyntax.self)
            || self.is(CompositionTypeSyntax.self) || self.is(AttributedTypeSyntax.self)
        {
            return "(\(trimmedDescription))"
        }
        return trimmedDescription
    }
}

extension String {
    /// The identifier without the backticks that let it be a keyword (`` `default` `` as
    /// `default`), to prefix it into the name of a generated declaration.
    var withoutBackticks: String { filter { $0 != "`" } }
}
