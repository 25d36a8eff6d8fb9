import Foundation
internal import CJSONC

/// One parsed json-c document: the owner of its tree and of the keys it is read with,
/// released together when the document is.
///
/// Parsing reports the byte offset where json-c stopped, so errors can point at the
/// broken spot in a hand-edited file. Nodes (``JSONNode``) borrow from the document and
/// are valid only while it lives. Documents are written with ``JSONTextWriter``.
final class JSONDocument {
    private let root: OpaquePointer
    /// The file the document is read from, for errors.
    let file: String
    /// Member names looked up in this document, as C strings made once, freed after the tree.
    private var keys: [String: UnsafeMutablePointer<CChar>] = [:]
    /// For a document parsed by its outline: its text, whose entity arrays the tree holds empty.
    private let text: [UInt8]
    /// For a document parsed by its outline: each entity's array of records in ``text``.
    private let recordArrays: [String: JSONOutline.Entity]

    /// How deep nested JSON may go: the document's own four levels plus nested Codable values.
    static let maximumDepth: Int32 = 512

    private init(root: OpaquePointer, file: String, text: [UInt8] = [], recordArrays: [String: JSONOutline.Entity] = [:]) {
        self.root = root
        self.file = file
        self.text = text
        self.recordArrays = recordArrays
    }

    deinit {
        json_object_put(root)
        for key in keys.values { free(key) }
    }

    /// Parses `bytes` as one complete JSON document.
    ///
    /// - Throws: ``JSONStoreError/malformedDocument(file:offset:reason:)`` with json-c's
    ///   reason and the byte offset where parsing stopped.
    static func parse(_ bytes: [UInt8], file: String) throws -> JSONDocument {
        switch withTokener(depth: maximumDepth, { tokener in bytes.withUnsafeBytes { parseValue($0, with: tokener) } }) {
        case nil: throw JSONStoreError.malformedDocument(file: file, offset: nil, reason: "json-c could not allocate a parser")
        case .value(let root?)?: return JSONDocument(root: root, file: file)
        case .value(nil)?: throw JSONStoreError.malformedDocument(file: file, offset: bytes.count, reason: "the document is null")
        case .failure(let offset, let reason)?: throw JSONStoreError.malformedDocument(file: file, offset: offset, reason: reason)
        }
    }

    /// Parses `bytes` by its ``JSONOutline``: the top-level members whole, and each entity's
    /// array of records as an empty array, its records left to ``forEachRecord(ofEntity:in:_:)``,
    /// which parses one at a time. `nil` when the outline scan gives up or a member does not
    /// parse; the caller then parses the document whole, which names what is wrong.
    static func parseByOutline(_ bytes: [UInt8], file: String) -> JSONDocument? {
        bytes.withUnsafeBytes { text -> JSONDocument? in
            guard let outline = JSONOutline(text) else { return nil }
            return withTokener(depth: memberDepth) { tokener -> JSONDocument? in
                guard let root = json_object_new_object() else { return nil }
                var recordArrays: [String: JSONOutline.Entity] = [:]
                for member in outline.members {
                    let value: OpaquePointer?
                    if member.name == "entities", let entities = outline.entities {
                        value = json_object_new_object()
                        for entity in entities {
                            recordArrays[entity.name] = entity
                            guard value != nil, json_object_object_add(value, entity.name, json_object_new_array()) == 0 else {
                                json_object_put(value)
                                json_object_put(root)
                                return nil
                            }
                        }
                    } else {
                        guard case .value(let parsed) = parseValue(UnsafeRawBufferPointer(rebasing: text[member.value]), with: tokener) else {
                            json_object_put(root)
                            return nil
                        }
                        value = parsed
                    }
                    guard json_object_object_add(root, member.name, value) == 0 else {
                        json_object_put(value)
                        json_object_put(root)
                        return nil
                    }
                }
                return JSONDocument(root: root, file: file, text: bytes, recordArrays: recordArrays)
            } ?? nil
        }
    }

    /// How deep a top-level member's value may nest when parsed alone: no deeper than in
    /// the whole document, one level under the top-level object (one less, to be safe).
    private static let memberDepth = maximumDepth - 2
    /// How deep a record may nest when parsed alone: three levels under the top-level
    /// object (`entities`, the entity's array, the record), and one less, to be safe.
    private static let recordDepth = maximumDepth - 4

    /// A document parsed by its outline whose records do not read as the whole parse would
    /// read them; the caller parses the document whole for the error.
    struct OutlineFailure: Error {}

