import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A `#Unique` or `#Index` written in the body of a `@Model` class.
struct ModelAnnotation {
    let expansion: MacroExpansionDeclSyntax

    var macroName: String { expansion.macroName.text }

    /// The type argument, such as `Trip` in `#Unique<Trip>(...)`.
    var typeArgument: String? {
        expansion.genericArgumentClause?.arguments.trimmedDescription
    }

    /// Every key path in the arguments, including those inside `.binary([...])` and `.rtree([...])`.
    var keyPaths: [KeyPathExprSyntax] {
        let collector = KeyPathCollector(viewMode: .sourceAccurate)
        collector.walk(expansion.arguments)
        return collector.keyPaths
    }

    /// The `#Unique` and `#Index` annotations of a class body, in declaration order.
    static func all(in memberBlock: MemberBlockSyntax) -> [ModelAnnotation] {
        memberBlock.members.compactMap { member in
            guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
                ["Unique", "Index"].contains(expansion.macroName.text)
            else { return nil }
            return ModelAnnotation(expansion: expansion)
        }
    }

    /// Reports `#Unique` or `#Index` written anywhere but directly inside a class body.
    static func validatePlacement(
        of node: some FreestandingMacroExpansionSyntax,
        in context: some MacroExpansionContext
    ) {
        guard context.lexicalContext.first?.is(ClassDeclSyntax.self) != true else { return }
        context.diagnose(
            Diagnostic(node: node, message: StrataDiagnostic.annotationOutsideClass(macro: node.macroName.text))
        )
    }
}

/// Collects the key path expressions below a node.
private final class KeyPathCollector: SyntaxVisitor {
    var keyPaths: [KeyPathExprSyntax] = []

    override func visit(_ node: KeyPathExprSyntax) -> SyntaxVisitorContinueKind {
        keyPaths.append(node)
        return .skipChildren
    }
}

extension KeyPathExprSyntax {
    /// The property named by the first component: `name` for `\.name` or `\Trip.name.count`.
    var firstPropertyName: String? {
        guard let first = components.first, case .property(let property) = first.component else {
            return nil
        }
        return property.declName.baseName.text
    }

    /// Whether the key path starts at the given class: `\.x`, `\Self.x`, `\Trip.x` or `\Module.Trip.x`.
    func isRooted(in className: String) -> Bool {
        guard let root else { return true }
        if let identifier = root.as(IdentifierTypeSyntax.self) {
            return identifier.name.text == className || identifier.name.text == "Self"
        }
        if let member = root.as(MemberTypeSyntax.self) {
            return member.name.text == className
        }
        return false
    }
}
