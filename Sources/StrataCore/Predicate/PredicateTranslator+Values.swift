import Foundation

// Captured values, key paths and type checks: the parts of translation that depend on
// the Swift types in a predicate rather than on its node shapes.
extension PredicateTranslator {
    /// A captured value as a filter constant: a list for arrays and sets, otherwise a value
    /// in its stored form (raw values for enums, identifiers for models, JSON for other `Codable`s).
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` naming `node` when the value has no stored form.
    static func constant(_ value: Any, node: Any) throws -> FilterExpression {
        if let scalar = scalar(value) { return .value(scalar) }
        if let list = value as? any _FilterListConstant {
            return .list(try list.filterElements.map { try persistentValue(of: $0, node: node) })
        }
        return .value(try persistentValue(of: value, node: node))
    }

    /// A captured value in the form a model stores it.
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` naming `node` when the value has no stored form.
    static func persistentValue(of value: Any, node: Any) throws -> PersistentValue {
        if let scalar = scalar(value) { return scalar }
        if let optional = value as? any _FilterOptional {
            guard let wrapped = optional.filterWrapped else { return .null }
            return try persistentValue(of: wrapped, node: node)
        }
        if let scalar = value as? any PersistentAttributeValue { return scalar.persistentValue }
        if let model = value as? any PersistentModel { return .identifier(model.persistentModelID) }
        if let identifier = value as? PersistentIdentifier { return .identifier(identifier) }
        if let result = value as? ComparisonResult { return .int(Int64(result.rawValue)) }
        if let character = value as? Character { return .string(String(character)) }
        if let raw = value as? any RawRepresentable, let scalar = raw.rawValue as Any as? any PersistentAttributeValue {
            return scalar.persistentValue
        }
        if value is any _FilterListConstant {
            // A list nested in a list, or a list where a single value is needed: its JSON form.
            if let encodable = value as? any Encodable, let data = try? CodableAttributeCoding.encode(encodable) {
                return .codable(data)
            }
        } else if let encodable = value as? any Encodable {
            do {
                return .codable(try CodableAttributeCoding.encode(encodable))
            } catch {
                throw unsupported(node, "a captured \(type(of: value)) could not be encoded as JSON")
            }
        }
        throw unsupported(node, "a captured \(type(of: value)) has no stored form")
    }

    /// The stored form of a value of the commonest attribute types, told by its type alone.
    ///
    /// Each protocol cast of ``persistentValue(of:node:)`` costs about 2,000 instructions, and
    /// a `String` captured for a lookup went through four of them; comparing the type costs a
    /// few. `nil` for other types.
    static func scalar(_ value: Any) -> PersistentValue? {
        guard let read = scalarReader(of: type(of: value)) else { return nil }
        func read<V>(opened value: V) -> PersistentValue { withUnsafePointer(to: value) { read(UnsafeRawPointer($0)) } }
        return _openExistential(value, do: read(opened:))
    }

    /// What ``scalar(_:)`` makes of a value of `type`, read from its memory, or `nil` for
    /// other types; a ``PredicateShape`` reads captured values with it.
    static func scalarReader(of type: Any.Type) -> (@Sendable (UnsafeRawPointer) -> PersistentValue)? {
        if type == String.self { return { .string($0.load(as: String.self)) } }
        if type == Int.self { return { $0.load(as: Int.self).persistentValue } }
        if type == Double.self { return { $0.load(as: Double.self).persistentValue } }
        if type == Bool.self { return { .bool($0.load(as: Bool.self)) } }
        if type == Date.self { return { $0.load(as: Date.self).persistentValue } }
        if type == UUID.self { return { $0.load(as: UUID.self).persistentValue } }
        return nil
    }

