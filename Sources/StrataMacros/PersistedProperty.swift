import SwiftSyntax

/// A stored instance property of a `@Model` class that is persisted in a backing data slot.
struct PersistedProperty {
    let declaration: VariableDeclSyntax
    let binding: PatternBindingSyntax
    let name: String
    /// The property's position among the class's persisted properties.
    let slot: Int

    var type: TypeSyntax? { binding.typeAnnotation?.type.trimmed }
    var initializer: ExprSyntax? { binding.initializer?.value.trimmed }
    var attribute: AttributeSyntax? { declaration.attributes.attribute(named: "Attribute") }
    var relationship: AttributeSyntax? { declaration.attributes.attribute(named: "Relationship") }
    var isLazy: Bool { declaration.modifiers.contains(.lazy) }

    /// Whether `@_PersistedProperty` can route the property through its slot; the others are errors.
    var isRoutable: Bool {
        (type != nil || initializer != nil) && !binding.hasObservers && !isLazy
    }

    /// The persisted properties of a class body, in declaration order.
    static func all(in memberBlock: MemberBlockSyntax) -> [PersistedProperty] {
        var properties: [PersistedProperty] = []
        for member in memberBlock.members {
            guard let declaration = member.decl.as(VariableDeclSyntax.self),
                let (binding, name) = persistedBinding(of: declaration)
            else { continue }
            properties.append(
                PersistedProperty(declaration: declaration, binding: binding, name: name, slot: properties.count)
            )
        }
        return properties
    }

    /// The single binding of a persisted property declaration, or `nil` when it is not persisted.
    ///
    /// Skips `let`s, `static`/`class` properties, computed and `@Transient` properties,
    /// multi-binding declarations, names starting with `_$` and the generated slot tokens.
    static func persistedBinding(of declaration: VariableDeclSyntax) -> (PatternBindingSyntax, String)? {
        guard !declaration.isLet, !declaration.isTypeProperty,
            declaration.attributes.attribute(named: "Transient") == nil,
            declaration.bindings.count == 1, let binding = declaration.bindings.first,
            let name = binding.identifierName, !name.hasPrefix("_$"), binding.isStored
        else { return nil }
        if let type = binding.typeAnnotation?.type.trimmedDescription,
            ["_PersistedPropertyToken", "StrataCore._PersistedPropertyToken"].contains(type)
        {
            return nil
        }
        return (binding, name)
    }
}
