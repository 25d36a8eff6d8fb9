import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Implements `@Model`: routes persisted properties through backing data, adds the model
/// requirements and the observation support, and conforms the class to `PersistentModel`
/// and `Observable`.
public enum ModelMacro {}

extension ModelMacro: MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
            let variable = member.as(VariableDeclSyntax.self),
            variable.attributes.attribute(named: "_PersistedProperty") == nil,
            let (_, name) = PersistedProperty.persistedBinding(of: variable),
            let property = PersistedProperty.all(in: classDecl.memberBlock).first(where: { $0.name == name }),
            property.isRoutable
        else { return [] }
        return ["@_PersistedProperty(slot: \(raw: property.slot))"]
    }
}

extension ModelMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            diagnoseNonClass(declaration, attribute: node, in: context)
            return []
        }
        let model = classDecl.name.trimmed.text
        let access = classDecl.modifiers.contains(.public) || classDecl.modifiers.contains(.open) ? "public " : ""
        let properties = PersistedProperty.all(in: classDecl.memberBlock)
        let annotations = ModelAnnotation.all(in: classDecl.memberBlock)
        validate(classDecl, properties: properties, annotations: annotations, in: context)

        var members: [DeclSyntax] = [
            """
            private var _$backingData: any StrataCore.BackingData<\(raw: model)> = \(raw: model).createBackingData()
            """,
            """
            \(raw: access)var persistentBackingData: any StrataCore.BackingData<\(raw: model)> {
                get { _$backingData }
                set { _$backingData = newValue }
            }
            """,
            schemaMetadata(of: properties, model: model, access: access),
            initializer(for: properties, model: model, access: access),
            """
            private let _$observationRegistrar = Observation.ObservationRegistrar()
            """,
            """
            internal nonisolated func access<_M>(keyPath: KeyPath<\(raw: model), _M>) {
                _$observationRegistrar.access(self, keyPath: keyPath)
            }
            """,
            """
            internal nonisolated func withMutation<_M, _MR>(keyPath: KeyPath<\(raw: model), _M>, _ mutation: () throws -> _MR) rethrows -> _MR {
                try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
            }
            """,
            """
            \(raw: access)nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                _$observationRegistrar._notifyChange(of: self, at: keyPath)
            }
            """,
        ]
        let originalName = node.arguments?.as(LabeledExprListSyntax.self)?.first { $0.label?.text == "originalName" }?.expression
        if let schemaAnnotations = schemaAnnotations(of: annotations, originalName: originalName, model: model, access: access) {
            members.append(schemaAnnotations)
        }
        return members
    }

    /// `schemaMetadata`: one `PropertyMetadata` per persisted property, in slot order.
    private static func schemaMetadata(
        of properties: [PersistedProperty],
        model: String,
        access: String
    ) -> DeclSyntax {
        let entries = properties.map { property in
            let name = property.name.filter { $0 != "`" }
            var defaultValue = "nil"
            if let initializer = property.initializer {
                defaultValue = "(\(initializer.trimmedDescription))"
                if let type = property.type {
                    defaultValue += " as \(type.trimmedDescription)"
                }
            }
            var metadata = "nil"
            if let attribute = property.attribute {
                metadata = "StrataCore.Schema.Attribute(\(attribute.argumentList.trimmedDescription))"
            } else if let relationship = property.relationship {
                metadata = "StrataCore.Schema.Relationship(\(relationship.argumentList.trimmedDescription))"
            }
            return "StrataCore.Schema.PropertyMetadata(name: \"\(name)\", keypath: \\\(model).\(property.name), "
                + "defaultValue: \(defaultValue), metadata: \(metadata))"
        }
        let array = entries.isEmpty ? "[]" : "[\n\(entries.joined(separator: ",\n"))\n]"
        return """
            \(raw: access)static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                \(raw: array)
            }
            """
    }

    /// `init(backingData:)`, which marks every slot initialized and adopts the given backing data.
    private static func initializer(for properties: [PersistedProperty], model: String, access: String) -> DeclSyntax {
        let tokens = properties.filter(\.isRoutable).map {
            "_\($0.name.filter { $0 != "`" }) = StrataCore._PersistedPropertyToken()\n"
        }
        return """
            \(raw: access)required init(backingData: any StrataCore.BackingData<\(raw: model)>) {
                \(raw: tokens.joined())self.persistentBackingData = backingData
            }
            """
    }

    /// `_schemaAnnotations`, built from the class's first `#Unique` and first `#Index`, and
    /// the `originalName:` of `@Model(originalName:)`.
    private static func schemaAnnotations(
        of annotations: [ModelAnnotation],
        originalName: ExprSyntax?,
        model: String,
        access: String
    ) -> DeclSyntax? {
        var arguments: [String] = []
        for (macro, label) in [("Unique", "uniquenessConstraints"), ("Index", "indices")] {
            guard let annotation = annotations.first(where: { $0.macroName == macro }) else { continue }
            let type = annotation.typeArgument ?? model
            arguments.append(
                "\(label): StrataCore.Schema.\(macro)<\(type)>(\(annotation.expansion.arguments.trimmedDescription))"
            )
        }
        if let originalName { arguments.append("originalName: \(originalName.trimmedDescription)") }
        guard !arguments.isEmpty else { return nil }
        return """
            \(raw: access)static var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                StrataCore.Schema.ModelAnnotations(
                    \(raw: arguments.joined(separator: ",\n"))
                )
            }
            """
    }
}

extension ModelMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        let requested = Set(protocols.map { $0.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" })
        var extensions: [ExtensionDeclSyntax] = []
        if requested.contains("PersistentModel") {
            extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): StrataCore.PersistentModel {}"))
        }
        if requested.contains("Observable") {
            extensions.append(try ExtensionDeclSyntax("extension \(type.trimmed): Observation.Observable {}"))
        }
        return extensions
    }
}
