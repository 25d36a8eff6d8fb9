import Foundation
import StrataCore

/// Reads and writes single property values in the document's notation.
///
/// Integers are JSON integers (unsigned attributes as their unsigned value), doubles JSON
/// numbers in the shortest text that reads back exactly (non-finite ones as the strings
/// `"NaN"`, `"+Infinity"`, `"-Infinity"`), dates ISO 8601 strings (``JSONTimestamp``),
/// data base64 strings, decimals, UUIDs and URLs strings, `Codable` values nested JSON,
/// and identifiers of this store's models the decimal string of their key.
struct JSONValueCoding {
    /// The store's identifier, which identifiers written as plain keys belong to.
    let storeIdentifier: String
    /// The document's path, for errors.
    let file: String

    // MARK: Writing

    /// Adds `value` as the member `key` of `object`.
    ///
    /// - Throws: ``JSONStoreError/unrepresentableValue(file:path:reason:)`` for a value the
    ///   format cannot hold, or ``JSONStoreError/malformedDocument(file:offset:reason:)`` for
    ///   a `Codable` value whose data is not JSON.
    func add(
        _ value: PersistentValue, role: JSONEntityLayout.Role, forKey key: JSONTextWriter.Key, to object: JSONTextWriter.Node,
        in document: JSONTextWriter, path: @autoclosure () -> String
    ) throws {
        switch value {
        case .identifiers(let identifiers):
            let array = try document.add(.array, forKey: key, to: object)
            let destination = Self.destination(of: role)
            for identifier in identifiers {
                try document.append(try self.value(for: identifier, destination: destination), to: array)
            }
        default:
            try document.add(try self.value(for: value, role: role, path: path()), forKey: key, to: object)
        }
    }

