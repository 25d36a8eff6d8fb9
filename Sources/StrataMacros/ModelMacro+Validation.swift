import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

extension ModelMacro {
    /// Reports `@Model` attached to anything but a class, offering `class` for a struct.
    static func diagnoseNonClass(
        _ declaration: some DeclGroupSyntax,
        attribute: AttributeSyntax,
        in context: some MacroExpansionContext
    ) {
        let keyword: TokenSyntax? =
            if let decl = declaration.as(StructDeclSyntax.self) { decl.structKeyword }
            else if let decl = declaration.as(EnumDeclSyntax.self) { decl.enumKeyword }
            else if let decl = declaration.as(ActorDeclSyntax.self) { decl.actorKeyword }
            else if let decl = declaration.as(ProtocolDeclSyntax.self) { decl.protocolKeyword }
            else if let decl = declaration.as(ExtensionDeclSyntax.self) { decl.extensionKeyword }
            else { nil }
        var fixIts: [FixIt] = []
        if let keyword, keyword.tokenKind == .keyword(.struct) {
            fixIts.append(
                FixIt.replace(
                    message: StrataFixIt.replaceWithClass(keyword: keyword.text),
                    oldNode: keyword,
                    newNode: keyword.with(\.tokenKind, .keyword(.class))
                )
            )
        }
        context.diagnose(
            Diagnostic(
                node: attribute,
                message: StrataDiagnostic.modelRequiresClass(kind: keyword?.text ?? "declaration"),
                fixIts: fixIts
            )
        )
    }

