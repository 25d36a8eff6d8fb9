import Foundation

/// A decoder that answers every request with the type's zero: `0`, `""`, `false`, empty
/// arrays, `nil` for optionals, and nested containers of the same. It makes the stand-in of
/// a `Codable` attribute whose stored JSON cannot be loaded (``StoredValueCheck/standIn(for:)``).
/// A type that refuses zeros (a `RawRepresentable` enum without an empty or zero case, a
/// validating initialiser) throws, and then has no stand-in.
struct ZeroDecoder: Decoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A zero value of `type`, or `nil` when the type refuses one.
    static func zero<T: Decodable>(_ type: T.Type) -> T? {
        try? T(from: ZeroDecoder())
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(codingPath: codingPath) }

    /// The zero of a scalar type, or a nested decode.
    static func value<T: Decodable>(_ type: T.Type, at path: [any CodingKey]) throws -> T {
        switch type {
        case is String.Type: return "" as! T
        case is Bool.Type: return false as! T
        case is Double.Type: return 0.0 as! T
        case is Float.Type: return Float(0) as! T
        case is Int.Type: return 0 as! T
        case is Int8.Type: return Int8(0) as! T
        case is Int16.Type: return Int16(0) as! T
        case is Int32.Type: return Int32(0) as! T
        case is Int64.Type: return Int64(0) as! T
        case is UInt.Type: return UInt(0) as! T
        case is UInt8.Type: return UInt8(0) as! T
        case is UInt16.Type: return UInt16(0) as! T
        case is UInt32.Type: return UInt32(0) as! T
        case is UInt64.Type: return UInt64(0) as! T
        default: return try T(from: ZeroDecoder(codingPath: path))
        }
    }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        var codingPath: [any CodingKey]
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ZeroDecoder.value(type, at: codingPath + [key])
        }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { nil }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(Keyed<NestedKey>(codingPath: codingPath + [key]))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Unkeyed(codingPath: codingPath + [key]) }
        func superDecoder() throws -> any Decoder { ZeroDecoder(codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { ZeroDecoder(codingPath: codingPath + [key]) }
    }

    /// An empty array.
    private struct Unkeyed: UnkeyedDecodingContainer {
        var codingPath: [any CodingKey]
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        private func end() -> DecodingError {
            DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "a zero array is empty"))
        }
        mutating func decodeNil() throws -> Bool { throw end() }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw end() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> { throw end() }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw end() }
        mutating func superDecoder() throws -> any Decoder { throw end() }
    }

    private struct Single: SingleValueDecodingContainer {
        var codingPath: [any CodingKey]
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try ZeroDecoder.value(type, at: codingPath) }
    }
}
