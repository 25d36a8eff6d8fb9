import Foundation

/// Whether a stored value reads back as its property's declared type, for the types whose
/// stored kind alone does not tell: integers narrower than 64 bits, enums stored by raw
/// value, `Codable` values stored as JSON, and values a transformer makes.
///
/// A context runs the check when it turns a snapshot into a model, so a value that no longer
/// fits the model (the struct evolved, another writer stored a case the enum lacks, an
/// integer out of range) fails the fetch with a typed error that names the entity, the
/// property and the row. The generated accessors would otherwise find it when the property
/// is read, where they can only trap.
struct StoredValueCheck: @unchecked Sendable {
    /// Why `value` does not read back as the property's type; `nil` when it does.
    let problem: (PersistentValue) -> String?

    /// The check for an attribute of `valueType`, or `nil` when the stored kind is enough.
    static func make(for valueType: Any.Type) -> StoredValueCheck? {
        let shape = ValueShape(of: valueType)
        let type = shape.unwrapped
        if let integer = type as? any _PersistentInteger.Type {
            return narrowInteger(integer)
        }
        // The other scalars read every value of their kind (a Float narrows any double).
        if type is any PersistentAttributeValue.Type { return nil }
        if let raw = type as? any (RawRepresentable & Codable).Type, let check = rawValue(raw) {
            return check
        }
        if shape.attributeKind == .codable, let codable = type as? any Codable.Type {
            return decodable(codable)
        }
        return nil
    }

    /// The check of a value made by a transformer: it must be an instance of `valueType`.
    static func transformed(as valueType: Any.Type) -> (Any?) -> Bool {
        func isInstance<V>(_ type: V.Type) -> (Any?) -> Bool {
            { object in
                if let object { return object is V }
                return V.self is any _OptionalType.Type
            }
        }
        return isInstance(valueType)
    }

    /// A value an attribute reads as when its stored value cannot be loaded (it was not
    /// fetched, and the row now fails its check or is gone): `nil` for an optional, else the
    /// type's zero (`0`, `""`, `false`, the reference date, empty data, an empty array or
    /// struct of zeros, an enum's first declared case), or `nil` when the type has none.
    ///
    /// A property read cannot throw; the context logs the error and refuses a save that
    /// would write the stand-in over the stored value.
    static func standIn(for attribute: EntityRuntime.AttributeSlot) -> PersistentValue? {
        standIn(kind: attribute.kind, isOptional: attribute.isOptional, valueType: attribute.valueType, check: attribute.check)
    }

    /// Whether an attribute of `valueType` has a stand-in, or needs none: every value of its
    /// stored kind reads back as it.
    static func hasStandIn(_ valueType: Any.Type) -> Bool {
        let shape = ValueShape(of: valueType)
        guard let check = make(for: valueType), let kind = shape.attributeKind else { return true }
        return standIn(kind: kind, isOptional: shape.isOptional, valueType: valueType, check: check) != nil
    }

    private static func standIn(kind: PersistentValue.Kind, isOptional: Bool, valueType: Any.Type, check: StoredValueCheck?) -> PersistentValue? {
        if isOptional { return .null }
        var candidates: [PersistentValue]
        switch kind {
        case .string: candidates = [.string("")]
        case .int: candidates = [.int(0)]
        case .double: candidates = [.double(0)]
        case .bool: candidates = [.bool(false)]
        case .date: candidates = [.date(Date(timeIntervalSinceReferenceDate: 0))]
        case .data: candidates = [.data(Data())]
        case .uuid: candidates = [.uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))]
        case .url: candidates = [.url(URL(string: "about:blank")!)]
        case .decimal: candidates = [.decimal(0)]
        case .codable: candidates = [.codable(Data("[]".utf8)), .codable(Data("{}".utf8))]
        case .identifier, .identifiers: candidates = []
        }
        let type = ValueShape(of: valueType).unwrapped
        if let raw = type as? any RawRepresentable.Type, let first = firstCaseRawValue(raw) {
            candidates.append(first)
        }
        if kind == .codable, let codable = type as? any Codable.Type, let zero = zeroJSON(codable) {
            candidates.append(zero)
        }
        return candidates.first { check?.problem($0) == nil }
    }

    /// A `Codable` type's zero (``ZeroDecoder``) as stored JSON.
    private static func zeroJSON<C: Codable>(_ type: C.Type) -> PersistentValue? {
        guard let zero = ZeroDecoder.zero(C.self), let data = try? CodableAttributeCoding.encode(zero) else { return nil }
        return .codable(data)
    }

    /// The stored raw value of the first declared case of an enum without payloads, which
    /// need not be `CaseIterable`: such an enum is a plain tag, and tag zero is its first case.
    private static func firstCaseRawValue<R: RawRepresentable>(_ type: R.Type) -> PersistentValue? {
        // The runtime's metadata kind of an enum (ABI-stable), and a payload-free layout.
        let enumKind = 0x201
        guard unsafeBitCast(R.self as Any.Type, to: UnsafeRawPointer.self).load(as: Int.self) == enumKind,
            _isPOD(R.self), MemoryLayout<R>.size <= 1
        else { return nil }
        let first = withUnsafeTemporaryAllocation(of: R.self, capacity: 1) { buffer -> R in
            UnsafeMutableRawPointer(buffer.baseAddress!).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<R>.stride)
            return buffer.baseAddress!.pointee
        }
        return (first.rawValue as? any PersistentAttributeValue)?.persistentValue
    }

    private static func narrowInteger<I: _PersistentInteger>(_ type: I.Type) -> StoredValueCheck? {
        // 64-bit integers read every stored integer (unsigned ones by bit pattern).
        guard I.bitWidth < 64 else { return nil }
        return StoredValueCheck { value in
            guard case .int(let stored) = value, I(persistentValue: value) == nil else { return nil }
            return "holds \(stored), outside the range of \(I.self) (\(I.min)...\(I.max))"
        }
    }

    private static func rawValue<R: RawRepresentable & Codable>(_ type: R.Type) -> StoredValueCheck? {
        guard let rawType = R.RawValue.self as? any PersistentAttributeValue.Type else { return nil }
        return StoredValueCheck { value in
            if case .null = value { return nil }
            guard let raw = rawType.init(persistentValue: value) as? R.RawValue else {
                return "holds \(value), which is not a raw value of \(R.self) (\(R.RawValue.self))"
            }
            return R(rawValue: raw) == nil ? "holds \(raw), which no case of \(R.self) has as its raw value" : nil
        }
    }

    private static func decodable<C: Codable>(_ type: C.Type) -> StoredValueCheck {
        StoredValueCheck { value in
            guard case .codable(let data) = value else { return nil }
            do {
                _ = try CodableAttributeCoding.decode(C.self, from: data)
                return nil
            } catch {
                return "holds JSON that does not decode as \(C.self): \(Self.describe(error))"
            }
        }
    }

    /// A decoding error in one line: what failed, and where.
    private static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        }
        switch decoding {
        case .keyNotFound(let key, let context): return "no value for \(key.stringValue)\(path(context))"
        case .typeMismatch(let type, let context): return "expected \(type)\(path(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context): return "no \(type)\(path(context))"
        case .dataCorrupted(let context): return "\(context.debugDescription)\(path(context))"
        @unknown default: return "\(decoding)"
        }
    }
}
