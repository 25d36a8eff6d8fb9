import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Reports property attributes that exclude each other, such as `@Attribute` with `@Transient`.
enum PropertyAttributeConflict {
    /// Reports `node` once for each attribute in `others` that the same declaration carries.
    static func diagnose(
        _ node: AttributeSyntax,
        on declaration: some DeclSyntaxProtocol,
        conflictingWith others: [String],
        in context: some MacroExpansionContext
    ) {
        guard let variable = declaration.as(VariableDeclSyntax.self) else { return }
        let name = variable.bindings.first?.identifierName ?? "property"
        for other in others where variable.attributes.attribute(named: other) != nil {
            let message = StrataDiagnostic.conflictingAttributes(
                name: name,
                first: "@\(node.simpleName)",
                second: "@\(other)"
            )
            context.diagnose(Diagnostic(node: node, message: message))
        }
    }
}
