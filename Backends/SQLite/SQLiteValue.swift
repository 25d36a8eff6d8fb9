import Foundation
import StrataCore

/// A value as SQLite stores it: one of its five storage classes.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// Converts between ``PersistentValue``s and the column representations that
/// ``SQLiteSchemaMapping`` documents.
enum SQLiteValueCodec {
    /// The column text of a `Double` that is NaN; queries read it through ``SQLiteQueryCompiler``'s guards.
    static let notANumber = "NaN"
    /// The column value of a `Double` that is -0.0, whose sign a `REAL` column would drop: its
    /// bit pattern as a blob, which no column affinity turns back into a number.
    static let negativeZero = withUnsafeBytes(of: (-0.0 as Double).bitPattern.bigEndian) { Data($0) }

    /// The column form of `value`; `storeIdentifier` turns same-store identifiers into `_pk`s.
    static func encode(_ value: PersistentValue, storeIdentifier: String) -> SQLiteValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .int(let number): return .integer(number)
        case .double(let number):
            // SQLite's REAL holds neither: NaN would become NULL and -0.0 lose its sign.
            if number.isNaN { return .text(SQLiteValueCodec.notANumber) }
            if number == 0 && number.sign == .minus { return .blob(SQLiteValueCodec.negativeZero) }
            return .real(number)
        case .string(let text): return .text(text)
        case .data(let bytes): return .blob(bytes)
        case .date(let date): return .real(date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid): return .text(uuid.uuidString)
        case .url(let url): return .text(url.absoluteString)
        case .decimal(let decimal): return .text(decimal.description)
        case .codable(let json): return .text(String(decoding: json, as: UTF8.self))
        case .identifier(let id):
            if let key = id.primaryKey(as: Int64.self, inStore: storeIdentifier) { return .integer(key) }
            return .text(encodeIdentifiers([id]))
        case .identifiers(let ids):
            return .text(encodeIdentifiers(ids))
        }
    }

    /// Binds `value` to parameter `index` of `statement` as ``encode(_:storeIdentifier:)``
    /// would encode it, when that is NULL, an integer or a real, and returns whether it did;
    /// other values (text, blobs, identifiers, NaN and -0.0) are left to `encode`. A save
    /// binds most values this way, without an ``SQLiteValue`` in between.
    ///
    /// - Throws: ``SQLiteStoreError`` when SQLite refuses the binding.
    static func bindNumeric(_ value: PersistentValue, to statement: SQLiteStatement, at index: Int32) throws -> Bool {
        switch value {
        case .null: try statement.bind(.null, at: index)
        case .bool(let flag): try statement.bind(.integer(flag ? 1 : 0), at: index)
        case .int(let number): try statement.bind(.integer(number), at: index)
        case .double(let number):
            guard !number.isNaN, !(number == 0 && number.sign == .minus) else { return false }
            try statement.bind(.real(number), at: index)
        case .date(let date): try statement.bind(.real(date.timeIntervalSinceReferenceDate), at: index)
        default: return false
        }
        return true
    }

    /// The persistent value of a column read as `stored`, for a property of `kind`.
    ///
    /// - Throws: ``SQLiteStoreError/corruptValue`` naming the column when the stored value
    ///   cannot be a value of that kind.
    ///   The table and column names are read only then, so the row loop passes no strings.
    static func decode(
        _ stored: SQLiteValue, kind: PersistentValue.Kind, destination: @autoclosure () -> String?, storeIdentifier: String,
        table: @autoclosure () -> String, column: @autoclosure () -> String
    ) throws -> PersistentValue {
        func corrupt() -> SQLiteStoreError { .corruptValue(table: table(), column: column(), expected: kind.rawValue) }
        switch (stored, kind) {
        case (.null, .identifiers): return .identifiers([])
        case (.null, _): return .null
        case (.integer(let number), .bool): return .bool(number != 0)
        case (.integer(let number), .int): return .int(number)
        case (.integer(let number), .double): return .double(Double(number))
        case (.real(let number), .double): return .double(number)
        case (.text(notANumber), .double): return .double(.nan)
        case (.blob(negativeZero), .double): return .double(-0.0)
        case (.text(let text), .string): return .string(text)
        case (.blob(let bytes), .data): return .data(bytes)
        case (.real(let seconds), .date): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.integer(let seconds), .date): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.text(let text), .uuid):
            guard let uuid = UUID(uuidString: text) else { throw corrupt() }
            return .uuid(uuid)
        case (.text(let text), .url):
            guard let url = URL(string: text) else { throw corrupt() }
            return .url(url)
        case (.text(let text), .decimal):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw corrupt() }
            return .decimal(decimal)
        case (.integer(let number), .decimal): return .decimal(Decimal(number))
        case (.text(let text), .codable): return .codable(Data(text.utf8))
        case (.integer(let key), .identifier):
            guard let destination = destination() else { throw corrupt() }
            return .identifier(try PersistentIdentifier.identifier(for: storeIdentifier, entityName: destination, primaryKey: key))
        case (.text(let text), .identifier):
            guard let id = decodeIdentifiers(text)?.first else { throw corrupt() }
            return .identifier(id)
        case (.text(let text), .identifiers):
            guard let ids = decodeIdentifiers(text) else { throw corrupt() }
            return .identifiers(ids)
        default:
            throw corrupt()
        }
    }

    private static func encodeIdentifiers(_ ids: [PersistentIdentifier]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(ids)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    private static func decodeIdentifiers(_ text: String) -> [PersistentIdentifier]? {
        try? JSONDecoder().decode([PersistentIdentifier].self, from: Data(text.utf8))
    }
}
