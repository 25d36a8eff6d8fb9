/// How model inheritance is stored: one store entity per class hierarchy.
///
/// Stores never see subentities. The schema a store is opened with (``Schema/storageSchema``)
/// has one entity per hierarchy, named after its root class, that holds the root's
/// properties, then each subclass's own properties (optional there, since rows of other
/// classes have none), and the ``Schema/entityDiscriminator`` attribute naming each row's
/// class. Its uniqueness constraints and indexes are those of every class of the
/// hierarchy, so a `#Unique` on the root spans every subclass, and relationships to any
/// class of a hierarchy point to its store entity. In SQLite this is one table per
/// hierarchy with a type column; in the JSON document, one array per hierarchy.
///
/// Models of a hierarchy share one key space: their identifiers carry the root's entity
/// name, and a context picks each fetched row's class from its discriminator.
extension Schema {
    /// The attribute of a hierarchy's store entity that names each row's entity.
    public static let entityDiscriminator = "_entity"

    /// The schema stores are opened with: this one when no model inherits from another;
    /// otherwise each class hierarchy folded into one entity named after its root.
    public var storageSchema: Schema { storage ?? self }

    /// The root entity of `entity`'s class hierarchy (`entity` itself when it has no superentity).
    func hierarchyRoot(of entity: Entity) -> Entity {
        var root = entity
        while let parent = root.superentityName.flatMap({ entitiesByName[$0] }) { root = parent }
        return root
    }

    /// `entity` and every entity that inherits from it, superentities before subentities, in schema order.
    func hierarchy(from entity: Entity) -> [Entity] {
        var result = [entity]
        var index = 0
        while index < result.count {
            let parent = result[index].name
            result += entities.filter { $0.superentityName == parent }
            index += 1
        }
        return result
    }

    /// Builds the storage schema, or `nil` when it would equal this one.
    static func storage(of entities: [Entity], version: Version, in schema: Schema) -> (Schema?, [String]) {
        guard entities.contains(where: { $0.superentityName != nil && schema.entitiesByName[$0.superentityName!] != nil }) else {
            return (nil, [])
        }
        var issues: [String] = []
        var storageName: [String: String] = [:]
        for entity in entities { storageName[entity.name] = schema.hierarchyRoot(of: entity).name }
        func remapped(_ property: any SchemaProperty, optional: Bool) -> any SchemaProperty {
            if let attribute = property as? Attribute { return attribute.storageCopy(optional: optional) }
            let relationship = property as! Relationship
            let destination = storageName[relationship.destination] ?? relationship.destination
            guard destination != relationship.destination || (optional && !relationship.isOptional) else { return relationship }
            return relationship.storageCopy(destination: destination, optional: optional)
        }
        var folded: [Entity] = []
        for entity in entities where storageName[entity.name] == entity.name {
            let members = schema.hierarchy(from: entity)
            if members.count == 1, !entity.storedProperties.contains(where: { property in
                (property as? Relationship).map { storageName[$0.destination] != $0.destination && storageName[$0.destination] != nil } ?? false
            }) {
                folded.append(entity)
                continue
            }
            var properties: [any SchemaProperty] = entity.storedProperties.map { remapped($0, optional: false) }
            var owner: [String: String] = Dictionary(properties.map { ($0.name, entity.name) }, uniquingKeysWith: { a, _ in a })
            var constraints = entity.uniquenessConstraints
            var indices = Array(zip(entity.indices, entity.indexKinds))
            for member in members.dropFirst() {
                let inherited = member.superentity?.storedProperties.count ?? 0
                for property in member.storedProperties.dropFirst(inherited) {
                    if let first = owner[property.name] {
                        let existing = properties.first { $0.name == property.name }!
                        if !Self.canShareStorage(existing, property) {
                            issues.append(
                                "\(first).\(property.name) and \(member.name).\(property.name) are stored in one entity for their class hierarchy but differ in type; rename one")
                        }
                        continue
                    }
                    owner[property.name] = member.name
                    properties.append(remapped(property, optional: true))
                }
                for constraint in member.uniquenessConstraints where !constraints.contains(constraint) { constraints.append(constraint) }
                for index in zip(member.indices, member.indexKinds) where !indices.contains(where: { $0 == index }) {
                    indices.append(index)
                }
            }
            if owner[entityDiscriminator] != nil {
                issues.append("\(owner[entityDiscriminator]!).\(entityDiscriminator) uses the name Strata keeps for the class of each stored model; rename it")
            }
            if members.count > 1 {
                properties.append(Attribute(name: entityDiscriminator, valueType: String?.self))
                indices.append(([entityDiscriminator], .binary))
            }
            let storage = Entity(entity.name, properties: properties)
            storage.originalName = entity.originalName
            storage.modelType = entity.modelType
            storage.uniquenessConstraints = constraints
            storage.indices = indices.map(\.0)
            storage.indexKinds = indices.map(\.1)
            folded.append(storage)
        }
        return (Schema(entities: folded, version: version, issues: []), issues)
    }

    /// Whether two subclasses' properties of one name can share their hierarchy's storage.
    private static func canShareStorage(_ lhs: any SchemaProperty, _ rhs: any SchemaProperty) -> Bool {
        if let lhs = lhs as? Attribute, let rhs = rhs as? Attribute {
            return lhs.persistentValueKind == rhs.persistentValueKind && lhs.options == rhs.options
        }
        if let lhs = lhs as? Relationship, let rhs = rhs as? Relationship {
            return lhs.destination == rhs.destination && lhs.isToOneRelationship == rhs.isToOneRelationship
                && lhs.inverseName == rhs.inverseName
        }
        return false
    }
}

extension Schema.Attribute {
    /// A copy for a storage schema, optional when `optional` (a subclass's attribute, which
    /// rows of the other classes of its hierarchy lack).
    func storageCopy(optional: Bool) -> Schema.Attribute {
        guard optional && !isOptional else { return self }
        let copy: Schema.Attribute
        if let composite = self as? Schema.CompositeAttribute {
            copy = Schema.CompositeAttribute(
                name: name, originalName: originalName, options: options, valueType: valueType,
                defaultValue: defaultValue, hashModifier: hashModifier, properties: composite.properties)
        } else {
            copy = Schema.Attribute(
                name: name, originalName: originalName, options: options, valueType: valueType,
                defaultValue: defaultValue, hashModifier: hashModifier)
        }
        copy.persistentValueKind = persistentValueKind
        copy.isOptional = true
        return copy
    }
}

extension Schema.Relationship {
    /// A copy for a storage schema that points to `destination`'s store entity, optional when
    /// `optional` (a subclass's relationship).
    func storageCopy(destination: String, optional: Bool) -> Schema.Relationship {
        Schema.Relationship(
            name: name, originalName: originalName, keypath: keypath, options: options, valueType: valueType,
            destination: destination, deleteRule: deleteRule, inverseName: inverseName, inverseKeyPath: inverseKeyPath,
            minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount, hashModifier: hashModifier,
            isToOneRelationship: isToOneRelationship, isOptional: isOptional || optional)
    }
}
