import Observation

/// Turns a class into a persistent model that Strata can store, fetch and observe.
///
/// `@Model` routes every stored property through the model's backing data, makes the
/// class `Observable`, and describes its properties in ``PersistentModel/schemaMetadata``.
/// Mark properties with ``Attribute(_:originalName:hashModifier:)``,
/// ``Relationship(_:deleteRule:minimumModelCount:maximumModelCount:originalName:inverse:hashModifier:)``
/// or ``Transient()`` to customise them.
///
/// ```swift
/// @Model
/// final class Trip {
///     var name: String
///     var startDate: Date
///     @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
///     var bucketList: [BucketListItem] = []
///     init(name: String, startDate: Date) { self.name = name; self.startDate = startDate }
/// }
/// ```
@attached(
    member,
    names: named(_$backingData), named(_$madeBackingData), named(persistentBackingData), named(schemaMetadata),
    named(init), named(_$observationRegistrar), named(access), named(withMutation), named(_notifyObservers),
    named(_schemaAnnotations), named(_$slotBase), named(_$pendingValues), named(_$schemaMetadata), named(_hasEarlyInitialValues),
    named(_makeModel)
)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// ``Model()`` for a class whose entity was stored under another name: a lightweight
/// migration renames the stored entity to the class's name and keeps its data, as
/// `@Attribute(originalName:)` does for a property.
///
/// ```swift
/// @Model(originalName: "Journey")
/// final class Trip { var name: String; init(name: String) { self.name = name } }
/// ```
/// SwiftData has no entity renames; this is Strata's own (see "Differences from SwiftData").
@attached(
    member,
    names: named(_$backingData), named(_$madeBackingData), named(persistentBackingData), named(schemaMetadata),
    named(init), named(_$observationRegistrar), named(access), named(withMutation), named(_notifyObservers),
    named(_schemaAnnotations), named(_$slotBase), named(_$pendingValues), named(_$schemaMetadata), named(_hasEarlyInitialValues),
    named(_makeModel)
)
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model(originalName: String) = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// Routes one stored property of a ``Model()`` class through its backing data slot.
///
/// `@Model` adds this attribute to every persisted property; do not write it yourself.
/// The slot is the property's position among the class's persisted properties, which is
/// also its position in ``PersistentModel/schemaMetadata``.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(`_$keyPath_`))
public macro _PersistedProperty(slot: Int) = #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Routes one stored property of a ``Model()`` class through its backing data slot, in a
/// class with `slotCount` persisted properties: a new model's detached backing data makes
/// room for exactly that many values.
///
/// `@Model` adds this attribute to every persisted property; do not write it yourself.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(`_$keyPath_`))
public macro _PersistedProperty(slot: Int, slotCount: Int) = #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Routes one stored property of a ``Model()`` class that inherits from another model:
/// its slot is `slot` past the superclass's slots.
///
/// `@Model` adds this attribute to every persisted property of a subclass; do not write it yourself.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(`_$keyPath_`))
public macro _PersistedProperty<Model: AnyObject>(slot: Int, subclass: Model.Type) =
    #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Customises how a stored property of a model is persisted.
///
/// ```swift
/// @Attribute(.unique) var code: String
/// @Attribute(.externalStorage) var photo: Data?
/// @Attribute(originalName: "title") var name: String
/// ```
/// - Parameters:
///   - options: Storage options, such as ``Schema/Attribute/Option/unique``.
///   - originalName: The property's name in an earlier schema version, for renames.
///   - hashModifier: A string that forces a new version hash for this property.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option...,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "StrataMacros", type: "AttributeMacro")

/// Customises a relationship between models: its delete rule, bounds and inverse.
///
/// Name the inverse on one side only; the other side is inferred.
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
/// var bucketList: [BucketListItem] = []
/// ```
/// - Parameters:
///   - options: Relationship options; ``Schema/Relationship/Option/unique`` applies to to-one relationships.
///   - deleteRule: What happens to related models when this model is deleted.
///   - minimumModelCount: The fewest related models allowed (0 means no bound).
///   - maximumModelCount: The most related models allowed (0 means no bound).
///   - originalName: The relationship's name in an earlier schema version, for renames.
///   - inverse: The key path of the relationship on the other side.
///   - hashModifier: A string that forces a new version hash for this relationship.
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option...,
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "StrataMacros", type: "RelationshipMacro")

/// Excludes a stored property of a model from persistence.
///
/// A transient property needs a default value; it is reset to that value when the
/// model is fetched again.
/// ```swift
/// @Transient var isExpanded = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "TransientMacro")
