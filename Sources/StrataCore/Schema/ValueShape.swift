import Foundation

/// Implemented by `Optional` so code holding only a metatype can unwrap it.
protocol _OptionalType {
    static var wrappedType: Any.Type { get }
    /// `nil` of this optional type.
    static var nilValue: Any { get }
}

extension Optional: _OptionalType {
    static var wrappedType: Any.Type { Wrapped.self }
    static var nilValue: Any {
        let value: Wrapped? = nil
        return value as Any
    }
}

/// What a property's declared type means for storage, read from the type at run time.
///
/// The rules match the overloads `@Model` accessors resolve at compile time: scalars by
/// ``PersistentAttributeValue``, enums by raw value, models as to-one relationships,
/// ``RelationshipCollection``s as to-many, and any other `Codable` type as JSON.
struct ValueShape {
    enum Role {
        case attribute(PersistentValue.Kind?)
        case toOne(any PersistentModel.Type)
        case toMany(any PersistentModel.Type)
    }

    let isOptional: Bool
    let unwrapped: Any.Type
    let role: Role

    init(of type: Any.Type) {
        if let optional = type as? any _OptionalType.Type {
            isOptional = true
            unwrapped = optional.wrappedType
        } else {
            isOptional = false
            unwrapped = type
        }
        if let model = unwrapped as? any PersistentModel.Type {
            role = .toOne(model)
        } else if let collection = type as? any RelationshipCollection.Type {
            role = .toMany(Self.elementType(of: collection))
        } else {
            role = .attribute(Self.attributeKind(of: unwrapped))
        }
    }

    var attributeKind: PersistentValue.Kind? {
        if case .attribute(let kind) = role { return kind }
        return nil
    }

    /// Whether the unwrapped type is a struct stored as JSON, whose members make a composite attribute.
    var isCompositeStruct: Bool {
        guard attributeKind == .codable else { return false }
        let name = String(reflecting: unwrapped)
        return !(name.hasPrefix("Swift.Array<") || name.hasPrefix("Swift.Dictionary<") || name.hasPrefix("Swift.Set<"))
    }

    private static func elementType<C: RelationshipCollection>(of collection: C.Type) -> any PersistentModel.Type {
        C.PersistentElement.self
    }

    private static func attributeKind(of type: Any.Type) -> PersistentValue.Kind? {
        if let scalar = type as? any PersistentAttributeValue.Type { return scalar.persistentValueKind }
        if let raw = type as? any (RawRepresentable & Codable).Type, let kind = rawValueKind(of: raw) { return kind }
        if type is any Codable.Type { return .codable }
        return nil
    }

    private static func rawValueKind<R: RawRepresentable>(of type: R.Type) -> PersistentValue.Kind? {
        (R.RawValue.self as? any PersistentAttributeValue.Type)?.persistentValueKind
    }

    /// The Swift type a decoded schema uses for an attribute of `kind`.
    static func swiftType(for kind: PersistentValue.Kind, optional: Bool) -> any Any.Type {
        func wrap<T>(_ type: T.Type) -> any Any.Type { optional ? T?.self : T.self }
        switch kind {
        case .bool: return wrap(Bool.self)
        case .int: return wrap(Int64.self)
        case .double: return wrap(Double.self)
        case .string: return wrap(String.self)
        case .data, .codable: return wrap(Data.self)
        case .date: return wrap(Date.self)
        case .uuid: return wrap(UUID.self)
        case .url: return wrap(URL.self)
        case .decimal: return wrap(Decimal.self)
        case .identifier: return wrap(PersistentIdentifier.self)
        case .identifiers: return wrap([PersistentIdentifier].self)
        }
    }
}
