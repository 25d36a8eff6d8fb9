/// Builds the entities of a ``Schema`` from model types: discovers related models,
/// classifies properties, pairs inverses and resolves constraint key paths to names.
struct SchemaBuilder {
    private(set) var types: [any PersistentModel.Type] = []
    private var issues: [String] = []

    init(types roots: [any PersistentModel.Type]) {
        var seen: Set<ObjectIdentifier> = []
        var queue = roots
        while !queue.isEmpty {
            let type = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            types.append(type)
            if let superclass = Self.modelSuperclass(of: type) { queue.append(superclass) }
            for property in type.schemaMetadata {
                switch ValueShape(of: Self.valueType(of: property.keypath)).role {
                case .toOne(let destination), .toMany(let destination): queue.append(destination)
                case .attribute: break
                }
            }
        }
    }

    /// The model class `type` inherits from, if it inherits from one.
    static func modelSuperclass(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
        guard let superclass = _getSuperclass(type as AnyClass) else { return nil }
        return superclass as? any PersistentModel.Type
    }

    static func valueType(of keyPath: AnyKeyPath) -> any Any.Type {
        type(of: keyPath).valueType
    }

    mutating func build() -> (entities: [Schema.Entity], issues: [String]) {
        var entities: [Schema.Entity] = []
        var names: [String: ObjectIdentifier] = [:]
        var byType: [ObjectIdentifier: Schema.Entity] = [:]
        for type in types.sorted(by: { Self.depth(of: $0) < Self.depth(of: $1) }) {
            let superentity = Self.modelSuperclass(of: type).flatMap { byType[ObjectIdentifier($0)] }
            let entity = makeEntity(type, superentity: superentity)
            byType[ObjectIdentifier(type)] = entity
            if let other = names[entity.name], other != ObjectIdentifier(type) {
                issues.append("two model types are named \(entity.name); entity names must be unique in a schema")
                continue
            }
            names[entity.name] = ObjectIdentifier(type)
            entities.append(entity)
        }
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        pairInverses(byName: byName, order: entities)
        let order = Dictionary(types.enumerated().map { (ObjectIdentifier($1), $0) }, uniquingKeysWith: { a, _ in a })
        entities.sort { order[ObjectIdentifier($0.modelType!)]! < order[ObjectIdentifier($1.modelType!)]! }
        return (entities, issues)
    }

    /// How many model classes `type` inherits from.
    private static func depth(of type: any PersistentModel.Type) -> Int {
        var depth = 0
        var current = type
        while let parent = modelSuperclass(of: current) {
            depth += 1
            current = parent
        }
        return depth
    }

    /// The relationship options an `@Attribute` on a relationship stands for: `.unique` is
    /// kept; options about stored values (`.spotlight`, `.externalStorage`, `.ephemeral`,
    /// `.preserveValueOnDeletion`, ...) have no meaning for a relationship and are ignored,
    /// with a debug log line naming them.
    private static func relationshipOptions(from attribute: Schema.Attribute, on property: String) -> [Schema.Relationship.Option] {
        var kept: [Schema.Relationship.Option] = []
        var ignored: [String] = []
        for option in attribute.options {
            if option == .unique { kept.append(.unique) } else { ignored.append(option.description) }
        }
        if !ignored.isEmpty {
            StrataLog.logger.debug("\(property) is a relationship; its @Attribute options \(ignored.joined(separator: ", ")) do not apply and are ignored")
        }
        return kept
    }

