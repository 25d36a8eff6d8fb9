import Foundation
import NIOCore
import PostgresNIO
import StrataCore

/// Inserts of a table without `#Unique` constraints, many rows per statement: the keys are
/// drawn from the table's sequence first (one query), then each chunk of rows is one
/// `INSERT … SELECT … FROM unnest($1, $2, …)` whose parameters are whole columns, sent as
/// binary PostgreSQL arrays. A save of N rows then takes a handful of round trips instead of N.
struct PostgresBatchInsert {
    /// How many rows one statement carries.
    static let chunkSize = 5_000

    let store: PostgresStore
    let table: RelationalSchemaMapping.Table

    /// `count` new keys of the table, ascending.
    func drawKeys(_ count: Int, on connection: PostgresConnection) throws -> [Int64] {
        var binds = PostgresBindings()
        binds.append(store.writer.qualified(table.tableName))
        binds.append(Int64(count))
        let rows = try store.pool.query(
            "SELECT nextval(pg_get_serial_sequence($1, '\(RelationalSchemaMapping.primaryKey)')) FROM generate_series(1, $2)", binds,
            on: connection)
        return try rows.map { try $0.decode(Int64.self) }.sorted()
    }

    /// Writes `rows` with `keys`, a chunk per statement; `value` gives each row's value of a
    /// column, with references to models of this save already resolved.
    func insert(
        _ rows: [SnapshotColumns], keys: [Int64], on connection: PostgresConnection,
        value: (SnapshotColumns, Int) -> PersistentValue
    ) throws {
        let sql = statement()
        for start in stride(from: 0, to: rows.count, by: Self.chunkSize) {
            let range = start..<min(start + Self.chunkSize, rows.count)
            var binds = PostgresBindings()
            binds.append(PostgresData(type: .int8Array, value: Self.array(of: 20, count: range.count) { buffer in
                for key in keys[range] { Self.write(.int(key), kind: .int, into: &buffer) }
            }))
            for (index, column) in table.columns.enumerated() {
                let form = Self.arrayForm(column)
                binds.append(PostgresData(type: form.arrayType, value: Self.array(of: form.elementOID, count: range.count) { buffer in
                    for row in rows[range] { Self.write(value(row, index), kind: form.kind, into: &buffer) }
                }))
            }
            try store.pool.execute(sql, binds, on: connection)
        }
    }

    /// `INSERT INTO t ("_pk", "a", …) SELECT u.c0, u.c1, … FROM unnest($1, $2, …) AS u(c0, c1, …)`,
    /// with casts where a column's array is sent as text.
    private func statement() -> String {
        let names = ([RelationalSchemaMapping.primaryKey] + table.columns.map(\.name)).map(SQLIdentifier.quote)
        let aliases = names.indices.map { "c\($0)" }
        var selected = ["u.c0"]
        for (index, column) in table.columns.enumerated() {
            let cast = switch column.kind {
            case .decimal: "::numeric"
            case .codable: "::json"
            default: ""
            }
            selected.append("u.c\(index + 1)\(cast)")
        }
        let parameters = names.indices.map { "$\($0 + 1)" }
        return "INSERT INTO \(store.writer.qualified(table.tableName)) (\(names.joined(separator: ", "))) SELECT \(selected.joined(separator: ", ")) FROM unnest(\(parameters.joined(separator: ", "))) AS u(\(aliases.joined(separator: ", ")))"
    }

    /// How a column travels: the array type, its element type's OID, and the kind whose binary
    /// form the elements take (text for what is cast on the server).
    private static func arrayForm(_ column: RelationalSchemaMapping.Column) -> (arrayType: PostgresDataType, elementOID: UInt32, kind: PersistentValue.Kind) {
        switch column.kind {
        case .bool: return (.boolArray, 16, .bool)
        case .int: return (.int8Array, 20, .int)
        case .double, .date: return (.float8Array, 701, column.kind)
        case .uuid: return (.uuidArray, 2950, .uuid)
        case .data: return (.byteaArray, 17, .data)
        case .identifier where !column.crossStore: return (.int8Array, 20, .identifier)
        case .string, .url, .decimal, .codable, .identifier, .identifiers: return (.textArray, 25, .string)
        }
    }

    /// Writes one element of an array: its length and binary form (the bytes postgres-nio
    /// sends for a single value of the column), or the length -1 for `NULL`.
    private static func write(_ value: PersistentValue, kind: PersistentValue.Kind, into buffer: inout ByteBuffer) {
        let start = buffer.writerIndex
        buffer.writeInteger(Int32(0))
        switch value {
        case .null:
            buffer.setInteger(Int32(-1), at: start)
            return
        case .bool(let flag): buffer.writeInteger(UInt8(flag ? 1 : 0))
        case .int(let number): buffer.writeInteger(number)
        case .double(let number): buffer.writeInteger(number.bitPattern)
        case .date(let date): buffer.writeInteger(date.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let uuid): withUnsafeBytes(of: uuid.uuid) { _ = buffer.writeBytes($0) }
        case .data(let bytes): buffer.writeBytes(bytes)
        case .string(let text): buffer.writeString(PostgresStrings.encode(text))
        case .url(let url): buffer.writeString(url.absoluteString)
        case .decimal(let decimal): buffer.writeString(decimal.description)
        case .codable(let json): buffer.writeBytes(json)
        case .identifier(let id):
            // In a same-store to-one column, the key (an int8 element); in a cross-store one, the JSON text.
            if kind == .identifier, let key = id.primaryKey(as: Int64.self) {
                buffer.writeInteger(key)
            } else {
                buffer.writeString(PostgresValueCodec.encodeIdentifiers([id]))
            }
        case .identifiers(let ids): buffer.writeString(PostgresValueCodec.encodeIdentifiers(ids))
        }
        buffer.setInteger(Int32(buffer.writerIndex - start - 4), at: start)
    }

    /// A one-dimensional binary PostgreSQL array of `count` elements, whose type has OID
    /// `elementOID`, written by `elements` with ``write(_:kind:into:)``.
    private static func array(of elementOID: UInt32, count: Int, _ elements: (inout ByteBuffer) -> Void) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(Int32(1))  // dimensions
        let flags = buffer.writerIndex
        buffer.writeInteger(Int32(0))  // has nulls, set below
        buffer.writeInteger(elementOID)
        buffer.writeInteger(Int32(count))  // length of the dimension
        buffer.writeInteger(Int32(1))  // lower bound
        let first = buffer.writerIndex
        elements(&buffer)
        // A NULL element is a length of -1: look for one, rather than thread a flag through.
        var index = first
        while index < buffer.writerIndex, let length: Int32 = buffer.getInteger(at: index) {
            if length < 0 {
                buffer.setInteger(Int32(1), at: flags)
                break
            }
            index += 4 + Int(length)
        }
        return buffer
    }
}
