import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Implements `@_PersistedProperty(slot:)` and `@_PersistedProperty(slot:slotCount:)`:
/// accessors that read and write the property's backing data slot, and the `_name` token
/// that tracks its initialization.
public enum PersistedPropertyMacro {}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            let name = binding.identifierName,
            binding.typeAnnotation != nil || binding.initializer != nil,
            let slot = node.argumentList.first(where: { $0.label?.text == "slot" })?.expression.trimmedDescription
        else { return [] }
        let storage = "_" + name.withoutBackticks
        // In a subclass of a model, slots follow the superclass's; initial values wait in
        // `_$pendingValues` (the backing data is the superclass's, not yet set up), and the
        // accessors go through `persistentBackingData`, which adopts what waits.
        // Either is made by the first initial value written to it (`_makeBackingData(ifNeededIn:)`),
        // so that a model given its backing data by `init(backingData:)` makes no detached one.
        var slotExpression = slot
        var initialStorage = "_$backingData"
        var backingData = "self._$madeBackingData"
        if let subclass = node.argumentList.first(where: { $0.label?.text == "subclass" })?.expression.trimmedDescription {
            let model = subclass.hasSuffix(".self") ? String(subclass.dropLast(5)) : subclass
            slotExpression = "\(model)._$slotBase + \(slot)"
            initialStorage = "_$pendingValues"
            backingData = "self.persistentBackingData"
        }
        // The model's number of slots, when `@Model` gave it: the detached backing data then
        // makes room for exactly that many values.
        let slotCount = node.argumentList.first(where: { $0.label?.text == "slotCount" })
            .map { ", slotCount: \($0.expression.trimmedDescription)" } ?? ""
        let initialMaking = "StrataCore._makeBackingData(ifNeededIn: &\(initialStorage)\(slotCount))\n"
        let initialWrite = "\(initialStorage)!"  // made just before; `?.` defeats definite initialization
        let transformable = isTransformable(variable)
        let get = transformable ? "_getTransformableValue" : "_getValue"
        // Without an annotation the property's type comes from its initial value; the read
        // then takes its type from the getter's, as SwiftData's generated code does.
        let type = binding.typeAnnotation.map { ", as: \($0.type.trimmed.metatypeBase).self" } ?? ""
        let set = transformable ? "_setTransformableValue" : "_setValue"
        let keyPath = keyPathHolder(in: context).map { "\($0).\(keyPathName(of: name))" } ?? "\\.\(name)"
        return [
            """
            @storageRestrictions(accesses: \(raw: initialStorage), initializes: \(raw: storage))
            init(initialValue) {
                \(raw: initialMaking)StrataCore.\(raw: set)(initialValue, at: \(raw: slotExpression), in: \(raw: initialWrite))
                \(raw: storage) = StrataCore._PersistedPropertyToken()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \(raw: keyPath))
                return StrataCore.\(raw: get)(at: \(raw: slotExpression), in: \(raw: backingData)\(raw: type))
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \(raw: keyPath)) {
                    StrataCore.\(raw: set)(newValue, at: \(raw: slotExpression), in: \(raw: backingData))
                }
            }
            """,
        ]
    }

    /// The class that holds the property's key path as a static (see the peer expansion),
    /// or `nil` when it cannot: outside a class, or in a generic context, which cannot hold
    /// a static stored property. An extension counts as one, since the type it extends may
    /// be generic and the macro cannot see it.
    static func keyPathHolder(in context: some MacroExpansionContext) -> String? {
        guard let classDecl = context.lexicalContext.first?.as(ClassDeclSyntax.self) else { return nil }
        for enclosing in context.lexicalContext {
            if let type = enclosing.asProtocol(WithGenericParametersSyntax.self), type.genericParameterClause != nil { return nil }
            if enclosing.is(ExtensionDeclSyntax.self) { return nil }
        }
        return classDecl.name.trimmed.text
    }

    /// The name of the static that holds the key path of property `name`.
    static func keyPathName(of name: String) -> String {
        "_$keyPath_" + name.withoutBackticks
    }

    /// Whether the property's `@Attribute` lists `.transformable(by:)`.
    private static func isTransformable(_ variable: VariableDeclSyntax) -> Bool {
        guard let attribute = variable.attributes.attribute(named: "Attribute") else { return false }
        return attribute.argumentList.contains { argument in
            guard argument.label == nil, let call = argument.expression.as(FunctionCallExprSyntax.self),
                let member = call.calledExpression.as(MemberAccessExprSyntax.self)
            else { return false }
            return member.declName.baseName.text == "transformable"
        }
    }
}

extension PersistedPropertyMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            variable.bindings.count == 1, let name = variable.bindings.first?.identifierName
        else { return [] }
        var peers: [DeclSyntax] = ["private var _\(raw: name.withoutBackticks): StrataCore._PersistedPropertyToken"]
        // The key path the accessors report to the registrar, made once: a key path literal
        // in the accessor asked the runtime for it at every read and write (`swift_getKeyPath`,
        // about 64 instructions, and a retain and a release of the path; a read through the
        // registrar took 209 instructions against 130).
        if let holder = keyPathHolder(in: context) {
            peers.append("private static let \(raw: keyPathName(of: name)) = \\\(raw: holder).\(raw: name)")
        }
        return peers
    }
}