    /// The document value for a non-list value.
    private func value(for value: PersistentValue, role: JSONEntityLayout.Role, path: @autoclosure () -> String) throws -> JSONTextWriter.Value {
        switch value {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value):
            if case .attribute(_, true, _) = role { return .unsigned(UInt64(bitPattern: value)) }
            return .int(value)
        case .double(let value):
            if value.isNaN { return .string("NaN") }
            if value.isInfinite { return .string(value < 0 ? "-Infinity" : "+Infinity") }
            return .double(value, text: value.description)
        case .string(let value): return .string(value)
        case .data(let value): return .string(value.base64EncodedString())
        case .date(let value):
            guard let text = JSONTimestamp.string(for: value) else {
                let interval = value.timeIntervalSinceReferenceDate
                if interval.isNaN { return .string("NaN") }
                if interval.isInfinite { return .string(interval < 0 ? "-Infinity" : "+Infinity") }
                throw JSONStoreError.unrepresentableValue(
                    file: file, path: path(), reason: "the date is too far from the present for ISO 8601 text")
            }
            return .string(text)
        case .uuid(let value): return .string(value.uuidString)
        case .url(let value): return .string(value.absoluteString)
        case .decimal(let value): return .string(value.description)
        case .identifier(let identifier): return try self.value(for: identifier, destination: Self.destination(of: role))
        case .identifiers: preconditionFailure("lists are added element by element")
        case .codable(let data): return .json(Array(data))
        }
    }

    /// A model's identifier: the decimal key for this store's models of `destination`, else
    /// the identifier's own encoded JSON object.
    private func value(for identifier: PersistentIdentifier, destination: String?) throws -> JSONTextWriter.Value {
        if identifier.entityName == destination, let key = identifier.primaryKey(as: Int64.self, inStore: storeIdentifier) {
            return .string(String(key))
        }
        return .json(Array(try JSONEncoder().encode(identifier)))
    }

    private static func destination(of role: JSONEntityLayout.Role) -> String? {
        switch role {
        case .toOne(let destination), .toMany(let destination): destination
        case .attribute: nil
        }
    }

    // MARK: Reading

    /// The value `node` holds for a property with `role`.
    ///
    /// - Throws: ``JSONStoreError/wrongShape(file:path:reason:)`` naming `path` when the node
    ///   does not hold such a value.
    func value(of node: JSONNode, role: JSONEntityLayout.Role, path: @autoclosure () -> String) throws -> PersistentValue {
        switch role {
        case .toOne(let destination):
            if node.isNull { return .null }
            return .identifier(try identifier(in: node, destination: destination, path: path()))
        case .toMany(let destination):
            if node.isNull { return .identifiers([]) }
            guard node.isArray else { throw wrong(path(), "a to-many relationship is an array of identifiers, not \(node.typeName)") }
            var identifiers: [PersistentIdentifier] = []
            identifiers.reserveCapacity(node.count)
            for index in 0..<node.count {
                identifiers.append(try identifier(in: node.element(at: index), destination: destination, path: "\(path())[\(index)]"))
            }
            return .identifiers(identifiers)
        case .attribute(let kind, let unsigned, _):
            if node.isNull { return .null }
            return try attribute(of: node, kind: kind, unsigned: unsigned, path: path())
        }
    }

    private func attribute(of node: JSONNode, kind: PersistentValue.Kind, unsigned: Bool, path: @autoclosure () -> String) throws -> PersistentValue {
        switch kind {
        case .bool:
            guard let value = node.bool else { throw wrong(path(), "expected true or false, found \(node.typeName)") }
            return .bool(value)
        case .int:
            if unsigned, let value = node.uint64 { return .int(Int64(bitPattern: value)) }
            if !unsigned, let value = node.int64 { return .int(value) }
            if node.isDouble, let value = node.double, let exact = Int64(exactly: value) { return .int(exact) }
            throw wrong(path(), node.isInteger
                ? "the integer does not fit a \(unsigned ? "64-bit unsigned" : "64-bit signed") integer"
                : "expected an integer, found \(node.typeName)")
        case .double:
            if let value = node.double { return .double(value) }
            switch node.string {
            case "NaN": return .double(.nan)
            case "+Infinity", "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            default: throw wrong(path(), "expected a number, found \(node.typeName)")
            }
        case .string:
            guard let value = node.string else { throw wrong(path(), "expected a string, found \(node.typeName)") }
            return .string(value)
        case .data:
            guard let text = node.string, let value = Data(base64Encoded: text) else {
                throw wrong(path(), "expected data as a base64 string")
            }
            return .data(value)
        case .date:
            if let value = node.withUTF8({ JSONTimestamp.date(from: $0) }) ?? nil { return .date(value) }
            switch node.string {
            case "NaN": return .date(Date(timeIntervalSinceReferenceDate: .nan))
            case "+Infinity": return .date(Date(timeIntervalSinceReferenceDate: .infinity))
            case "-Infinity": return .date(Date(timeIntervalSinceReferenceDate: -.infinity))
            default: throw wrong(path(), "expected an ISO 8601 date such as \"2024-05-01T10:00:00.250Z\"")
            }
        case .uuid:
            guard let text = node.string, let value = UUID(uuidString: text) else { throw wrong(path(), "expected a UUID string") }
            return .uuid(value)
        case .url:
            guard let text = node.string, let value = URL(string: text) else { throw wrong(path(), "expected a URL string") }
            return .url(value)
        case .decimal:
            // A decimal is a string; a hand-written JSON number is read from its own text.
            let text = node.string ?? ((node.isInteger || node.isDouble) ? String(decoding: node.plainText, as: UTF8.self) : nil)
            guard let text, let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw wrong(path(), "expected a decimal number as a string such as \"12.50\"")
            }
            return .decimal(value)
        case .identifier:
            return .identifier(try identifier(in: node, destination: nil, path: path()))
        case .identifiers:
            guard node.isArray else { throw wrong(path(), "expected an array of identifiers") }
            return .identifiers(try (0..<node.count).map { try identifier(in: node.element(at: $0), destination: nil, path: "\(path())[\($0)]") })
        case .codable:
            return .codable(Data(node.plainText))
        }
    }

    /// An identifier written as a key of `destination` in this store (`"42"` or `42`) or as an encoded identifier object.
    private func identifier(in node: JSONNode, destination: String?, path: @autoclosure () -> String) throws -> PersistentIdentifier {
        if let destination {
            if let key = node.integerKey {
                return try PersistentIdentifier.identifier(for: storeIdentifier, entityName: destination, primaryKey: key)
            }
        }
        if node.isObject, let identifier = try? JSONDecoder().decode(PersistentIdentifier.self, from: Data(node.plainText)) {
            return identifier
        }
        throw wrong(path(), destination == nil
            ? "expected an encoded identifier object"
            : "expected the identifier of a \(destination!) as a string such as \"42\", or an encoded identifier object")
    }

    private func wrong(_ path: String, _ reason: String) -> JSONStoreError {
        JSONStoreError.wrongShape(file: file, path: path, reason: reason)
    }
}
