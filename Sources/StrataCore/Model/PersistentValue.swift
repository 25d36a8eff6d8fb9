import Foundation

/// A value as it travels between a model's backing data, snapshots and stores.
///
/// The set of cases is closed, so stores can read and write values without `Any` boxing
/// or dynamic casts. Attribute types map onto it as ``PersistentValue/Kind`` describes:
/// integers of every width become ``int(_:)``, `Float` becomes ``double(_:)``, enums with
/// raw values store their raw value, and other `Codable` values (structs, arrays,
/// dictionaries) are stored as JSON in ``codable(_:)``.
public enum PersistentValue: Sendable, Hashable, Codable {
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
