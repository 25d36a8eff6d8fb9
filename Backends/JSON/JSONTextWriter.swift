import Foundation

/// Writes a document as text, value by value, in the layout json-c's pretty printer gives
/// (`JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE`):
/// two spaces per level, `"key": value`, `/` not escaped.
///
/// A save wrote its document by building a json-c tree (an allocation per object, value and
/// hash table), printing it and freeing it again: about a third of a JSON store's save and
/// reload. The writer appends to one buffer instead. Containers are written in document
/// order: adding to a container closes every container opened inside it since, and adding
/// to a container that was closed already is a programming error.
///
/// Nested JSON (`.json`: `Codable` values, the schema, members the store does not know) is
/// checked and laid out by json-c, as the tree did, and indented to its depth.
final class JSONTextWriter {
    /// The file the document is written to, for errors.
    let file: String
    /// The text so far. Unchecked for exclusivity, as is `open`: the writer appends in many
    /// small steps, each of which paid two runtime calls for the dynamic check, and only the
    /// writer's own methods touch them, one at a time.
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    /// The open containers, outermost first: the root object is always the first.
    @exclusivity(unchecked) private var open: [Container] = [Container(isObject: true, hasMembers: false)]

    private struct Container {
        let isObject: Bool
        var hasMembers: Bool
    }

    /// A container to add to: its depth in the document (the root object is 0).
    struct Node {
        fileprivate let depth: Int
    }

    /// A member name, escaped and quoted once.
    struct Key {
        fileprivate let quoted: [UInt8]
    }

    /// A value to write.
    enum Value {
        case null
        case bool(Bool)
        case int(Int64)
        case unsigned(UInt64)
        /// A finite double with the text to write for it (the shortest that reads back exactly).
        case double(Double, text: String)
        case string(String)
        case object
        case array
        /// JSON text, checked and laid out as a nested value.
        case json([UInt8])
    }

    /// A writer of a document whose top level is an object, holding `capacity` bytes before it grows.
    init(file: String, capacity: Int = 0) {
        self.file = file
        bytes.reserveCapacity(max(capacity, 64))
        bytes.append(UInt8(ascii: "{"))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The top-level object.
    var rootNode: Node { Node(depth: 0) }

    /// `name` as a member name.
    func key(_ name: String) -> Key {
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        Self.appendEscaped(name, to: &quoted)
        quoted.append(contentsOf: "\": ".utf8)
        return Key(quoted: quoted)
    }

    /// Writes `value` as the member `key` of `object`, which must be open.
    ///
    /// - Returns: The value as a container to add to, when it is one.
    /// - Throws: ``JSONStoreError/malformedDocument(file:offset:reason:)`` when `.json` text is not JSON.
    @discardableResult
    func add(_ value: Value, forKey key: Key, to object: Node) throws -> Node {
        startEntry(in: object)
        bytes.append(contentsOf: key.quoted)
        return try write(value, depth: object.depth + 1)
    }

    /// Writes `value` at the end of `array`, which must be open.
    ///
    /// - Returns: As ``add(_:forKey:to:)``.
    /// - Throws: As ``add(_:forKey:to:)``.
    @discardableResult
    func append(_ value: Value, to array: Node) throws -> Node {
        startEntry(in: array)
        return try write(value, depth: array.depth + 1)
    }

    /// Closes every open container and calls `body` with the document's text.
    ///
    /// - Throws: What `body` throws.
    func withSerialized<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        close(downTo: 0)
        return try bytes.withUnsafeBytes(body)
    }

    /// Closes the containers inside `container`, then writes what comes before its next
    /// entry: a comma after a previous one, a new line and the indentation.
    private func startEntry(in container: Node) {
        precondition(container.depth < open.count, "JSONTextWriter: a container was written to after it was closed")
        close(downTo: container.depth + 1)
        if open[container.depth].hasMembers {
            bytes.append(UInt8(ascii: ","))
            bytes.append(UInt8(ascii: "\n"))
        }
        open[container.depth].hasMembers = true
        indent(container.depth + 1)
    }

    /// Closes open containers until `count` are left.
    private func close(downTo count: Int) {
        while open.count > count {
            let closing = open.removeLast()
            let depth = open.count
            if closing.hasMembers { bytes.append(UInt8(ascii: "\n")) }
            indent(depth)
            bytes.append(closing.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    private func indent(_ depth: Int) {
        let count = depth * 2
        if count <= Self.spaces.count {
            bytes.append(contentsOf: Self.spaces[..<count])
        } else {
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count))
        }
    }

    /// Indentation enough for 32 levels, appended as a slice.
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    /// Writes `value` at `depth`, opening it when it is a container.
    private func write(_ value: Value, depth: Int) throws -> Node {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): bytes.append(contentsOf: String(value).utf8)
        case .unsigned(let value): bytes.append(contentsOf: String(value).utf8)
        case .double(_, let text): bytes.append(contentsOf: text.utf8)
        case .string(let value):
            bytes.append(UInt8(ascii: "\""))
            Self.appendEscaped(value, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        case .object, .array:
            let isObject = if case .object = value { true } else { false }
            bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            bytes.append(UInt8(ascii: "\n"))
            open.append(Container(isObject: isObject, hasMembers: false))
        case .json(let text):
            // Laid out by json-c at the top level, then moved in: its new lines are all
            // structural (a string's are escaped), so each takes this depth's indentation.
            let nested = try JSONDocument.parse(text, file: file)
            try nested.withSerialized { laidOut in
                for byte in laidOut {
                    bytes.append(byte)
                    if byte == UInt8(ascii: "\n") { indent(depth) }
                }
            }
        }
        return Node(depth: depth)
    }

    /// Appends `text` escaped as json-c escapes it: `"`, `\`, backspace, form feed, new line,
    /// carriage return and tab by their letters, other control characters as `\u00xx` in
    /// lower-case hexadecimal; everything else, `/` and non-ASCII included, as it is.
    static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                default:
                    func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? 48 + digit : 87 + digit }
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 48, 48, hex(byte >> 4), hex(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
    }
}
