import Foundation

/// Finds the stored members of a `Codable` struct for ``Schema/CompositeAttribute``.
///
/// With a sample value (the property's default) the members come from `Mirror`; without
/// one, a probing decoder runs the struct's `init(from:)` and records each key it asks
/// for with its type, handing back placeholder values. A member whose type rejects
/// every placeholder (an enum without a matching case) ends the probe early, so the
/// members after it are not listed; a default value on the property avoids that.
enum CompositeMembers {
    static func attributes(of type: Any.Type, sample: Any?) -> [Schema.Attribute] {
        if let sample {
            let mirror = Mirror(reflecting: sample)
            if mirror.displayStyle == .struct {
                return mirror.children.compactMap { child in
                    child.label.map { Schema.Attribute(name: $0, valueType: Swift.type(of: child.value)) }
                }
            }
        }
        guard let decodable = type as? any Decodable.Type else { return [] }
        let probe = ProbeDecoder()
        _ = try? decodable.init(from: probe)
        return probe.recorder.members.map { Schema.Attribute(name: $0.name, valueType: $0.type) }
    }
}

private final class ProbeRecorder {
    var members: [(name: String, type: Any.Type)] = []
}

private struct ProbeError: Error {}

private struct ProbeDecoder: Decoder {
    let recorder = ProbeRecorder()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(recorder: recorder))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ProbeError() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw ProbeError() }
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ProbeRecorder
    var codingPath: [any CodingKey] = []
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        recorder.members.append((key.stringValue, type))
        if let placeholder = Self.placeholder(for: type) { return placeholder }
        throw ProbeError()
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        recorder.members.append((key.stringValue, T?.self))
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    { throw ProbeError() }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw ProbeError() }
    func superDecoder() throws -> any Decoder { throw ProbeError() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw ProbeError() }

    private static func placeholder<T>(for type: T.Type) -> T? {
        let values: [Any] = [
            "", 0, Int8(0), Int16(0), Int32(0), Int64(0), UInt(0), UInt8(0), UInt16(0), UInt32(0), UInt64(0),
            0.0, Float(0), false, Date(timeIntervalSinceReferenceDate: 0), Data(), UUID(),
            URL(fileURLWithPath: "/"), Decimal(0), [String](), [Int](), [Double](), [String: String](),
        ]
        for value in values { if let match = value as? T { return match } }
        return nil
    }
}
