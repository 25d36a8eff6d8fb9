import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Implements `@ModelActor`: gives an actor the executor that owns its context, the
/// container, and `init(modelContainer:)`, and conforms it to `ModelActor`, as SwiftData's
/// macro does.
public enum ModelActorMacro {}

extension ModelActorMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actor = declaration.as(ActorDeclSyntax.self) else {
            diagnoseNonActor(declaration, in: context)
            return []
        }
        let generated = generatedMembers(in: actor.memberBlock, in: context)
        // Members an actor visible outside its module uses to conform must be as visible.
        let access = actor.modifiers.contains(.public) || actor.modifiers.contains(.open)
            ? "public " : actor.modifiers.contains(.package) ? "package " : ""
        var members: [DeclSyntax] = []
        if generated.executor {
            members.append("\(raw: access)nonisolated let modelExecutor: any StrataCore.ModelExecutor")
        }
        if generated.container {
            members.append("\(raw: access)nonisolated let modelContainer: StrataCore.ModelContainer")
        }
        if generated.executor && generated.container && generated.initializer {
            members.append(
                """
                \(raw: access)init(modelContainer: StrataCore.ModelContainer) {
                    let modelContext = StrataCore.ModelContext(modelContainer)
                    self.modelExecutor = StrataCore.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
                """)
        }
        return members
    }

    /// Which members the macro may add: those the actor does not declare itself. A member
    /// the actor declares is reported, with a fix-it removing it.
    private static func generatedMembers(
        in members: MemberBlockSyntax, in context: some MacroExpansionContext
    ) -> (executor: Bool, container: Bool, initializer: Bool) {
        var result = (executor: true, container: true, initializer: true)
        for member in members.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) {
                for binding in variable.bindings {
                    guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                        name == "modelExecutor" || name == "modelContainer"
                    else { continue }
                    if name == "modelExecutor" { result.executor = false } else { result.container = false }
                    diagnoseDeclared(name, member: member, in: context)
                }
            } else if let initializer = member.decl.as(InitializerDeclSyntax.self),
                initializer.signature.parameterClause.parameters.map(\.firstName.text) == ["modelContainer"]
            {
                result.initializer = false
                diagnoseDeclared("init(modelContainer:)", member: member, in: context)
            }
        }
        return result
    }

    private static func diagnoseDeclared(_ name: String, member: MemberBlockItemSyntax, in context: some MacroExpansionContext) {
        context.diagnose(
            Diagnostic(
                node: member,
                message: StrataDiagnostic.modelActorMemberDeclared(name: name),
                fixIts: [
                    FixIt.replace(
                        message: StrataFixIt.removeDeclaration(name: name), oldNode: member,
                        newNode: MemberBlockItemSyntax(decl: MissingDeclSyntax(placeholder: .identifier("", presence: .missing))))
                ]
            ))
    }

    private static func diagnoseNonActor(_ declaration: some DeclGroupSyntax, in context: some MacroExpansionContext) {
        let keyword: TokenSyntax? =
            declaration.as(ClassDeclSyntax.self)?.classKeyword
            ?? declaration.as(StructDeclSyntax.self)?.structKeyword
            ?? declaration.as(EnumDeclSyntax.self)?.enumKeyword
        let kind = keyword?.text ?? (declaration.is(ExtensionDeclSyntax.self) ? "extension" : "declaration")
        var fixIts: [FixIt] = []
        if let keyword {
            fixIts.append(
                FixIt.replace(
                    message: StrataFixIt.replaceKeyword(keyword.text, with: "actor"), oldNode: keyword,
                    newNode: keyword.with(\.tokenKind, .keyword(.actor))))
        }
        context.diagnose(
            Diagnostic(
                node: keyword.map(Syntax.init) ?? Syntax(declaration), message: StrataDiagnostic.modelActorRequiresActor(kind: kind),
                fixIts: fixIts))
    }
}

extension ModelActorMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): StrataCore.ModelActor {}")]
    }
}
