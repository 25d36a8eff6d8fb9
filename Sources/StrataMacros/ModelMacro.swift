import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Implements `@Model`: routes persisted properties through backing data, adds the model
/// requirements and the observation support, and conforms the class to `PersistentModel`
/// and `Observable`.
public enum ModelMacro {}

/// The access modifiers of a model's generated members.
struct Access {
    /// `public ` for a public or open class, else nothing (internal).
    let plain: String
    /// For members a subclass overrides: `open ` in an open class, so that a subclass in
    /// another module can override them.
    let overridable: String

    init(_ classDecl: ClassDeclSyntax) {
        plain = classDecl.modifiers.contains(.public) || classDecl.modifiers.contains(.open) ? "public " : ""
        overridable = classDecl.modifiers.contains(.open) ? "open " : plain
    }
}

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
            let (_, name) = PersistedProperty.persistedBinding(of: variable)
        else { return [] }
        let properties = PersistedProperty.all(in: classDecl.memberBlock)
        guard let property = properties.first(where: { $0.name == name }), property.isRoutable else { return [] }
        if ModelSuperclass.name(of: classDecl) != nil {
            return ["@_PersistedProperty(slot: \(raw: property.slot), subclass: \(raw: classDecl.name.trimmed.text).self)"]
        }
        return ["@_PersistedProperty(slot: \(raw: property.slot), slotCount: \(raw: properties.count))"]
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
        let access = Access(classDecl)
        let properties = PersistedProperty.all(in: classDecl.memberBlock)
        let annotations = ModelAnnotation.all(in: classDecl.memberBlock)
        validate(classDecl, properties: properties, annotations: annotations, in: context)

        let isFinal = classDecl.modifiers.contains(.final)
        let originalName = node.arguments?.as(LabeledExprListSyntax.self)?.first { $0.label?.text == "originalName" }?.expression
        if let superclass = ModelSuperclass.name(of: classDecl) {
            let declaresInitializer = classDecl.memberBlock.members.contains { member in
                guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { return false }
                return !initializer.modifiers.contains(.convenience)
            }
            return subclassMembers(
                of: properties, annotations: annotations, originalName: originalName, model: model, superclass: superclass,
                access: access, declaresDesignatedInitializer: declaresInitializer, classDecl: classDecl)
        }
        // A class that is not final may be subclassed by another model: its type members
        // are `class` members that a subclass's `@Model` overrides, and the registrar is
        // visible to the subclass's accessors.
        let typeMember = isFinal ? "static" : "class"
        var members: [DeclSyntax] = [
            """
            private var _$backingData: (any StrataCore.BackingData<\(raw: model)>)? = StrataCore._takeInitialValueSink(for: \(raw: model).self)
            """,
            """
            private var _$madeBackingData: any StrataCore.BackingData<\(raw: model)> {
                if let backingData = _$backingData { return backingData }
                let made: any StrataCore.BackingData<\(raw: model)> = \(raw: model).createBackingData()
                _$backingData = made
                return made
            }
            """,
            """
            \(raw: access.overridable)var persistentBackingData: any StrataCore.BackingData<\(raw: model)> {
                get { _$madeBackingData }
                set { _$backingData = newValue }
            }
            """,
        ]
        members += schemaMetadata(of: properties, model: model, access: access, isFinal: isFinal, inherited: nil)
        members += [initializer(for: properties, model: model, access: access, superclass: nil)]
        // A class that may have model subclasses keeps the protocol's generic maker, which
        // makes whichever subclass the context asks for.
        if isFinal {
            members.append(
                """
                \(raw: access.plain)static func _makeModel(backingData: consuming AnyObject) -> \(raw: model) {
                    StrataCore._makeContextModel(backingData, as: \(raw: model).self) { \(raw: model)(backingData: $0) }
                }
                """)
        }
        members += [
            """
            \(raw: isFinal ? "private" : access.plain.isEmpty ? "internal" : "public") let _$observationRegistrar = Observation.ObservationRegistrar()
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
            \(raw: access.plain)nonisolated func _notifyObservers(ofChangeAt keyPath: AnyKeyPath) {
                _$observationRegistrar._notifyChange(of: self, at: keyPath)
            }
            """,
        ]
        if let schemaAnnotations = schemaAnnotations(
            of: annotations, originalName: originalName, model: model, access: access, typeMember: typeMember,
            always: !isFinal)
        {
            members.append(schemaAnnotations)
        }
        if let early = earlyInitialValues(of: classDecl, access: access, typeMember: typeMember, always: !isFinal) {
            members.append(early)
        }
        return members
    }

    /// The members of a model that inherits from another model: the superclass keeps the
    /// backing data and the registrar; the subclass adds its own slots after the inherited
    /// ones and overrides the type members.
    ///
    /// A subclass's initial values are assigned before `super.init` has given the object
    /// its backing data, so they wait in `_$pendingValues` and move into the backing data
    /// at its first read, before anything else can see it.
    private static func subclassMembers(
        of properties: [PersistedProperty], annotations: [ModelAnnotation], originalName: ExprSyntax?, model: String,
        superclass: String, access: Access, declaresDesignatedInitializer: Bool, classDecl: ClassDeclSyntax
    ) -> [DeclSyntax] {
        let root = "\(superclass).Root"
        var members: [DeclSyntax] = [
            """
            private static let _$slotBase = \(raw: superclass).schemaMetadata.count
            """,
            """
            private var _$pendingValues: (any StrataCore.BackingData<\(raw: root)>)? = StrataCore._takeInitialValueSink(for: \(raw: root).self)
            """,
            """
            \(raw: access.overridable)override var persistentBackingData: any StrataCore.BackingData<\(raw: root)> {
                get {
                    guard _$pendingValues != nil else { return super.persistentBackingData }
                    return StrataCore._adoptPendingValues(&_$pendingValues, into: super.persistentBackingData)
                }
                set {
                    _$pendingValues = nil
                    super.persistentBackingData = newValue
                }
            }
            """,
        ]
        // A subclass that declares no designated initializer inherits every one of its
        // superclass's, `init(backingData:)` included (its properties then all have initial
        // values); declaring one here would stop it inheriting the app's.
        if declaresDesignatedInitializer {
            members.append(initializer(for: properties, model: model, access: access, superclass: superclass))
        }
        members += schemaMetadata(of: properties, model: model, access: access, isFinal: false, inherited: superclass)
        if let schemaAnnotations = schemaAnnotations(
            of: annotations, originalName: originalName, model: model, access: access, typeMember: "override class",
            always: false)
        {
            members.append(schemaAnnotations)
        }
        if let early = earlyInitialValues(of: classDecl, access: access, typeMember: "override class", always: false) {
            members.append(early)
        }
        return members
    }

    /// `schemaMetadata`: one `PropertyMetadata` per persisted property, in slot order.
    ///
    /// A class that may have model subclasses describes its properties once, in
    /// `_$schemaMetadata(rootedAt:)`, with key paths rooted at any subclass: a subclass's
    /// metadata then lists inherited properties under its own key paths (`\Button.name`),
    /// the ones its predicates and sort descriptors use.
    private static func schemaMetadata(
        of properties: [PersistedProperty],
        model: String,
        access: Access,
        isFinal: Bool,
        inherited superclass: String?
    ) -> [DeclSyntax] {
        let root = isFinal ? model : "_M"
        let entries = properties.map { property in
            let name = property.name.withoutBackticks
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
            return "StrataCore.Schema.PropertyMetadata(name: \"\(name)\", keypath: \\\(root).\(property.name), "
                + "defaultValue: \(defaultValue), metadata: \(metadata))"
        }
        var array = entries.isEmpty ? "[]" : "[\n\(entries.joined(separator: ",\n"))\n]"
        if isFinal {
            return [
                """
                \(raw: access.plain)static var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                    \(raw: array)
                }
                """
            ]
        }
        if let superclass { array = "\(superclass)._$schemaMetadata(rootedAt: _M.self) + \(array)" }
        return [
            """
            \(raw: access.plain)static func _$schemaMetadata<_M: \(raw: model)>(rootedAt _: _M.Type) -> [StrataCore.Schema.PropertyMetadata] {
                \(raw: array)
            }
            """,
            """
            \(raw: access.overridable)\(raw: superclass == nil ? "" : "override ")class var schemaMetadata: [StrataCore.Schema.PropertyMetadata] {
                _$schemaMetadata(rootedAt: \(raw: model).self)
            }
            """,
        ]
    }

    /// `init(backingData:)`, which marks every slot initialized and adopts the given backing
    /// data; a subclass's hands it to its superclass's.
    private static func initializer(
        for properties: [PersistedProperty], model: String, access: Access, superclass: String?
    ) -> DeclSyntax {
        let tokens = properties.filter(\.isRoutable).map {
            "_\($0.name.withoutBackticks) = StrataCore._PersistedPropertyToken()\n"
        }
        guard let superclass else {
            return """
                \(raw: access.plain)required init(backingData: any StrataCore.BackingData<\(raw: model)>) {
                    \(raw: tokens.joined())self.persistentBackingData = backingData
                }
                """
        }
        return """
            \(raw: access.plain)required init(backingData: any StrataCore.BackingData<\(raw: superclass).Root>) {
                \(raw: tokens.joined())StrataCore._handOnInitialValueSink(_$pendingValues)
                super.init(backingData: backingData)
            }
            """
    }

    /// `_hasEarlyInitialValues`, `true` when the class has early initial values; always
    /// declared by a class that may have model subclasses, which override it when they have.
    private static func earlyInitialValues(
        of classDecl: ClassDeclSyntax, access: Access, typeMember: String, always: Bool
    ) -> DeclSyntax? {
        let early = hasEarlyInitialValues(classDecl)
        guard early || always else { return nil }
        return """
            \(raw: typeMember == "static" ? access.plain : access.overridable)\(raw: typeMember) var _hasEarlyInitialValues: Bool {
                \(raw: early)
            }
            """
    }

    /// Whether a stored property that `@Model` does not persist (a `@Transient` property)
    /// has an initial value that Swift runs before the class's backing-data property's: before
    /// the first persisted property whose init accessor an initializer runs (one with an
    /// initial value, or an optional's implicit `nil`). Such an initial value may make a model
    /// of the class while a context materializes one, before the materialized model took its
    /// class's initial-value sink.
    private static func hasEarlyInitialValues(_ classDecl: ClassDeclSyntax) -> Bool {
        for member in classDecl.memberBlock.members {
            guard let declaration = member.decl.as(VariableDeclSyntax.self), !declaration.isTypeProperty,
                !declaration.modifiers.contains(.lazy)
            else { continue }
            if let (binding, _) = PersistedProperty.persistedBinding(of: declaration) {
                if binding.initializer != nil || binding.typeAnnotation?.type.isOptional == true { return false }
                continue
            }
            if declaration.bindings.contains(where: { $0.isStored && $0.initializer != nil }) { return true }
        }
        return false
    }

    /// `_schemaAnnotations`, built from the class's first `#Unique` and first `#Index`, and
    /// the `originalName:` of `@Model(originalName:)`.
    private static func schemaAnnotations(
        of annotations: [ModelAnnotation],
        originalName: ExprSyntax?,
        model: String,
        access: Access,
        typeMember: String,
        always: Bool
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
        guard !arguments.isEmpty || always else { return nil }
        return """
            \(raw: typeMember == "static" ? access.plain : access.overridable)\(raw: typeMember) var _schemaAnnotations: StrataCore.Schema.ModelAnnotations {
                StrataCore.Schema.ModelAnnotations(\(raw: arguments.isEmpty ? "" : "\n" + arguments.joined(separator: ",\n") + "\n"))
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
