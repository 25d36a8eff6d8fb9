import Synchronization

/// Per-model-type facts derived once from `schemaMetadata`: the entity name and which
/// slot each key path and property name maps to.
final class ModelLayout: @unchecked Sendable {  // immutable after init; AnyKeyPath is not marked Sendable
    let entityName: String
    /// The entity name the model's identifiers carry: its hierarchy's root entity, whose
    /// store entity holds every class of the hierarchy (the model's own name otherwise).
    let identifierEntityName: String
    let propertyNames: [String]
    let slotsByKeyPath: [AnyKeyPath: Int]
    /// The key path of each slot.
    let keyPaths: [AnyKeyPath]
    /// The value transformer name of each `.transformable(by:)` attribute, by slot.
    let transformerNames: [Int: String]
    /// The collection type of each to-many relationship, by slot (`nil` for other slots); read
    /// with ``collectionType(at:)``. An array: a to-many fault looked its type up in a
    /// dictionary keyed by slot, about 130 instructions a load.
    private let collectionTypes: [(any RelationshipCollection.Type)?]

    /// The collection type of the to-many relationship at `slot`, `nil` for any other slot.
    func collectionType(at slot: Int) -> (any RelationshipCollection.Type)? {
        collectionTypes.indices.contains(slot) ? collectionTypes[slot] : nil
    }
    /// The slots of relationships, to-one and to-many, in order.
    let relationshipSlots: [Int]
    /// For each `.ephemeral` attribute with a default value or an optional type, by slot: the
    /// value saves write in its place (its default, or `nil`), so the value itself is never stored.
    let ephemeralValues: [Int: PersistentValue]
    /// The scope of the model's temporary identifiers: no store, its identifier entity. Held
    /// unretained, as identifiers hold scopes (they live as long as the process): read
    /// retained, each insert retained and released it to make its identifier.
    let temporaryScope: Unmanaged<PersistentIdentifier.Scope>
    /// The backing data class of the model's registered instances, which makes them; called
    /// through this metatype, it needs no generic metadata lookup per model.
    let modelMaker: any ModelMaking.Type
    /// Where the initial values of the model's hierarchy go while a context materializes one:
    /// an ``InitialValueSink`` of its root class, the type of the generated backing-data
    /// properties; `nil` when no persisted property has an initial value (an optional's
    /// implicit `nil` counts), so `init(backingData:)` writes none, and for a class whose
    /// hierarchy has early initial values (``PersistentModel/_hasEarlyInitialValues``).
    let initialValueSink: AnyObject?

    /// The class this layout is of.
    let modelTypeIdentifier: ObjectIdentifier

    private init(modelType: any PersistentModel.Type) {
        modelTypeIdentifier = ObjectIdentifier(modelType)
        entityName = Schema.entityName(for: modelType)
        identifierEntityName = Self.rootName(of: modelType)
        temporaryScope = Unmanaged.passUnretained(PersistentIdentifier.Scope.named(storeIdentifier: nil, entityName: identifierEntityName))
        modelMaker = Self.modelMaker(for: modelType)
        let metadata = modelType.schemaMetadata
        let valueTypes = metadata.map { SchemaBuilder.valueType(of: $0.keypath) }
        let shapes = valueTypes.map { ValueShape(of: $0) }
        let hasInitialValues = metadata.indices.contains { slot in metadata[slot].defaultValue != nil || shapes[slot].isOptional }
        initialValueSink =
            hasInitialValues && !modelType._hasEarlyInitialValues ? Self.initialValueSink(for: modelType) : nil
        propertyNames = metadata.map(\.name)
        keyPaths = metadata.map(\.keypath)
        var slots: [AnyKeyPath: Int] = [:]
        for (slot, property) in metadata.enumerated() { slots[property.keypath] = slot }
        slotsByKeyPath = slots
        var transformers: [Int: String] = [:]
        for (slot, property) in metadata.enumerated() {
            if let attribute = property.metadata as? Schema.Attribute,
                let name = attribute.options.first(where: \.isTransformable)?.transformerName
            {
                transformers[slot] = name
            }
        }
        transformerNames = transformers
        collectionTypes = valueTypes.map { $0 as? any RelationshipCollection.Type }
        let relationships = metadata.indices.filter { slot in
            switch shapes[slot].role {
            case .toOne, .toMany: true
            case .attribute: false
            }
        }
        relationshipSlots = relationships
        var ephemeral: [Int: PersistentValue] = [:]
        for (slot, property) in metadata.enumerated() {
            guard let attribute = property.metadata as? Schema.Attribute, attribute.options.contains(.ephemeral) else { continue }
            if let value = property.defaultValue as? any PersistentAttributeValue {
                ephemeral[slot] = value.persistentValue
            } else if let value = property.defaultValue as? any RawRepresentable, let raw = value.rawValue as? any PersistentAttributeValue {
                ephemeral[slot] = raw.persistentValue
            } else if SchemaBuilder.valueType(of: property.keypath) is any _OptionalType.Type {
                ephemeral[slot] = .null
            }
        }
        ephemeralValues = ephemeral
        loadedWithEveryFetch = metadata.indices.filter { slot in
            guard !relationships.contains(slot) else { return false }
            if transformers[slot] != nil { return true }
            return !StoredValueCheck.hasStandIn(SchemaBuilder.valueType(of: metadata[slot].keypath))
        }
    }

