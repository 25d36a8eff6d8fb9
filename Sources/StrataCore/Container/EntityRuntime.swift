/// What the context needs to know about one entity at run time, by slot: which slots are
/// relationships, where their inverses live, and which constraints apply.
final class EntityRuntime: @unchecked Sendable {
    struct RelationshipSlot {
        let slot: Int
        let name: String
        let isToOne: Bool
        let deleteRule: Schema.Relationship.DeleteRule
        let destination: String
        let destinationType: any PersistentModel.Type
        let collectionType: (any RelationshipCollection.Type)?
        /// The inverse's slot in the destination entity, when the relationship has one.
        let inverseSlot: Int?
    }

    struct AttributeSlot {
        let slot: Int
        let name: String
        let kind: PersistentValue.Kind
        let isOptional: Bool
        let transformerName: String?
    }

    let entity: Schema.Entity
    let modelType: any PersistentModel.Type
    let propertyNames: [String]
    let attributes: [AttributeSlot]
    let relationships: [RelationshipSlot]
    /// Relationship info by slot; `nil` for attributes.
    let relationshipBySlot: [RelationshipSlot?]
    /// Attribute info by slot; `nil` for relationships.
    let attributeBySlot: [AttributeSlot?]
    /// Unique constraints as slot lists.
    let uniqueSlots: [[Int]]

    init(entity: Schema.Entity, schema: Schema) {
        self.entity = entity
        self.modelType = entity.modelType!
        let properties = entity.storedProperties
        propertyNames = entity.storedPropertyNames
        var attributes: [AttributeSlot] = []
        var relationships: [RelationshipSlot] = []
        var relationshipBySlot: [RelationshipSlot?] = Array(repeating: nil, count: properties.count)
        var attributeBySlot: [AttributeSlot?] = Array(repeating: nil, count: properties.count)
        for (slot, property) in properties.enumerated() {
            if let attribute = property as? Schema.Attribute {
                let info = AttributeSlot(
                    slot: slot, name: attribute.name, kind: attribute.persistentValueKind,
                    isOptional: attribute.isOptional,
                    transformerName: attribute.options.first(where: \.isTransformable)?.transformerName)
                attributes.append(info)
                attributeBySlot[slot] = info
            } else if let relationship = property as? Schema.Relationship {
                let destination = schema.entitiesByName[relationship.destination]
                let shape = ValueShape(of: relationship.valueType)
                let destinationType: any PersistentModel.Type
                switch shape.role {
                case .toOne(let type), .toMany(let type): destinationType = type
                case .attribute: continue
                }
                let info = RelationshipSlot(
                    slot: slot, name: relationship.name, isToOne: relationship.isToOneRelationship,
                    deleteRule: relationship.deleteRule, destination: relationship.destination,
                    destinationType: destinationType,
                    collectionType: relationship.valueType as? any RelationshipCollection.Type,
                    inverseSlot: relationship.inverseName.flatMap { name in
                        destination?.storedProperties.firstIndex { $0.name == name }
                    })
                relationships.append(info)
                relationshipBySlot[slot] = info
            }
        }
        self.attributes = attributes
        self.relationships = relationships
        self.relationshipBySlot = relationshipBySlot
        self.attributeBySlot = attributeBySlot
        let slotByName = Dictionary(uniqueKeysWithValues: propertyNames.enumerated().map { ($1, $0) })
        uniqueSlots = entity.uniquenessConstraints.map { $0.compactMap { slotByName[$0] } }
    }
}