    /// Checks that values of `type` order the same way in Swift and in their stored form.
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` naming `node` when they do not:
    ///   `UInt`/`UInt64` (stored by bit pattern), enums (ordered by case, stored by raw value),
    ///   `Codable` structs (stored as JSON) and models.
    static func checkOrderable(_ type: Any.Type, node: Any) throws {
        if let reason = orderingProblem(of: type) { throw unsupported(node, reason) }
    }

    /// Why values of `type` cannot be ordered by their stored form, or `nil` when they can.
    static func orderingProblem(of type: Any.Type) -> String? {
        let shape = ValueShape(of: type)
        let unwrapped = shape.unwrapped
        if unwrapped == UInt64.self || unwrapped == UInt.self {
            return "\(unwrapped) values are stored by bit pattern, so stores cannot order them or do arithmetic on them"
        }
        guard case .attribute(let kind?) = shape.role, kind != .codable, unwrapped is any PersistentAttributeValue.Type else {
            if unwrapped is any RawRepresentable.Type {
                return "\(unwrapped) values are stored by raw value; compare `rawValue` instead"
            }
            return "\(unwrapped) values have no order that stores share"
        }
        return nil
    }

    /// A key path on a model, whose layout is `layout`, as a property path: a persisted
    /// property extends `base`'s path; `persistentModelID` (and `id`, when the model does not
    /// declare its own) leaves it as is.
    ///
    /// - Throws: `SwiftDataError.unsupportedPredicate` naming `node` for computed and
    ///   `@Transient` properties, and when `base` is not a property path.
    static func modelMember<Model: PersistentModel>(
        _ keyPath: AnyKeyPath, of modelType: Model.Type, layout: ModelLayout, base: FilterExpression, node: Any
    ) throws -> FilterExpression {
        if let slot = layout.slotsByKeyPath[keyPath] {
            guard case .property(let variable, let path) = base else {
                throw unsupported(node, "\(layout.entityName).\(layout.propertyNames[slot]) is read from a model that is not a property of the fetched model")
            }
            return .property(variable: variable, path: path + [layout.propertyNames[slot]])
        }
        if keyPath == \Model.persistentModelID || keyPath == identityKeyPath(of: Model.self) {
            return base
        }
        throw unsupported(node, "the key path \(keyPath) of \(layout.entityName) is not a persisted property (computed and @Transient properties are not stored)")
    }

    /// `\Model.id` as `PersistentModel`'s extension provides it (the explicit type selects
    /// the extension's property over `Identifiable`'s requirement, whose key path differs).
    private static func identityKeyPath<Model: PersistentModel>(of modelType: Model.Type) -> AnyKeyPath {
        let keyPath: KeyPath<Model, PersistentIdentifier> = \Model.id
        return keyPath
    }

    /// Whether `keyPath` reads `rawValue` from values of `type`.
    ///
    /// Key paths to a protocol requirement built here differ from those a predicate builds on
    /// the concrete type, so the key path is instead checked against every case of a
    /// `CaseIterable` enum, or against the cases an integer raw value from 0 to 15 makes.
    static func isRawValueKeyPath<Raw: RawRepresentable>(_ keyPath: AnyKeyPath, of type: Raw.Type) -> Bool {
        var samples: [Raw] = []
        if let iterable = type as? any CaseIterable.Type {
            samples = allCases(of: iterable).compactMap { $0 as? Raw }
        } else if let integer = Raw.RawValue.self as? any BinaryInteger.Type {
            samples = (0..<16).compactMap { rawSample(integer, $0).flatMap { Raw(rawValue: $0) } }
        }
        guard !samples.isEmpty else { return false }
        return samples.allSatisfy { sample in
            guard let read = sample[keyPath: keyPath] else { return false }
            return isEqual(read, sample.rawValue)
        }
    }

    private static func allCases<Iterable: CaseIterable>(of type: Iterable.Type) -> [Any] {
        Array(Iterable.allCases)
    }

    private static func rawSample<RawValue>(_ integer: any BinaryInteger.Type, _ value: Int) -> RawValue? {
        func make<I: BinaryInteger>(_ type: I.Type) -> Any? { I(exactly: value) }
        return make(integer) as? RawValue
    }

    private static func isEqual(_ lhs: Any, _ rhs: Any) -> Bool {
        func compare<E: Equatable>(_ lhs: E) -> Bool { (rhs as? E) == lhs }
        guard let equatable = lhs as? any Equatable else { return false }
        return compare(equatable)
    }
}

/// Implemented by `Optional` so a captured `Any` can be unwrapped.
protocol _FilterOptional {
    var filterWrapped: Any? { get }
}

extension Optional: _FilterOptional {
    var filterWrapped: Any? {
        switch self {
        case .some(let wrapped): wrapped
        case .none: nil
        }
    }
}

/// Implemented by the collection types a captured list may have.
protocol _FilterListConstant {
    var filterElements: [Any] { get }
}

extension Array: _FilterListConstant {
    var filterElements: [Any] { map { $0 } }
}

extension ContiguousArray: _FilterListConstant {
    var filterElements: [Any] { map { $0 } }
}

extension ArraySlice: _FilterListConstant {
    var filterElements: [Any] { map { $0 } }
}

extension Set: _FilterListConstant {
    var filterElements: [Any] { map { $0 } }
}

/// The members of collections and strings that have a filter meaning.
enum _FilterCollectionMember {
    case count, isEmpty, first, last
}

/// Implemented by the collection types whose `count` and `isEmpty` a predicate may read.
protocol _FilterCollection {
    static func filterMember(_ keyPath: AnyKeyPath) -> _FilterCollectionMember?
}

extension Array: _FilterCollection {
    static func filterMember(_ keyPath: AnyKeyPath) -> _FilterCollectionMember? {
        let members: [(AnyKeyPath, _FilterCollectionMember)] = [(\Self.count, .count), (\Self.isEmpty, .isEmpty), (\Self.first, .first), (\Self.last, .last)]
        return members.first { $0.0 == keyPath }?.1
    }
}

extension Set: _FilterCollection {
    static func filterMember(_ keyPath: AnyKeyPath) -> _FilterCollectionMember? {
        let members: [(AnyKeyPath, _FilterCollectionMember)] = [(\Self.count, .count), (\Self.isEmpty, .isEmpty), (\Self.first, .first)]
        return members.first { $0.0 == keyPath }?.1
    }
}

extension String: _FilterCollection {
    static func filterMember(_ keyPath: AnyKeyPath) -> _FilterCollectionMember? {
        let members: [(AnyKeyPath, _FilterCollectionMember)] = [(\Self.count, .count), (\Self.isEmpty, .isEmpty), (\Self.first, .first), (\Self.last, .last)]
        return members.first { $0.0 == keyPath }?.1
    }
}

extension Substring: _FilterCollection {
    static func filterMember(_ keyPath: AnyKeyPath) -> _FilterCollectionMember? {
        let members: [(AnyKeyPath, _FilterCollectionMember)] = [(\Self.count, .count), (\Self.isEmpty, .isEmpty)]
        return members.first { $0.0 == keyPath }?.1
    }
}

extension Dictionary: _FilterCollection {
    static func filterMember(_ keyPath: AnyKeyPath) -> _FilterCollectionMember? {
        let members: [(AnyKeyPath, _FilterCollectionMember)] = [(\Self.count, .count), (\Self.isEmpty, .isEmpty)]
        return members.first { $0.0 == keyPath }?.1
    }
}

/// Implemented by the range types a captured range may have: its bounds, `nil` where open.
protocol _FilterRangeConstant {
    var filterLower: Any? { get }
    var filterUpper: Any? { get }
    var filterIsClosed: Bool { get }
}

extension Range: _FilterRangeConstant {
    var filterLower: Any? { lowerBound }
    var filterUpper: Any? { upperBound }
    var filterIsClosed: Bool { false }
}

extension ClosedRange: _FilterRangeConstant {
    var filterLower: Any? { lowerBound }
    var filterUpper: Any? { upperBound }
    var filterIsClosed: Bool { true }
}

extension PartialRangeFrom: _FilterRangeConstant {
    var filterLower: Any? { lowerBound }
    var filterUpper: Any? { nil }
    var filterIsClosed: Bool { false }
}

extension PartialRangeUpTo: _FilterRangeConstant {
    var filterLower: Any? { nil }
    var filterUpper: Any? { upperBound }
    var filterIsClosed: Bool { false }
}

extension PartialRangeThrough: _FilterRangeConstant {
    var filterLower: Any? { nil }
    var filterUpper: Any? { upperBound }
    var filterIsClosed: Bool { true }
}
