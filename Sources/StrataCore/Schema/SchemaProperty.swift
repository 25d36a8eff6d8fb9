/// A property of an entity in a schema: an attribute or a relationship.
public protocol SchemaProperty: Codable, Hashable, Sendable {
    /// The property's name.
    var name: String { get }
    /// The property's name in an earlier version of the schema; equal to ``name`` unless renamed.
    var originalName: String { get }
    /// The property's declared Swift type (`String?`, `[BucketListItem]`, ...).
    var valueType: any Any.Type { get }
    /// Whether the property is an attribute.
    var isAttribute: Bool { get }
    /// Whether the property is a relationship.
    var isRelationship: Bool { get }
    /// Whether the property is tracked but not stored (`.ephemeral`).
    var isTransient: Bool { get }
    /// Whether the property accepts `nil`.
    var isOptional: Bool { get }
    /// Whether the property's value must be unique among the entity's models.
    var isUnique: Bool { get }
}
