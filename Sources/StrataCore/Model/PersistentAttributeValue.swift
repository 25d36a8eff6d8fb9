import Foundation

/// A type that converts to and from a ``PersistentValue`` without encoding.
///
/// Strata conforms the scalar attribute types (integers, floating point, `Bool`,
/// `String`, `Date`, `Data`, `UUID`, `URL`, `Decimal`); optionals of them store `nil` as
/// ``PersistentValue/null``. Enums with
/// raw values and other `Codable` types need no conformance: models store them by raw
/// value or as JSON.
public protocol PersistentAttributeValue: Codable {
    /// The kind of ``PersistentValue`` this type is stored as.
    static var persistentValueKind: PersistentValue.Kind { get }
    /// Creates a value from its stored form, or returns `nil` when the stored value has another kind.
    init?(persistentValue: PersistentValue)
    /// The stored form of this value.
    var persistentValue: PersistentValue { get }
}

extension Bool: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/bool``.
    public static var persistentValueKind: PersistentValue.Kind { .bool }
    /// Reads ``PersistentValue/bool(_:)``, or an integer 0/1 as stores without booleans write it.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        switch persistentValue {
        case .bool(let value): self = value
        case .int(let value): self = value != 0
        default: return nil
        }
    }
    /// ``PersistentValue/bool(_:)``.
    @inlinable public var persistentValue: PersistentValue { .bool(self) }
}

extension String: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/string``.
    public static var persistentValueKind: PersistentValue.Kind { .string }
    /// Reads ``PersistentValue/string(_:)``.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        guard case .string(let value) = persistentValue else { return nil }
        self = value
    }
    /// ``PersistentValue/string(_:)``.
    @inlinable public var persistentValue: PersistentValue { .string(self) }
}

extension Double: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/double``.
    public static var persistentValueKind: PersistentValue.Kind { .double }
    /// Reads ``PersistentValue/double(_:)`` or an integer.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        switch persistentValue {
        case .double(let value): self = value
        case .int(let value): self = Double(value)
        default: return nil
        }
    }
    /// ``PersistentValue/double(_:)``.
    @inlinable public var persistentValue: PersistentValue { .double(self) }
}

extension Float: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/double``.
    public static var persistentValueKind: PersistentValue.Kind { .double }
    /// Reads ``PersistentValue/double(_:)`` or an integer, narrowing to `Float`.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        guard let value = Double(persistentValue: persistentValue) else { return nil }
        self = Float(value)
    }
    /// ``PersistentValue/double(_:)`` holding the widened value.
    @inlinable public var persistentValue: PersistentValue { .double(Double(self)) }
}

/// Integer conversions shared by every fixed-width integer type.
public protocol _PersistentInteger: FixedWidthInteger, PersistentAttributeValue {}

extension _PersistentInteger {
    /// Stored as ``PersistentValue/Kind/int``.
    public static var persistentValueKind: PersistentValue.Kind { .int }
    /// Reads ``PersistentValue/int(_:)``; `nil` when the stored integer does not fit this type.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        guard case .int(let value) = persistentValue else { return nil }
        if Self.bitWidth == 64 && !Self.isSigned {
            self.init(truncatingIfNeeded: UInt64(bitPattern: value))
        } else {
            guard let exact = Self(exactly: value) else { return nil }
            self = exact
        }
    }
    /// ``PersistentValue/int(_:)``; 64-bit unsigned values keep their bit pattern.
    @inlinable
    public var persistentValue: PersistentValue {
        if Self.bitWidth == 64 && !Self.isSigned {
            return .int(Int64(bitPattern: UInt64(truncatingIfNeeded: self)))
        }
        return .int(Int64(truncatingIfNeeded: self))
    }
}

extension Int: _PersistentInteger {}
extension Int8: _PersistentInteger {}
extension Int16: _PersistentInteger {}
extension Int32: _PersistentInteger {}
extension Int64: _PersistentInteger {}
extension UInt: _PersistentInteger {}
extension UInt8: _PersistentInteger {}
extension UInt16: _PersistentInteger {}
extension UInt32: _PersistentInteger {}
extension UInt64: _PersistentInteger {}

extension Date: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/date``.
    public static var persistentValueKind: PersistentValue.Kind { .date }
    /// Reads ``PersistentValue/date(_:)``.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        guard case .date(let value) = persistentValue else { return nil }
        self = value
    }
    /// ``PersistentValue/date(_:)``.
    @inlinable public var persistentValue: PersistentValue { .date(self) }
}

extension Data: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/data``.
    public static var persistentValueKind: PersistentValue.Kind { .data }
    /// Reads ``PersistentValue/data(_:)``.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        guard case .data(let value) = persistentValue else { return nil }
        self = value
    }
    /// ``PersistentValue/data(_:)``.
    @inlinable public var persistentValue: PersistentValue { .data(self) }
}

extension UUID: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/uuid``.
    public static var persistentValueKind: PersistentValue.Kind { .uuid }
    /// Reads ``PersistentValue/uuid(_:)``.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        guard case .uuid(let value) = persistentValue else { return nil }
        self = value
    }
    /// ``PersistentValue/uuid(_:)``.
    @inlinable public var persistentValue: PersistentValue { .uuid(self) }
}

extension URL: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/url``.
    public static var persistentValueKind: PersistentValue.Kind { .url }
    /// Reads ``PersistentValue/url(_:)``.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        guard case .url(let value) = persistentValue else { return nil }
        self = value
    }
    /// ``PersistentValue/url(_:)``.
    @inlinable public var persistentValue: PersistentValue { .url(self) }
}

extension Decimal: PersistentAttributeValue {
    /// Stored as ``PersistentValue/Kind/decimal``.
    public static var persistentValueKind: PersistentValue.Kind { .decimal }
    /// Reads ``PersistentValue/decimal(_:)`` or an integer.
    @inlinable
    public init?(persistentValue: PersistentValue) {
        switch persistentValue {
        case .decimal(let value): self = value
        case .int(let value): self = Decimal(value)
        default: return nil
        }
    }
    /// ``PersistentValue/decimal(_:)``.
    @inlinable public var persistentValue: PersistentValue { .decimal(self) }
}

/// The JSON coding Strata uses for ``PersistentValue/codable(_:)`` values.
///
/// Keys are sorted so equal values encode to equal bytes, which keeps change detection
/// and uniqueness checks on composite attributes exact.
enum CodableAttributeCoding {
    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try encoder.encode(value)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try decoder.decode(type, from: data)
    }
}
