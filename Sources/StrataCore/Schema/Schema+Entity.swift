extension Schema {
    /// One model type in a schema: its attributes, relationships, constraints and indexes.
    public final class Entity: Codable, Hashable, CustomStringConvertible, @unchecked Sendable {
        /// The entity's name (the model class's name).
        public internal(set) var name: String
        /// The name the entity was stored under before a rename (`@Model(originalName:)`);
        /// the same as ``name`` otherwise. A lightweight migration moves the data across.
        public internal(set) var originalName: String
        /// Entities that inherit from this one.
        public internal(set) var subentities: Set<Entity>
        /// The name of the entity this one inherits from, if any.
        public internal(set) var superentityName: String?
        /// The entity this one inherits from, if any.
        public internal(set) weak var superentity: Entity?
        /// The entity's stored properties in slot order: those inherited from its superentity
        /// first, then those its class declares.
        public internal(set) var storedProperties: [any SchemaProperty] {
            didSet { index() }
        }
        /// Compound uniqueness constraints, as property names: `#Unique` ones, then one per `.unique` property.
        public internal(set) var uniquenessConstraints: [[String]]
        /// Indexes, as property names, in declaration order.
        public internal(set) var indices: [[String]]
        /// The kind of each index in ``indices``, at the same position.
        public internal(set) var indexKinds: [IndexKind]
        /// The model class the entity was built from; `nil` for a decoded schema.
        public internal(set) var modelType: (any PersistentModel.Type)?

        /// The names of ``storedProperties``, in slot order: the names snapshots of this entity carry.
        ///
        /// Entities built from model types share this array with the model's own layout, so
        /// stores and contexts compare snapshot name lists by identity, not name by name.
        public internal(set) var storedPropertyNames: [String] = []
        /// Properties by name.
        public private(set) var storedPropertiesByName: [String: any SchemaProperty] = [:]
        /// Attributes by name.
        public private(set) var attributesByName: [String: Attribute] = [:]
        /// Relationships by name.
        public private(set) var relationshipsByName: [String: Relationship] = [:]

        /// Creates an entity.
        public init(_ name: String, subentities: Set<Entity> = [], properties: [any SchemaProperty] = []) {
            self.name = name
            self.originalName = name
            self.subentities = subentities
            self.storedProperties = properties
            self.uniquenessConstraints = []
            self.indices = []
            self.indexKinds = []
            index()
            for subentity in subentities {
                subentity.superentity = self
                subentity.superentityName = name
            }
        }

        private func index() {
            let names = storedProperties.map(\.name)
            if names != storedPropertyNames { storedPropertyNames = names }
            storedPropertiesByName = Dictionary(storedProperties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            attributesByName = Dictionary(
                storedProperties.compactMap { $0 as? Attribute }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            relationshipsByName = Dictionary(
                storedProperties.compactMap { $0 as? Relationship }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        }

        /// Properties inherited from the superentity: the first ones of ``storedProperties``.
        public var inheritedProperties: [any SchemaProperty] {
            Array(storedProperties.prefix(superentity?.storedProperties.count ?? 0))
        }
        /// The properties the entity's own class declares, after the inherited ones.
        var declaredProperties: ArraySlice<any SchemaProperty> {
            storedProperties.dropFirst(superentity?.storedProperties.count ?? 0)
        }
        /// Inherited and declared properties: ``storedProperties``.
        public var properties: [any SchemaProperty] { storedProperties }
        /// Properties, inherited ones included, by name.
        public var propertiesByName: [String: any SchemaProperty] { storedPropertiesByName }
        /// The attributes, unordered.
        public var attributes: Set<Attribute> { Set(attributesByName.values) }
        /// The relationships, unordered.
        public var relationships: Set<Relationship> { Set(relationshipsByName.values) }

        /// The entity's name and properties, one per line.
        public var description: String {
            ([name] + storedProperties.map { "  \($0)" }).joined(separator: "\n")
        }

        /// A stable summary of what the entity stores, for equality and version checks.
        var fingerprint: String {
            let properties = storedProperties.map { property -> String in
                if let attribute = property as? Attribute {
                    return "a:\(attribute.name):\(attribute.persistentValueKind.rawValue):\(attribute.isOptional):\(attribute.options.map(\.description))"
                }
                let relationship = property as! Relationship
                return "r:\(relationship.name):\(relationship.destination):\(relationship.isToOneRelationship):\(relationship.deleteRule.rawValue):\(relationship.inverseName ?? "")"
            }
            let parent = superentityName.map { "<\($0)" } ?? ""
            return "\(name)\(parent)|\(properties.joined(separator: ","))|\(uniquenessConstraints)|\(indices)|\(indexKinds.map(\.rawValue))"
        }

        public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs.fingerprint == rhs.fingerprint }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }

        private enum CodingKeys: String, CodingKey {
            case name, originalName, superentityName, attributes, relationships, order, uniquenessConstraints, indices, indexKinds
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            if originalName != name { try container.encode(originalName, forKey: .originalName) }
            try container.encodeIfPresent(superentityName, forKey: .superentityName)
            try container.encode(storedProperties.compactMap { $0 as? Attribute }, forKey: .attributes)
            try container.encode(storedProperties.compactMap { $0 as? Relationship }, forKey: .relationships)
            try container.encode(storedProperties.map(\.name), forKey: .order)
            try container.encode(uniquenessConstraints, forKey: .uniquenessConstraints)
            try container.encode(indices, forKey: .indices)
            try container.encode(indexKinds, forKey: .indexKinds)
        }

        /// Decodes an entity; see ``Schema/Attribute`` and ``Schema/Relationship`` for what a decoded property holds.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            originalName = try container.decodeIfPresent(String.self, forKey: .originalName) ?? name
            superentityName = try container.decodeIfPresent(String.self, forKey: .superentityName)
            subentities = []
            let attributes = try container.decode([Attribute].self, forKey: .attributes)
            let relationships = try container.decode([Relationship].self, forKey: .relationships)
            let order = try container.decode([String].self, forKey: .order)
            var byName: [String: any SchemaProperty] = [:]
            for attribute in attributes { byName[attribute.name] = attribute }
            for relationship in relationships { byName[relationship.name] = relationship }
            storedProperties = order.compactMap { byName[$0] }
            uniquenessConstraints = try container.decode([[String]].self, forKey: .uniquenessConstraints)
            indices = try container.decode([[String]].self, forKey: .indices)
            indexKinds = try container.decode([IndexKind].self, forKey: .indexKinds)
            index()
        }
    }
}