    /// Attributes a fetch loads even when `propertiesToFetch` leaves them out: transformed
    /// values, and values whose stored form may not read back and whose type has no stand-in
    /// (``StoredValueCheck/standIn(for:)``). Loading them later could only trap on damage;
    /// loaded with the rest, damage fails the fetch with a typed error.
    let loadedWithEveryFetch: [Int]

    /// The property names a fetch with `propertiesToFetch` loads: those, and ``loadedWithEveryFetch``.
    func propertyNames(toFetch keyPaths: [PartialKeyPath<some PersistentModel>]) -> [String] {
        var slots = keyPaths.compactMap { slotsByKeyPath[$0] }
        for slot in loadedWithEveryFetch where !slots.contains(slot) { slots.append(slot) }
        return slots.map { propertyNames[$0] }
    }

    private static func modelMaker(for type: any PersistentModel.Type) -> any ModelMaking.Type {
        func maker<M: PersistentModel>(_ type: M.Type) -> any ModelMaking.Type { ManagedBackingData<M>.self }
        return maker(type)
    }

    private static func initialValueSink(for type: any PersistentModel.Type) -> AnyObject {
        func sink<M: PersistentModel>(_ type: M.Type) -> AnyObject { InitialValueSink<M.Root>() }
        return sink(type)
    }

    private static func rootName<M: PersistentModel>(of modelType: M.Type) -> String {
        Schema.entityName(for: M.Root.self as any PersistentModel.Type)
    }

    private static let cache = Locked<[ObjectIdentifier: ModelLayout]>([:])

    /// The address of the layout found last. Layouts live as long as the process (``cache``
    /// holds them), so the address stays valid; it is published after the layout is made,
    /// and read with acquiring order, so a reader sees the layout whole.
    private static let last = Atomic<UInt>(0)

    /// The layout of `modelType`, computed on first use.
    static func of(_ modelType: any PersistentModel.Type) -> ModelLayout {
        let key = ObjectIdentifier(modelType)
        // Models are mostly made many of one class in a row (a new model makes its backing
        // data with its class's layout): the lock and the hash of the key cost about 200
        // instructions a model.
        if let address = UnsafeRawPointer(bitPattern: last.load(ordering: .acquiring)) {
            let layout = Unmanaged<ModelLayout>.fromOpaque(address).takeUnretainedValue()
            if layout.modelTypeIdentifier == key { return layout }
        }
        let layout = cache.withLock { $0[key] } ?? made(for: modelType)
        last.store(UInt(bitPattern: Unmanaged.passUnretained(layout).toOpaque()), ordering: .releasing)
        return layout
    }

    /// The layout of `modelType`, made and kept in ``cache`` unless another thread did first.
    private static func made(for modelType: any PersistentModel.Type) -> ModelLayout {
        let layout = ModelLayout(modelType: modelType)
        return cache.withLock { cache in
            if let existing = cache[layout.modelTypeIdentifier] { return existing }
            cache[layout.modelTypeIdentifier] = layout
            return layout
        }
    }

    /// `Type.property` for messages, or `Type slot N` when the slot is unknown.
    static func propertyName(of modelType: Any.Type, slot: Int) -> String {
        guard let modelType = modelType as? any PersistentModel.Type else { return "\(modelType) slot \(slot)" }
        let layout = of(modelType)
        guard layout.propertyNames.indices.contains(slot) else { return "\(layout.entityName) slot \(slot)" }
        return "\(layout.entityName).\(layout.propertyNames[slot])"
    }
}