    /// The entity of `type`; a subclass's shares its superentity's property descriptions for
    /// the inherited slots and describes only the properties its class declares.
    private mutating func makeEntity(_ type: any PersistentModel.Type, superentity: Schema.Entity?) -> Schema.Entity {
        let name = Schema.entityName(for: type)
        var properties: [any SchemaProperty] = superentity?.storedProperties ?? []
        for property in type.schemaMetadata.dropFirst(properties.count) {
            let valueType = Self.valueType(of: property.keypath)
            let shape = ValueShape(of: valueType)
            switch shape.role {
            case .attribute(let kind):
                let declared = property.metadata as? Schema.Attribute
                if property.metadata is Schema.Relationship {
                    issues.append("\(name).\(property.name) is not a relationship but is marked @Relationship")
                }
                let options = declared?.options ?? []
                if kind == nil && !options.contains(where: \.isTransformable) {
                    issues.append("\(name).\(property.name) has type \(valueType), which is not Codable and cannot be stored")
                }
                let originalName = declared.flatMap { $0.originalName.isEmpty ? nil : $0.originalName }
                let attribute: Schema.Attribute
                // `.codable` keeps a struct opaque: stored as its JSON, with no members to query.
                if shape.isCompositeStruct && !options.contains(where: \.isTransformable) && !options.contains(.codable) {
                    attribute = Schema.CompositeAttribute(
                        name: property.name, originalName: originalName, options: options, valueType: valueType,
                        defaultValue: property.defaultValue, hashModifier: declared?.hashModifier,
                        properties: CompositeMembers.attributes(of: shape.unwrapped, sample: property.defaultValue))
                } else {
                    attribute = Schema.Attribute(
                        name: property.name, originalName: originalName, options: options, valueType: valueType,
                        defaultValue: property.defaultValue, hashModifier: declared?.hashModifier)
                }
                properties.append(attribute)
            case .toOne(let destination), .toMany(let destination):
                let declared = property.metadata as? Schema.Relationship
                let isToOne: Bool
                if case .toOne = shape.role { isToOne = true } else { isToOne = false }
                var options = declared?.options ?? []
                var originalName = declared.flatMap { $0.originalName.isEmpty ? nil : $0.originalName }
                var hashModifier = declared?.hashModifier
                if let attribute = property.metadata as? Schema.Attribute {
                    // SwiftData accepts `@Attribute` on a relationship: keep what has a meaning here.
                    options += Self.relationshipOptions(from: attribute, on: "\(name).\(property.name)")
                    if !attribute.originalName.isEmpty { originalName = attribute.originalName }
                    hashModifier = attribute.hashModifier ?? hashModifier
                }
                let relationship = Schema.Relationship(
                    name: property.name, originalName: originalName, keypath: property.keypath,
                    options: options, valueType: valueType,
                    destination: Schema.entityName(for: destination), deleteRule: declared?.deleteRule ?? .nullify,
                    inverseKeyPath: declared?.inverseKeyPath,
                    minimumModelCount: declared?.minimumModelCount ?? 0,
                    maximumModelCount: declared?.maximumModelCount ?? 0,
                    hashModifier: hashModifier, isToOneRelationship: isToOne, isOptional: shape.isOptional)
                if relationship.isUnique && !isToOne {
                    issues.append("\(name).\(property.name) is to-many; .unique applies to to-one relationships only")
                }
                properties.append(relationship)
            }
        }
        let entity = Schema.Entity(name, properties: properties)
        entity.modelType = type
        if let superentity {
            entity.superentityName = superentity.name
            entity.superentity = superentity
            superentity.subentities.insert(entity)
        }
        let layoutNames = ModelLayout.of(type).propertyNames
        if layoutNames == entity.storedPropertyNames { entity.storedPropertyNames = layoutNames }
        applyAnnotations(of: type, to: entity)
        return entity
    }

    private mutating func applyAnnotations(of type: any PersistentModel.Type, to entity: Schema.Entity) {
        // A subclass that declares no `#Unique` answers its superclass's, whose key paths
        // are rooted at the superclass: those resolve through the superclass's metadata.
        var metadata = type.schemaMetadata
        var ancestor = Self.modelSuperclass(of: type)
        while let current = ancestor {
            metadata += current.schemaMetadata
            ancestor = Self.modelSuperclass(of: current)
        }
        let namesByKeyPath = Dictionary(metadata.map { ($0.keypath, $0.name) }, uniquingKeysWith: { first, _ in first })
        let annotations = type._schemaAnnotations
        if let originalName = annotations.originalName, !originalName.isEmpty,
            originalName != entity.superentity?.originalName
        {
            entity.originalName = originalName
        }
        func names(_ keyPaths: [AnyKeyPath], in declaration: String) -> [String]? {
            var result: [String] = []
            for keyPath in keyPaths {
                guard let name = namesByKeyPath[keyPath] else {
                    issues.append("\(declaration) on \(entity.name) names a key path that is not a stored property (\(keyPath))")
                    return nil
                }
                result.append(name)
            }
            return result
        }
        var constraints: [[String]] = entity.superentity?.uniquenessConstraints ?? []
        if let superentity = entity.superentity {
            entity.indices = superentity.indices
            entity.indexKinds = superentity.indexKinds
        }
        // A subclass that declares no `#Unique` or `#Index` answers its superclass's; those are already inherited.
        for constraint in annotations.uniquenessConstraints {
            if let names = names(constraint, in: "#Unique"), !constraints.contains(names) { constraints.append(names) }
        }
        for property in entity.storedProperties where property.isUnique && !constraints.contains([property.name]) {
            constraints.append([property.name])
        }
        for constraint in constraints {
            for name in constraint {
                if let relationship = entity.relationshipsByName[name], !relationship.isToOneRelationship {
                    issues.append("#Unique on \(entity.name) names the to-many relationship \(name); only to-one relationships can be unique")
                }
            }
        }
        entity.uniquenessConstraints = constraints
        for index in annotations.indices {
            if let names = names(index.keyPaths, in: "#Index"), !entity.indices.contains(names) {
                entity.indices.append(names)
                entity.indexKinds.append(index.kind)
            }
        }
    }