    /// Reports every rule the class body breaks: see ``StrataDiagnostic``.
    static func validate(
        _ classDecl: ClassDeclSyntax,
        properties: [PersistedProperty],
        annotations: [ModelAnnotation],
        in context: some MacroExpansionContext
    ) {
        for member in classDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isTypeProperty else { continue }
            if variable.isLet {
                let name = variable.bindings.first?.identifierName ?? "property"
                let keyword = variable.bindingSpecifier
                context.diagnose(
                    Diagnostic(
                        node: keyword,
                        message: StrataDiagnostic.letProperty(name: name),
                        fixIts: [
                            FixIt.replace(
                                message: StrataFixIt.replaceLetWithVar,
                                oldNode: keyword,
                                newNode: keyword.with(\.tokenKind, .keyword(.var))
                            )
                        ]
                    )
                )
            } else if variable.bindings.count > 1, variable.attributes.attribute(named: "Transient") == nil,
                variable.bindings.allSatisfy(\.isStored)
            {
                context.diagnose(Diagnostic(node: variable, message: StrataDiagnostic.multipleBindings))
            }
        }
        for property in properties {
            validate(property, in: context)
        }
        validate(
            annotations,
            model: classDecl.name.text,
            memberBlock: classDecl.memberBlock,
            persisted: properties,
            in: context
        )
        validateInverses(of: properties, model: classDecl.name.text, in: context)
    }

    private static func validate(_ property: PersistedProperty, in context: some MacroExpansionContext) {
        if property.type == nil && property.initializer == nil {
            // With an initial value, Swift infers the type and the schema reads it from the
            // generated key path; with neither, nothing can tell it.
            context.diagnose(
                Diagnostic(node: property.binding.pattern, message: StrataDiagnostic.missingTypeAnnotation(name: property.name))
            )
        }
        if property.binding.hasObservers, let accessorBlock = property.binding.accessorBlock {
            context.diagnose(
                Diagnostic(node: accessorBlock, message: StrataDiagnostic.propertyObservers(name: property.name))
            )
        }
        if let lazy = property.declaration.modifiers.first(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            var fixed = property.declaration
            fixed.modifiers = fixed.modifiers.filter { $0.name.tokenKind != .keyword(.lazy) }
            fixed.leadingTrivia = property.declaration.leadingTrivia
            context.diagnose(
                Diagnostic(
                    node: lazy,
                    message: StrataDiagnostic.lazyProperty(name: property.name),
                    fixIts: [FixIt.replace(message: StrataFixIt.removeLazy, oldNode: property.declaration, newNode: fixed)]
                )
            )
        }
    }

    /// Checks that there is one `#Unique` and one `#Index`, and that their key paths name persisted properties.
    private static func validate(
        _ annotations: [ModelAnnotation],
        model: String,
        memberBlock: MemberBlockSyntax,
        persisted: [PersistedProperty],
        in context: some MacroExpansionContext
    ) {
        var seen: Set<String> = []
        for annotation in annotations {
            if !seen.insert(annotation.macroName).inserted {
                context.diagnose(
                    Diagnostic(
                        node: annotation.expansion,
                        message: StrataDiagnostic.duplicateAnnotation(macro: annotation.macroName)
                    )
                )
            }
            for keyPath in annotation.keyPaths where keyPath.isRooted(in: model) {
                guard let name = keyPath.firstPropertyName, !persisted.contains(where: { $0.name == name }) else {
                    continue
                }
                context.diagnose(
                    Diagnostic(
                        node: keyPath,
                        message: StrataDiagnostic.keyPathNotPersisted(
                            macro: annotation.macroName,
                            keyPath: keyPath.trimmedDescription,
                            model: model,
                            reason: reasonNotPersisted(name, model: model, in: memberBlock)
                        )
                    )
                )
            }
        }
    }

    /// Why `name` is not a persisted property of the class, for a key path diagnostic.
    private static func reasonNotPersisted(_ name: String, model: String, in memberBlock: MemberBlockSyntax) -> String {
        for member in memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                let binding = variable.bindings.first(where: { $0.identifierName == name })
            else { continue }
            if variable.isTypeProperty { return "'\(name)' is a static property" }
            if !binding.isStored { return "'\(name)' is a computed property" }
            if variable.attributes.attribute(named: "Transient") != nil { return "'\(name)' is '@Transient'" }
            if variable.isLet { return "'\(name)' is a 'let' constant" }
            return "'\(name)' is not persisted"
        }
        return "'\(model)' has no property named '\(name)'"
    }

    /// Reports a relationship that names an `inverse:` which itself names this relationship back.
    private static func validateInverses(
        of properties: [PersistedProperty],
        model: String,
        in context: some MacroExpansionContext
    ) {
        var inverses: [String: String] = [:]
        for property in properties {
            guard let relationship = property.relationship,
                let argument = relationship.argumentList.first(where: { $0.label?.text == "inverse" }),
                let keyPath = argument.expression.as(KeyPathExprSyntax.self),
                keyPath.root != nil, keyPath.isRooted(in: model), keyPath.components.count == 1,
                let target = keyPath.firstPropertyName, target != property.name
            else { continue }
            inverses[property.name] = target
            guard inverses[target] == property.name else { continue }
            context.diagnose(
                Diagnostic(
                    node: argument,
                    message: StrataDiagnostic.inverseOnBothSides(name: property.name, other: target),
                    fixIts: [
                        FixIt.replace(
                            message: StrataFixIt.removeInverse,
                            oldNode: relationship,
                            newNode: relationship.removingArgument(argument)
                        )
                    ]
                )
            )
        }
    }
}

extension AttributeSyntax {
    /// The attribute without one of its arguments, dropping the parentheses when none remain.
    func removingArgument(_ argument: LabeledExprSyntax) -> AttributeSyntax {
        var remaining = Array(argumentList.filter { $0.id != argument.id })
        guard !remaining.isEmpty else {
            return with(\.leftParen, nil).with(\.arguments, nil).with(\.rightParen, nil)
                .with(\.trailingTrivia, trailingTrivia)
        }
        remaining[remaining.count - 1].trailingComma = nil
        return with(\.arguments, .argumentList(LabeledExprListSyntax(remaining)))
    }
}
