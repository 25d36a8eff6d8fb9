import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `#Index`: expands to nothing, since `@Model` reads its arguments, and
/// reports it written outside a class body.
public enum IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        ModelAnnotation.validatePlacement(of: node, in: context)
        return []
    }
}