    /// Completes every relationship's inverse: a declared inverse names its partner on the
    /// other side; an undeclared one is inferred when exactly one relationship on the
    /// destination points back and none of them is already paired.
    private mutating func pairInverses(byName: [String: Schema.Entity], order: [Schema.Entity]) {
        let declarations = order.flatMap { entity in
            entity.declaredProperties.compactMap { $0 as? Schema.Relationship }
                .compactMap { relationship in relationship.inverseKeyPath.map { (entity, relationship, $0) } }
        }
        var declared: [ObjectIdentifier: AnyKeyPath] = [:]
        for (_, relationship, keyPath) in declarations { declared[ObjectIdentifier(relationship)] = keyPath }
        var reported: Set<ObjectIdentifier> = []
        for (entity, relationship, inverseKeyPath) in declarations {
            guard let destination = byName[relationship.destination],
                let partner = destination.storedProperties.compactMap({ $0 as? Schema.Relationship })
                    .first(where: { $0.keypath == inverseKeyPath })
            else {
                issues.append("the inverse of \(entity.name).\(relationship.name) is not a relationship of \(relationship.destination)")
                continue
            }
            guard partner.destination == entity.name else {
                issues.append("the inverse of \(entity.name).\(relationship.name), \(destination.name).\(partner.name), points to \(partner.destination), not \(entity.name)")
                continue
            }
            if let partnerDeclared = declared[ObjectIdentifier(partner)], partner !== relationship {
                guard reported.insert(ObjectIdentifier(relationship)).inserted else { continue }
                reported.insert(ObjectIdentifier(partner))
                if partnerDeclared == relationship.keypath {
                    issues.append("the inverse of \(entity.name).\(relationship.name) and \(destination.name).\(partner.name) is declared on both sides; declare it on one side only")
                } else {
                    issues.append("\(destination.name).\(partner.name) declares another inverse than \(entity.name).\(relationship.name)")
                }
                continue
            }
            if let existing = partner.inverseName, existing != relationship.name {
                issues.append("\(destination.name).\(partner.name) is the inverse of both \(entity.name).\(relationship.name) and \(entity.name).\(existing)")
                continue
            }
            link(relationship, with: partner)
        }
        for entity in order {
            for relationship in entity.declaredProperties.compactMap({ $0 as? Schema.Relationship })
            where relationship.inverseName == nil {
                guard let destination = byName[relationship.destination] else { continue }
                let candidates = destination.storedProperties.compactMap { $0 as? Schema.Relationship }
                    .filter { $0.destination == entity.name && $0 !== relationship && $0.inverseName == nil }
                let backwards = entity.storedProperties.compactMap { $0 as? Schema.Relationship }
                    .filter { $0.destination == destination.name && $0.inverseName == nil }
                guard candidates.count == 1, backwards.count == 1 else { continue }
                link(relationship, with: candidates[0])
            }
        }
    }

    private func link(_ relationship: Schema.Relationship, with partner: Schema.Relationship) {
        relationship.inverseName = partner.name
        relationship.inverseKeyPath = partner.keypath
        partner.inverseName = relationship.name
        partner.inverseKeyPath = relationship.keypath
    }
}
