import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@Transient`: expands to nothing, since `@Model` skips the property, and
/// reports a transient stored property without a default value.
public enum TransientMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else { return [] }
        for binding in variable.bindings where binding.isStored && binding.initializer == nil {
            guard let name = binding.identifierName else { continue }
            var fixIts: [FixIt] = []
            if let annotation = binding.typeAnnotation, annotation.type.isOptional {
                var fixed = binding
                fixed.typeAnnotation = annotation.with(\.type, annotation.type.with(\.trailingTrivia, []))
                fixed.initializer = InitializerClauseSyntax(
                    equal: .equalToken(leadingTrivia: .space, trailingTrivia: .space),
                    value: NilLiteralExprSyntax(trailingTrivia: annotation.type.trailingTrivia)
                )
                fixIts.append(FixIt.replace(message: StrataFixIt.addNilDefaultValue, oldNode: binding, newNode: fixed))
            }
            context.diagnose(
                Diagnostic(
                    node: binding,
                    message: StrataDiagnostic.transientRequiresDefaultValue(name: name),
                    fixIts: fixIts
                )
            )
        }
        return []
    }
}
