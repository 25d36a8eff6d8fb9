extension Schema {
    /// A link from one entity to another: to-one (`Trip?`) or to-many (`[Trip]`).
    public final class Relationship: SchemaProperty, CustomStringConvertible, @unchecked Sendable {
        /// What happens to related models when a model is deleted.
        public enum DeleteRule: String, Codable, Hashable, Sendable {
            /// Leave related models as they are.
            case noAction
            /// Clear the related models' references to the deleted model.
            case nullify
            /// Delete the related models too.
            case cascade
            /// Refuse to delete the model while it has related models.
            case deny
        }

        /// An option of a relationship.
        public struct Option: Codable, Hashable, Sendable {
            let name: String
            /// Each destination may be related to one model only (to-one relationships).
            public static let unique = Option(name: "unique")
        }

        /// The relationship's name.
        public internal(set) var name: String
        /// The relationship's name in an earlier schema version.
        public internal(set) var originalName: String
        /// The key path of the relationship on its model, when built from code.
        public internal(set) var keypath: AnyKeyPath?
        /// The declared options.
        public internal(set) var options: [Option]
        /// The declared Swift type (`LivingAccommodation?`, `[BucketListItem]`).
        public internal(set) var valueType: any Any.Type
        /// The name of the destination entity.
        public internal(set) var destination: String
        /// What deleting a model does to its related models.
        public internal(set) var deleteRule: DeleteRule
        /// The name of the inverse relationship on the destination, declared or inferred.
        public internal(set) var inverseName: String?
        /// The key path of the inverse relationship, declared or inferred.
        public internal(set) var inverseKeyPath: AnyKeyPath?
        /// The fewest related models allowed; `0` or `nil` means no bound.
        public internal(set) var minimumModelCount: Int?
        /// The most related models allowed; `0` or `nil` means no bound.
        public internal(set) var maximumModelCount: Int?
        /// The string that forces a new version hash, if any.
        public internal(set) var hashModifier: String?
        /// Whether the relationship holds at most one model.
        public internal(set) var isToOneRelationship: Bool
        /// Whether the relationship's property accepts `nil`.
        public internal(set) var isOptional: Bool

        /// Creates a relationship description.
        public init(
            name: String, originalName: String? = nil, keypath: AnyKeyPath? = nil, options: [Option] = [],
            valueType: any Any.Type, destination: String, deleteRule: DeleteRule = .nullify,
            inverseName: String? = nil, inverseKeyPath: AnyKeyPath? = nil,
            minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, hashModifier: String? = nil,
            isToOneRelationship: Bool, isOptional: Bool
        ) {
            self.name = name
            self.originalName = originalName ?? name
            self.keypath = keypath
            self.options = options
            self.valueType = valueType
            self.destination = destination
            self.deleteRule = deleteRule
            self.inverseName = inverseName
            self.inverseKeyPath = inverseKeyPath
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.hashModifier = hashModifier
            self.isToOneRelationship = isToOneRelationship
            self.isOptional = isOptional
        }

        /// The options of a `@Relationship` declaration, completed when a ``Schema`` is built.
        public convenience init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.init(
                name: "", originalName: originalName ?? "", options: options, valueType: Any.self, destination: "",
                deleteRule: deleteRule, inverseKeyPath: inverse, minimumModelCount: minimumModelCount,
                maximumModelCount: maximumModelCount, hashModifier: hashModifier, isToOneRelationship: false,
                isOptional: false)
        }

        /// Always `false`.
        public var isAttribute: Bool { false }
        /// Always `true`.
        public var isRelationship: Bool { true }
        /// Always `false`: relationships are stored.
        public var isTransient: Bool { false }
        /// Whether the relationship is `.unique`.
        public var isUnique: Bool { options.contains(.unique) }

        /// `name -> Destination` with the delete rule and inverse.
        public var description: String {
            let arrow = isToOneRelationship ? "->" : "->>"
            return "\(name) \(arrow) \(destination) (\(deleteRule), inverse: \(inverseName ?? "none"))"
        }

        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs.name == rhs.name && lhs.originalName == rhs.originalName && lhs.options == rhs.options
                && lhs.destination == rhs.destination && lhs.deleteRule == rhs.deleteRule
                && lhs.inverseName == rhs.inverseName && lhs.minimumModelCount == rhs.minimumModelCount
                && lhs.maximumModelCount == rhs.maximumModelCount && lhs.hashModifier == rhs.hashModifier
                && lhs.isToOneRelationship == rhs.isToOneRelationship && lhs.isOptional == rhs.isOptional
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(destination)
            hasher.combine(isToOneRelationship)
        }

        enum CodingKeys: String, CodingKey {
            case name, originalName, options, destination, deleteRule, inverseName
            case minimumModelCount, maximumModelCount, hashModifier, isToOne, isOptional
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(originalName, forKey: .originalName)
            try container.encode(options, forKey: .options)
            try container.encode(destination, forKey: .destination)
            try container.encode(deleteRule, forKey: .deleteRule)
            try container.encodeIfPresent(inverseName, forKey: .inverseName)
            try container.encodeIfPresent(minimumModelCount, forKey: .minimumModelCount)
            try container.encodeIfPresent(maximumModelCount, forKey: .maximumModelCount)
            try container.encodeIfPresent(hashModifier, forKey: .hashModifier)
            try container.encode(isToOneRelationship, forKey: .isToOne)
            try container.encode(isOptional, forKey: .isOptional)
        }

        /// Decodes a relationship; a decoded one has no key paths and its ``valueType`` is
        /// ``PersistentIdentifier`` (to-one) or an array of them (to-many).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            originalName = try container.decode(String.self, forKey: .originalName)
            options = try container.decode([Option].self, forKey: .options)
            destination = try container.decode(String.self, forKey: .destination)
            deleteRule = try container.decode(DeleteRule.self, forKey: .deleteRule)
            inverseName = try container.decodeIfPresent(String.self, forKey: .inverseName)
            minimumModelCount = try container.decodeIfPresent(Int.self, forKey: .minimumModelCount)
            maximumModelCount = try container.decodeIfPresent(Int.self, forKey: .maximumModelCount)
            hashModifier = try container.decodeIfPresent(String.self, forKey: .hashModifier)
            isToOneRelationship = try container.decode(Bool.self, forKey: .isToOne)
            isOptional = try container.decode(Bool.self, forKey: .isOptional)
            valueType = isToOneRelationship ? PersistentIdentifier?.self : [PersistentIdentifier].self
            keypath = nil
            inverseKeyPath = nil
        }
    }
}
