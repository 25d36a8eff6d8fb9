import Foundation

extension Schema {
    /// A stored value of an entity: a property whose type is not a model.
    public class Attribute: SchemaProperty, CustomStringConvertible, @unchecked Sendable {
        /// An option that changes how an attribute is stored.
        public struct Option: Codable, Hashable, Sendable, CustomStringConvertible {
            let name: String
            let transformerName: String?

            init(_ name: String, transformerName: String? = nil) {
                self.name = name
                self.transformerName = transformerName
            }

            /// The value must be unique among the entity's models; inserting a duplicate updates the existing model.
            public static let unique = Option("unique")
            /// Store large `Data` beside the store rather than inside it.
            public static let externalStorage = Option("externalStorage")
            /// Keep the value in history tombstones after the model is deleted.
            public static let preserveValueOnDeletion = Option("preserveValueOnDeletion")
            /// Track changes to the value but do not store it.
            public static let ephemeral = Option("ephemeral")
            /// Index the value for system search; accepted and recorded, with no effect on Linux.
            public static let spotlight = Option("spotlight")
            /// Encrypt the value when synced to the cloud; accepted and recorded, Strata does not sync.
            public static let allowsCloudEncryption = Option("allowsCloudEncryption")
            /// Store the value as opaque `Codable` data; it cannot be used in predicates or sorts.
            public static let codable = Option("codable")

            /// Store the value as data produced by a value transformer of type `transformerType`.
            public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
                Option("transformable", transformerName: String(reflecting: transformerType))
            }

            /// Store the value as data produced by the value transformer registered under `transformerName`.
            public static func transformable(by transformerName: String) -> Option {
                Option("transformable", transformerName: transformerName)
            }

            /// The option's name, with the transformer for `.transformable`.
            public var description: String {
                transformerName.map { "\(name)(by: \($0))" } ?? name
            }

            var isTransformable: Bool { name == "transformable" }
        }

        /// The attribute's name.
        public internal(set) var name: String
        /// The attribute's name in an earlier schema version.
        public internal(set) var originalName: String
        /// The storage options declared with `@Attribute`.
        public internal(set) var options: [Option]
        /// The declared Swift type, optional included.
        public internal(set) var valueType: any Any.Type
        /// The declared default value, if any.
        public internal(set) var defaultValue: Any?
        /// The string that forces a new version hash, if any.
        public internal(set) var hashModifier: String?
        /// Whether the attribute accepts `nil`.
        public internal(set) var isOptional: Bool
        /// How the attribute's values are stored.
        public internal(set) var persistentValueKind: PersistentValue.Kind

        /// Creates an attribute description.
        public init(
            name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil
        ) {
            let shape = ValueShape(of: valueType)
            self.name = name
            self.originalName = originalName ?? name
            self.options = options
            self.valueType = valueType
            self.defaultValue = defaultValue
            self.hashModifier = hashModifier
            self.isOptional = shape.isOptional
            self.persistentValueKind =
                options.contains(where: \.isTransformable) ? .data : (shape.attributeKind ?? .codable)
        }

        /// The options of an `@Attribute` declaration, completed when a ``Schema`` is built.
        public convenience init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.init(name: "", originalName: originalName, options: options, valueType: Any.self, hashModifier: hashModifier)
            if originalName == nil { self.originalName = "" }
        }

        /// Always `true`.
        public var isAttribute: Bool { true }
        /// Always `false`.
        public var isRelationship: Bool { false }
        /// Whether the attribute is `.ephemeral`: tracked but not stored.
        public var isTransient: Bool { options.contains(.ephemeral) }
        /// Whether the attribute is `.unique`.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the attribute passes through a value transformer.
        public var isTransformable: Bool { options.contains(where: \.isTransformable) }

        /// `name: Type` with options.
        public var description: String {
            let opts = options.isEmpty ? "" : " \(options)"
            return "\(name): \(String(reflecting: valueType))\(opts)"
        }

        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs.name == rhs.name && lhs.originalName == rhs.originalName && lhs.options == rhs.options
                && ObjectIdentifier(lhs.valueType) == ObjectIdentifier(rhs.valueType)
                && lhs.hashModifier == rhs.hashModifier && lhs.persistentValueKind == rhs.persistentValueKind
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(options)
            hasher.combine(persistentValueKind)
        }

        enum CodingKeys: String, CodingKey {
            case name, originalName, options, valueType, isOptional, kind, hashModifier, properties
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(originalName, forKey: .originalName)
            try container.encode(options, forKey: .options)
            try container.encode(String(reflecting: valueType), forKey: .valueType)
            try container.encode(isOptional, forKey: .isOptional)
            try container.encode(persistentValueKind, forKey: .kind)
            try container.encodeIfPresent(hashModifier, forKey: .hashModifier)
        }

        /// Decodes an attribute; its ``valueType`` is the Swift type of its stored kind.
        public required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            originalName = try container.decode(String.self, forKey: .originalName)
            options = try container.decode([Option].self, forKey: .options)
            isOptional = try container.decode(Bool.self, forKey: .isOptional)
            persistentValueKind = try container.decode(PersistentValue.Kind.self, forKey: .kind)
            hashModifier = try container.decodeIfPresent(String.self, forKey: .hashModifier)
            valueType = ValueShape.swiftType(for: persistentValueKind, optional: isOptional)
            defaultValue = nil
        }
    }

    /// An attribute whose type is a `Codable` struct, with the struct's own stored properties.
    public final class CompositeAttribute: Attribute, @unchecked Sendable {
        /// The struct's stored properties, as attributes.
        public internal(set) var properties: [Attribute]

        /// Creates a composite attribute description.
        public init(
            name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil, properties: [Attribute]
        ) {
            self.properties = properties
            super.init(
                name: name, originalName: originalName, options: options, valueType: valueType,
                defaultValue: defaultValue, hashModifier: hashModifier)
        }

        public override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(properties, forKey: .properties)
        }

        /// Decodes a composite attribute and its member attributes.
        public required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            properties = try container.decode([Attribute].self, forKey: .properties)
            try super.init(from: decoder)
        }
    }
}
