import Foundation

/// A value as it travels between a model's backing data, snapshots and stores.
///
/// The set of cases is closed, so stores can read and write values without `Any` boxing
/// or dynamic casts. Attribute types map onto it as ``PersistentValue/Kind`` describes:
/// integers of every width become ``int(_:)``, `Float` becomes ``double(_:)``, enums with
/// raw values store their raw value, and other `Codable` values (structs, arrays,
/// dictionaries) are stored as JSON in ``codable(_:)``.
public enum PersistentValue: Sendable, Hashable {
    /// No value: a `nil` optional.
    case null
    /// A Boolean.
    case bool(Bool)
    /// A signed integer; every Swift integer type is stored here (`UInt64` by bit pattern).
    case int(Int64)
    /// A `Double`, or a `Float` widened to `Double`.
    case double(Double)
    /// A string.
    case string(String)
    /// Raw bytes.
    case data(Data)
    /// A point in time.
    case date(Date)
    /// A UUID.
    case uuid(UUID)
    /// A URL.
    case url(URL)
    /// A decimal number.
    case decimal(Decimal)
    /// The identifier of one related model (a to-one relationship).
    case identifier(PersistentIdentifier)
    /// The identifiers of related models (a to-many relationship), in order.
    case identifiers([PersistentIdentifier])
    /// A `Codable` value that is not one of the scalar cases, encoded as JSON.
    case codable(Data)

    /// The storage kind of a value, used by schemas to describe attributes to stores.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// ``PersistentValue/bool(_:)``.
        case bool
        /// ``PersistentValue/int(_:)``.
        case int
        /// ``PersistentValue/double(_:)``.
        case double
        /// ``PersistentValue/string(_:)``.
        case string
        /// ``PersistentValue/data(_:)``.
        case data
        /// ``PersistentValue/date(_:)``.
        case date
        /// ``PersistentValue/uuid(_:)``.
        case uuid
        /// ``PersistentValue/url(_:)``.
        case url
        /// ``PersistentValue/decimal(_:)``.
        case decimal
        /// ``PersistentValue/identifier(_:)``.
        case identifier
        /// ``PersistentValue/identifiers(_:)``.
        case identifiers
        /// ``PersistentValue/codable(_:)``.
        case codable
    }

    /// The kind of this value, or `nil` for ``null``.
    public var kind: Kind? {
        switch self {
        case .null: nil
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .data: .data
        case .date: .date
        case .uuid: .uuid
        case .url: .url
        case .decimal: .decimal
        case .identifier: .identifier
        case .identifiers: .identifiers
        case .codable: .codable
        }
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension PersistentValue: Codable {
    /// Encodes as an object with one key naming the kind, such as `{"string": "Kyoto"}`;
    /// ``null`` encodes as JSON `null`. Dates, data and decimals use the encoder's own strategies.
    public func encode(to encoder: any Encoder) throws {
        if case .null = self {
            var container = encoder.singleValueContainer()
            return try container.encodeNil()
        }
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .null: break
        case .bool(let value): try container.encode(value, forKey: .bool)
        case .int(let value): try container.encode(value, forKey: .int)
        case .double(let value): try container.encode(value, forKey: .double)
        case .string(let value): try container.encode(value, forKey: .string)
        case .data(let value): try container.encode(value, forKey: .data)
        case .date(let value): try container.encode(value, forKey: .date)
        case .uuid(let value): try container.encode(value, forKey: .uuid)
        case .url(let value): try container.encode(value, forKey: .url)
        case .decimal(let value): try container.encode(value, forKey: .decimal)
        case .identifier(let value): try container.encode(value, forKey: .identifier)
        case .identifiers(let value): try container.encode(value, forKey: .identifiers)
        case .codable(let value): try container.encode(value, forKey: .codable)
        }
    }

    /// Decodes the form ``encode(to:)`` writes.
    ///
    /// - Throws: `DecodingError.dataCorrupted` naming the path when the object does not have
    ///   exactly one known kind key.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self = .null
            return
        }
        let container = try decoder.container(keyedBy: Kind.self)
        guard container.allKeys.count == 1, let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "a stored value is an object with exactly one key naming its kind (bool, int, double, string, ...)"))
        }
        switch kind {
        case .bool: self = .bool(try container.decode(Bool.self, forKey: kind))
        case .int: self = .int(try container.decode(Int64.self, forKey: kind))
        case .double: self = .double(try container.decode(Double.self, forKey: kind))
        case .string: self = .string(try container.decode(String.self, forKey: kind))
        case .data: self = .data(try container.decode(Data.self, forKey: kind))
        case .date: self = .date(try container.decode(Date.self, forKey: kind))
        case .uuid: self = .uuid(try container.decode(UUID.self, forKey: kind))
        case .url: self = .url(try container.decode(URL.self, forKey: kind))
        case .decimal: self = .decimal(try container.decode(Decimal.self, forKey: kind))
        case .identifier: self = .identifier(try container.decode(PersistentIdentifier.self, forKey: kind))
        case .identifiers: self = .identifiers(try container.decode([PersistentIdentifier].self, forKey: kind))
        case .codable: self = .codable(try container.decode(Data.self, forKey: kind))
        }
    }
}

extension PersistentValue.Kind: CodingKey {}
