/// The value held in one property slot of a model's backing data.
///
/// Attributes hold their stored form; relationships hold the related models themselves.
/// Backing data resolves faults before handing a value out, so readers never see one.
public enum BackingValue {
    /// The slot has not been given a value yet.
    case unset
    /// An attribute's value in stored form.
    case attribute(PersistentValue)
    /// A to-one relationship's destination, or `nil`.
    case toOne((any PersistentModel)?)
    /// A to-many relationship's destinations, in the property's own collection type.
    indirect case toMany(any RelationshipCollection)
    /// A transformable attribute's value before it passes through its value transformer.
    indirect case transformable(Any?)
}
