import Foundation

// SwiftData's key-path accessors, for models written by hand without `@Model`: each reads or
// writes the backing data slot of the persisted property the key path names, exactly as the
// accessors `@Model` generates do.
//
// ```swift
// final class Shelf: PersistentModel {
//     var label: String {
//         get { getValue(forKey: \.label) }
//         set { setValue(forKey: \.label, to: newValue) }
//     }
//     …
// }
// ```

extension PersistentModel {
    /// The slot of the persisted property `keyPath` names.
    static func _slot(of keyPath: AnyKeyPath) -> Int {
        guard let slot = ModelLayout.of(Self.self).slotsByKeyPath[keyPath] else {
            preconditionFailure("Strata: \(keyPath) is not a persisted property of \(Self.self) (it is missing from schemaMetadata)")
        }
        return slot
    }

    /// The value of a scalar attribute.
    public func getValue<Value: PersistentAttributeValue>(forKey key: KeyPath<Self, Value>) -> Value {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value.self)
    }

    /// The value of an optional scalar attribute.
    public func getValue<Value: PersistentAttributeValue>(forKey key: KeyPath<Self, Value?>) -> Value? {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value?.self)
    }

    /// The value of an enum attribute stored by raw value.
    public func getValue<Value: RawRepresentable & Codable>(forKey key: KeyPath<Self, Value>) -> Value
    where Value.RawValue: PersistentAttributeValue {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value.self)
    }

    /// The value of an optional enum attribute stored by raw value.
    public func getValue<Value: RawRepresentable & Codable>(forKey key: KeyPath<Self, Value?>) -> Value?
    where Value.RawValue: PersistentAttributeValue {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value?.self)
    }

    /// The value of a `Codable` attribute (a struct, an array, a dictionary).
    public func getValue<Value: Codable>(forKey key: KeyPath<Self, Value>) -> Value {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value.self)
    }

    /// The value of an optional `Codable` attribute.
    public func getValue<Value: Codable>(forKey key: KeyPath<Self, Value?>) -> Value? {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value?.self)
    }

    /// The model a to-one relationship points to.
    public func getValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value?>) -> Value? {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value?.self)
    }

    /// The models of a to-many relationship.
    public func getValue<Value: RelationshipCollection>(forKey key: KeyPath<Self, Value>) -> Value {
        _getValue(at: Self._slot(of: key), in: persistentBackingData, as: Value.self)
    }

    /// The value of an attribute declared `.transformable(by:)`.
    public func getTransformableValue<Value>(forKey key: KeyPath<Self, Value>) -> Value {
        _getTransformableValue(at: Self._slot(of: key), in: persistentBackingData, as: Value.self)
    }

    /// Sets a scalar attribute.
    public func setValue<Value: PersistentAttributeValue>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Sets an optional scalar attribute.
    public func setValue<Value: PersistentAttributeValue>(forKey key: KeyPath<Self, Value?>, to newValue: Value?) {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Sets an enum attribute, stored by raw value.
    public func setValue<Value: RawRepresentable & Codable>(forKey key: KeyPath<Self, Value>, to newValue: Value)
    where Value.RawValue: PersistentAttributeValue {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Sets an optional enum attribute, stored by raw value.
    public func setValue<Value: RawRepresentable & Codable>(forKey key: KeyPath<Self, Value?>, to newValue: Value?)
    where Value.RawValue: PersistentAttributeValue {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Sets a `Codable` attribute.
    public func setValue<Value: Codable>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Sets an optional `Codable` attribute.
    public func setValue<Value: Codable>(forKey key: KeyPath<Self, Value?>, to newValue: Value?) {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Points a to-one relationship at `newValue`.
    public func setValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value?>, to newValue: Value?) {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Sets the models of a to-many relationship.
    public func setValue<Value: RelationshipCollection>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        _setValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }

    /// Sets an attribute declared `.transformable(by:)`.
    public func setTransformableValue<Value>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        _setTransformableValue(newValue, at: Self._slot(of: key), in: persistentBackingData)
    }
}
