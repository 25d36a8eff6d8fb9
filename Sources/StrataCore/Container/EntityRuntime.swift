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
        /// The property's declared type.
        let valueType: Any.Type
        let transformerName: String?
        /// Whether a stored value of the right kind reads back as the declared type; `nil`
        /// when every value of the kind does.
        let check: StoredValueCheck?
        /// Whether a transformer's value is an instance of the declared type.
        let isDeclaredType: (Any?) -> Bool
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

    // Inheritance: how the entity's models are stored in their hierarchy's store entity
    // (see ``Schema/storageSchema``).

    /// The store entity that holds this entity's models, and the entity name of their identifiers.
    let storageEntityName: String
    /// The ``Schema/entityDiscriminator`` value of this entity's models, or `nil` when no
    /// other model class shares its store entity.
    let discriminator: String?
    /// The names of this entity and of every entity that inherits from it in the container's schema.
    let hierarchyNames: [String]
    /// The property names of the store entity; the same as ``propertyNames`` outside a hierarchy.
    let storagePropertyNames: [String]
    /// For each slot, the position of its property in ``storagePropertyNames``.
    let storageIndexBySlot: [Int]
    /// A store-entity snapshot's values before the model's own: `nil` for the properties of
    /// other classes, empty lists for their to-many relationships, and the discriminator.
    let storageTemplate: [PersistentValue]
    /// Slots by property name.
    let slotByName: [String: Int]
    /// For each slot, the kind of value a model keeps as the store returned it: an attribute
    /// stored as it is read (no value transformer, and every value of its kind readable as
    /// its type) its kind, and a relationship the kind of its fault (``PersistentValue/identifier(_:)``
    /// for a to-one, ``PersistentValue/identifiers(_:)`` for a to-many, which no attribute
    /// holds); `nil` for transformable attributes and attributes with a ``StoredValueCheck``.
    /// Materialising reads this rather than ``attributeBySlot``, whose strings would be
    /// retained and released per value, and a row whose every value fits is taken whole:
    /// with relationships left out, a model that has any went slot by slot.
    let plainKinds: [PersistentValue.Kind?]
    /// For each slot, whether the property is an optional attribute.
    let optionalAttributeSlots: [Bool]
    private let layout: ModelLayout

    /// Whether a value of `valueKind` (`nil` for a null) in `slot` is kept as the store
    /// returned it: an attribute in its own kind or an optional attribute's null, or a
    /// relationship's fault (see ``plainKinds``).
    func keepsAsIs(_ valueKind: PersistentValue.Kind?, at slot: Int) -> Bool {
        guard let kind = plainKinds[slot] else { return false }
        return valueKind == kind || (valueKind == nil && optionalAttributeSlots[slot])
    }

    /// Whether `values`, in this entity's slot order, are its slots as they are: one per
    /// slot, each kept as the store returned it (``keepsAsIs(_:at:)``). Checked in place.
    func holdsAsSlots(_ values: [PersistentValue]) -> Bool {
        guard values.count == plainKinds.count else { return false }
        return values.withUnsafeBufferPointer { buffer in
            (0..<buffer.count).allSatisfy { keepsAsIs(buffer[$0].kind, at: $0) }
        }
    }

    /// Makes a model of this entity registered in `context`, with its slots and identifier.
    ///
    /// Through the layout's metatype of the backing data class, so making each fetched model
    /// looks up neither the model type's layout nor the backing data's generic class: a
    /// metatype of `ManagedBackingData<M>` written in generic code is looked up in the
    /// runtime's metadata cache at every use (about 330 instructions a model).
    ///
    /// `storage` and `id` are taken over, as ``ModelMaking/makeModel(storage:identifier:context:layout:)`` takes them.
    func makeModel(_ storage: consuming SlotStorage, _ id: consuming PersistentIdentifier, _ context: ModelContext) -> any PersistentModel {
        layout.modelMaker.makeModel(storage: consume storage, identifier: consume id, context: context, layout: layout)
    }

    /// Whether the model's snapshots differ from the store entity's: it belongs to a hierarchy.
    var isInHierarchy: Bool { discriminator != nil }

    /// `snapshot`, a full snapshot of one of this entity's models, in its store entity's shape.
    func storageSnapshot(of snapshot: DefaultSnapshot) -> DefaultSnapshot {
        guard isInHierarchy, snapshot.propertyNames == propertyNames else { return snapshot }
        var values = storageTemplate
        for slot in snapshot.values.indices { values[storageIndexBySlot[slot]] = snapshot.values[slot] }
        return DefaultSnapshot(
            persistentIdentifier: snapshot.persistentIdentifier, propertyNames: storagePropertyNames, values: values)
    }

    init(entity: Schema.Entity, schema: Schema) {
        self.entity = entity
        self.modelType = entity.modelType!
        self.layout = ModelLayout.of(entity.modelType!)
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
                    isOptional: attribute.isOptional, valueType: attribute.valueType,
                    transformerName: attribute.options.first(where: \.isTransformable)?.transformerName,
                    check: StoredValueCheck.make(for: attribute.valueType),
                    isDeclaredType: StoredValueCheck.transformed(as: attribute.valueType))
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
        plainKinds = zip(attributeBySlot, relationshipBySlot).map { attribute, relationship in
            if let relationship { return relationship.isToOne ? .identifier : .identifiers }
            return attribute.flatMap { $0.transformerName == nil && $0.check == nil ? $0.kind : nil }
        }
        optionalAttributeSlots = attributeBySlot.map { $0?.isOptional ?? false }
        self.relationships = relationships
        self.relationshipBySlot = relationshipBySlot
        self.attributeBySlot = attributeBySlot
        let slotByName = Dictionary(uniqueKeysWithValues: propertyNames.enumerated().map { ($1, $0) })
        self.slotByName = slotByName
        let root = schema.hierarchyRoot(of: entity)
        let members = schema.hierarchy(from: root)
        storageEntityName = root.name
        discriminator = members.count > 1 ? entity.name : nil
        hierarchyNames = schema.hierarchy(from: entity).map(\.name)
        let storage = schema.storageSchema.entitiesByName[root.name]
        storagePropertyNames = storage?.storedPropertyNames ?? propertyNames
        let storageIndex = Dictionary(storagePropertyNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        storageIndexBySlot = propertyNames.map { storageIndex[$0] ?? 0 }
        storageTemplate = storagePropertyNames.map { name in
            if name == Schema.entityDiscriminator { return .string(entity.name) }
            if let relationship = storage?.relationshipsByName[name], !relationship.isToOneRelationship { return .identifiers([]) }
            return .null
        }
    }
}
