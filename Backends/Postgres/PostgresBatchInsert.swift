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
            binds.append(PostgresData(type: .int8Array, value: Self.array(of: 20, keys[range].map { Self.element(.int($0), kind: .int) })))
            for (index, column) in table.columns.enumerated() {
                let form = Self.arrayForm(column)
                let elements = rows[range].map { Self.element(value($0, index), kind: form.kind) }
                binds.append(PostgresData(type: form.arrayType, value: Self.array(of: form.elementOID, elements)))
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

    /// The binary form of one element, or `nil` for `NULL`: the same bytes postgres-nio sends
    /// for a single value of the column.
    private static func element(_ value: PersistentValue, kind: PersistentValue.Kind) -> [UInt8]? {
        func bigEndian<T: FixedWidthInteger>(_ number: T) -> [UInt8] { withUnsafeBytes(of: number.bigEndian, Array.init) }
        switch value {
        case .null: return nil
        case .bool(let flag): return [flag ? 1 : 0]
        case .int(let number): return bigEndian(number)
        case .double(let number): return bigEndian(number.bitPattern)
        case .date(let date): return bigEndian(date.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let uuid): return withUnsafeBytes(of: uuid.uuid, Array.init)
        case .data(let bytes): return Array(bytes)
        case .string(let text): return Array(PostgresStrings.encode(text).utf8)
        case .url(let url): return Array(url.absoluteString.utf8)
        case .decimal(let decimal): return Array(decimal.description.utf8)
        case .codable(let json): return Array(json)
        case .identifier(let id):
            // In a same-store to-one column, the key (an int8 element); in a cross-store one, the JSON text.
            if kind == .identifier, let key = id.primaryKey(as: Int64.self) { return bigEndian(key) }
            return Array(PostgresValueCodec.encodeIdentifiers([id]).utf8)
        case .identifiers(let ids): return Array(PostgresValueCodec.encodeIdentifiers(ids).utf8)
        }
    }

    /// A one-dimensional binary PostgreSQL array of `elements`, whose type has OID `elementOID`.
    private static func array(of elementOID: UInt32, _ elements: [[UInt8]?]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        buffer.writeInteger(Int32(1))  // dimensions
        buffer.writeInteger(Int32(elements.contains(where: { $0 == nil }) ? 1 : 0))  // has nulls
        buffer.writeInteger(elementOID)
        buffer.writeInteger(Int32(elements.count))  // length of the dimension
        buffer.writeInteger(Int32(1))  // lower bound
        for element in elements {
            if let element {
                buffer.writeInteger(Int32(element.count))
                buffer.writeBytes(element)
            } else {
                buffer.writeInteger(Int32(-1))
            }
        }
        return buffer
    }
}
