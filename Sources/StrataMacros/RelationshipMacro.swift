import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Implements `@Relationship`: expands to nothing, since `@Model` reads its arguments, and
/// reports it combined with `@Transient` (`@Attribute` reports the other combination).
public enum RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        PropertyAttributeConflict.diagnose(node, on: declaration, conflictingWith: ["Transient"], in: context)
        return []
    }
}
