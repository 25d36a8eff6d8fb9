/// A collection type that can hold the destination models of a to-many relationship.
///
/// `Array` of models (`[BucketListItem]`) and optional arrays (`[BucketListItem]?`)
/// conform; a model's to-many properties must have one of these types.
public protocol RelationshipCollection {
    /// The model type of the relationship's destination.
    associatedtype PersistentElement: PersistentModel

    /// Creates the collection from related models, in order.
    init(_persistentModels models: [PersistentElement])

    /// The related models in order; empty for a `nil` optional collection.
    var _persistentModels: [PersistentElement] { get }
}

extension Array: RelationshipCollection where Element: PersistentModel {
    /// Wraps the related models in an array.
    public init(_persistentModels models: [Element]) { self = models }
    /// The array itself.
    public var _persistentModels: [Element] { self }
}

extension Optional: RelationshipCollection where Wrapped: RelationshipCollection {
    /// A non-`nil` collection of the related models.
    public init(_persistentModels models: [Wrapped.PersistentElement]) {
        self = .some(Wrapped(_persistentModels: models))
    }
    /// The wrapped collection's models, or none for `nil`.
    public var _persistentModels: [Wrapped.PersistentElement] { self?._persistentModels ?? [] }
}
