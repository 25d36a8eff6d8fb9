import Foundation
import StrataCore

/// How one entity's records look in the document: its properties in the model's order, and
/// how each is written.
struct JSONEntityLayout: Sendable {
    /// What a property holds, as far as the file format cares.
    enum Role: Sendable {
        /// An attribute of `kind`; `unsigned` integers are written as their unsigned value;
        /// `fallback` fills a record that lacks the attribute (`nil`: the record is wrong).
        case attribute(kind: PersistentValue.Kind, unsigned: Bool, fallback: PersistentValue?)
        /// A to-one relationship to models of `destination`.
        case toOne(destination: String)
        /// A to-many relationship to models of `destination`.
        case toMany(destination: String)
    }

    /// The entity's name: the key of its array under `entities`.
    let name: String
    /// The property names, in the order of the entity's stored properties (snapshot order).
    let propertyNames: [String]
    /// What each property holds, by position.
    let roles: [Role]
    /// The position of each property by name.
    let positions: [String: Int]

    init(entity: Schema.Entity) {
        name = entity.name
        var names: [String] = []
        var roles: [Role] = []
        for property in entity.storedProperties {
            if let relationship = property as? Schema.Relationship {
                names.append(relationship.name)
                roles.append(relationship.isToOneRelationship
                    ? .toOne(destination: relationship.destination) : .toMany(destination: relationship.destination))
            } else if let attribute = property as? Schema.Attribute {
                names.append(attribute.name)
                let unsigned = [UInt64.self, UInt.self, UInt64?.self, UInt?.self].contains { $0 == attribute.valueType }
                var fallback: PersistentValue?
                if attribute.isOptional {
                    fallback = .null
                } else if let value = attribute.defaultValue as? any PersistentAttributeValue {
                    fallback = value.persistentValue
                }
                roles.append(.attribute(kind: attribute.persistentValueKind, unsigned: unsigned, fallback: fallback))
            }
        }
        propertyNames = names
        self.roles = roles
        positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
