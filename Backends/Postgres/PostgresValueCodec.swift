import Foundation
import NIOCore
import PostgresNIO
import StrataCore

/// How each kind of value is a PostgreSQL column, and the conversions both ways.
///
/// | kind | column type | held as |
/// |---|---|---|
/// | bool | `boolean` | the value |
/// | int | `bigint` | the value (`UInt64` by bit pattern) |
/// | double | `double precision` | the value, NaN, ±infinity and -0.0 included |
/// | string | `text` | the value as given, but for U+0000, which `text` cannot hold, and U+0001 (``PostgresStrings/encode(_:)``); compared through `normalize(…, NFC) COLLATE "C"` |
/// | data | `bytea` | the bytes |
/// | date | `double precision` | seconds since 2001-01-01 00:00 UTC, exact (a `timestamptz` keeps microseconds only) |
/// | uuid | `uuid` | the value |
/// | url | `text` | `absoluteString` |
/// | decimal | `numeric` | the value, exact |
/// | codable | `json` | the encoded JSON text, exact (`jsonb` would turn -0.0 into 0 and refuse U+0000) |
/// | to-one | `bigint` | the destination's `_pk`; `text` holding the identifier as JSON when the destination lives in another store |
/// | cross-store to-many | `text` | the identifiers as JSON |
enum PostgresValueCodec {
    /// The column type of a column.
    static func columnType(_ column: RelationalSchemaMapping.Column) -> String {
        switch column.kind {
        case .bool: return "boolean"
        case .int: return "bigint"
        case .double, .date: return "double precision"
        case .string, .url: return "text"
        case .data: return "bytea"
        case .uuid: return "uuid"
        case .decimal: return "numeric"
        case .codable: return "json"
        case .identifier: return column.crossStore ? "text" : "bigint"
        case .identifiers: return "text"
        }
    }

    /// The SQL of parameter `$index` for a value of `kind`: a cast where the bound text
    /// becomes a column type postgres-nio has no binding for.
    static func placeholder(_ index: Int, kind: PersistentValue.Kind?) -> String {
        switch kind {
        case .decimal: return "$\(index)::numeric"
        case .codable: return "$\(index)::json"
        default: return "$\(index)"
        }
    }

    /// How a column is selected: as itself, or as text where postgres-nio reads no native form.
    static func selection(_ sql: String, kind: PersistentValue.Kind) -> String {
        switch kind {
        case .decimal, .codable: return "\(sql)::text"
        default: return sql
        }
    }

    /// Appends `value` to `binds` in the column form of its kind; `storeIdentifier` turns
    /// this store's identifiers into `_pk`s.
    static func bind(_ value: PersistentValue, to binds: inout PostgresBindings, storeIdentifier: String) {
        switch value {
        case .null: binds.appendNull()
        case .bool(let flag): binds.append(flag)
        case .int(let number): binds.append(number)
        case .double(let number): binds.append(number)
        case .string(let text): binds.append(PostgresStrings.encode(text))
        case .data(let bytes): binds.append(ByteBuffer(bytes: bytes))
        case .date(let date): binds.append(date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid): binds.append(uuid)
        case .url(let url): binds.append(url.absoluteString)
        case .decimal(let decimal): binds.append(decimal.description)
        case .codable(let json): binds.append(String(decoding: json, as: UTF8.self))
        case .identifier(let id):
            if let key = id.primaryKey(as: Int64.self, inStore: storeIdentifier) {
                binds.append(key)
            } else {
                binds.append(encodeIdentifiers([id]))
            }
        case .identifiers(let ids): binds.append(encodeIdentifiers(ids))
        }
    }

    /// The value of `cell`, read as a column of `column`'s kind.
    ///
    /// - Throws: ``PostgresStoreError/corruptValue(table:column:expected:)`` when the cell
    ///   cannot be a value of that kind.
    static func decode(
        _ cell: PostgresCell, column: RelationalSchemaMapping.Column, storeIdentifier: String, table: String
    ) throws -> PersistentValue {
        guard cell.bytes != nil else { return column.kind == .identifiers ? .identifiers([]) : .null }
        func corrupt() -> PostgresStoreError { .corruptValue(table: table, column: column.name, expected: column.kind.rawValue) }
        do {
            switch column.kind {
            case .bool: return .bool(try cell.decode(Bool.self))
            case .int: return .int(try cell.decode(Int64.self))
            case .double: return .double(try cell.decode(Double.self))
            case .string: return .string(PostgresStrings.decode(try cell.decode(String.self)))
            case .data:
                let buffer = try cell.decode(ByteBuffer.self)
                return .data(Data(buffer.readableBytesView))
            case .date: return .date(Date(timeIntervalSinceReferenceDate: try cell.decode(Double.self)))
            case .uuid: return .uuid(try cell.decode(UUID.self))
            case .url:
                guard let url = URL(string: try cell.decode(String.self)) else { throw corrupt() }
                return .url(url)
            case .decimal:
                guard let decimal = Decimal(string: try cell.decode(String.self), locale: Locale(identifier: "en_US_POSIX")) else { throw corrupt() }
                return .decimal(decimal)
            case .codable: return .codable(Data(try cell.decode(String.self).utf8))
            case .identifier:
                if !column.crossStore, let destination = column.destination {
                    return .identifier(try PersistentIdentifier.identifier(
                        for: storeIdentifier, entityName: destination, primaryKey: try cell.decode(Int64.self)))
                }
                guard let id = decodeIdentifiers(try cell.decode(String.self))?.first else { throw corrupt() }
                return .identifier(id)
            case .identifiers:
                guard let ids = decodeIdentifiers(try cell.decode(String.self)) else { throw corrupt() }
                return .identifiers(ids)
            }
        } catch is PostgresDecodingError {
            throw corrupt()
        }
    }

    static func encodeIdentifiers(_ ids: [PersistentIdentifier]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(ids)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    private static func decodeIdentifiers(_ text: String) -> [PersistentIdentifier]? {
        try? JSONDecoder().decode([PersistentIdentifier].self, from: Data(text.utf8))
    }
}
