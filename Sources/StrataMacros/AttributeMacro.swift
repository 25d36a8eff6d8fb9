import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@Attribute`: expands to nothing, since `@Model` reads its arguments, and
/// reports it combined with `@Relationship` or `@Transient`.
public enum AttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        PropertyAttributeConflict.diagnose(
            node,
            on: declaration,
            conflictingWith: ["Relationship", "Transient"],
            in: context
        )
        return []
    }
}