    /// Calls `body` with the index and node of each record in `records`, the array the
    /// entity `name` has under `entities`, in document order.
    ///
    /// For a document parsed by its outline, each record is parsed here, right before `body`
    /// sees it, and freed when `body` returns: `body` must not keep the node.
    ///
    /// - Throws: What `body` throws; for a document parsed by its outline, ``OutlineFailure``
    ///   when a record is not a JSON object or the array is not JSON.
    func forEachRecord(ofEntity name: String, in records: JSONNode, _ body: (Int, JSONNode) throws -> Void) throws {
        guard let array = recordArrays[name] else {
            for index in 0..<records.count { try body(index, records.element(at: index)) }
            return
        }
        let read: Void? = try Self.withTokener(depth: Self.recordDepth) { tokener in
            try text.withUnsafeBytes { text in
                for (index, element) in array.elements.enumerated() {
                    guard text[element.lowerBound] == UInt8(ascii: "{"),
                        case .value(let record?) = Self.parseValue(UnsafeRawBufferPointer(rebasing: text[element]), with: tokener)
                    else { throw OutlineFailure() }
                    defer { json_object_put(record) }
                    try body(index, JSONNode(pointer: record))
                }
            }
        }
        if read == nil { throw OutlineFailure() }
    }

    /// The array `records` of the entity `name` as compact JSON text, for an entity the
    /// schema does not hold; parsed here for a document parsed by its outline.
    ///
    /// - Throws: ``OutlineFailure`` when the array is not JSON.
    func plainText(ofEntity name: String, in records: JSONNode) throws -> [UInt8] {
        guard let range = recordArrays[name]?.value else { return records.plainText }
        let parsed = Self.withTokener(depth: Self.memberDepth - 1) { tokener in
            text.withUnsafeBytes { Self.parseValue(UnsafeRawBufferPointer(rebasing: $0[range]), with: tokener) }
        }
        guard case .value(let array)? = parsed else { throw OutlineFailure() }
        defer { json_object_put(array) }
        return JSONNode(pointer: array).plainText
    }

    /// Runs `body` with a json-c parser that is strict, checks that strings are UTF-8 and
    /// refuses values nested deeper than `depth`; `nil` when json-c cannot allocate one.
    private static func withTokener<R>(depth: Int32, _ body: (UnsafeMutablePointer<json_tokener>) throws -> R) rethrows -> R? {
        guard let tokener = json_tokener_new_ex(depth) else { return nil }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
        return try body(tokener)
    }

    /// What parsing a text as one JSON value gave.
    private enum Parsed {
        /// The value, which the caller owns; `nil` is JSON null.
        case value(OpaquePointer?)
        /// The text is not one JSON value: json-c's reason, and the offset where it stopped.
        case failure(offset: Int, reason: String)
    }

    /// Parses all of `text` as one JSON value, with a fresh state of `tokener`.
    private static func parseValue(_ text: UnsafeRawBufferPointer, with tokener: UnsafeMutablePointer<json_tokener>) -> Parsed {
        json_tokener_reset(tokener)
        let parsed = json_tokener_parse_ex(tokener, text.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(text.count))
        let error = json_tokener_get_error(tokener)
        let offset = Int(json_tokener_get_parse_end(tokener))
        // A complete top-level scalar (`42`, `"text"`) leaves json-c waiting for more input.
        if error == json_tokener_continue, parsed == nil, !text.isEmpty {
            let end = json_tokener_parse_ex(tokener, "", 1)
            if json_tokener_get_error(tokener) == json_tokener_success { return .value(end) }
            json_object_put(end)
        }
        guard error == json_tokener_success else {
            json_object_put(parsed)
            let reason = error == json_tokener_continue
                ? "the document ends before the JSON is complete"
                : String(cString: json_tokener_error_desc(error))
            return .failure(offset: offset, reason: reason)
        }
        guard offset == text.count || text[offset...].allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) else {
            json_object_put(parsed)
            return .failure(offset: offset, reason: "unexpected text after the JSON document")
        }
        return .value(parsed)
    }

    /// The top-level value.
    var rootNode: JSONNode { JSONNode(pointer: root) }

    /// Whether the document's top level is a JSON object.
    var isObject: Bool { json_object_get_type(root) == json_type_object }

    /// The keys of the top-level object, in document order; empty unless it is an object.
    var topLevelKeys: [String] {
        var keys: [String] = []
        rootNode.forEachMember { key, _ in keys.append(key) }
        return keys
    }

    /// Calls `body` with the document as text, as json-c lays it out: indented two spaces,
    /// `"key": value`, `/` never escaped (``JSONTextWriter`` writes the same layout).
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when json-c
    ///   fails, or what `body` throws.
    func withSerialized<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE
        return try withExtendedLifetime(self) {
            var length = 0
            // The text belongs to the root object and lives until the document is released.
            let text = try check(json_object_to_json_string_length(root, flags, &length), file: file, "json_object_to_json_string_length")
            return try body(UnsafeRawBufferPointer(start: text, count: length))
        }
    }

    // MARK: Keys

    /// A member name owned by the document, for looking members up without converting the name each time.
    struct Key {
        /// The key's C string, owned by the document.
        let pointer: UnsafePointer<CChar>
    }

    /// The document's copy of `name`, made once per document.
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when memory runs out.
    func key(_ name: String) throws -> Key {
        if let existing = keys[name] { return Key(pointer: existing) }
        let copy = try check(strdup(name), file: file, "strdup")
        keys[name] = copy
        return Key(pointer: copy)
    }
}
