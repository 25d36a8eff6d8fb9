import Foundation
internal import CJSONC

/// One json-c document: the owner of its tree, its parser and the keys it was built with,
/// released together when the document is.
///
/// Parsing reports the byte offset where json-c stopped, so errors can point at the
/// broken spot in a hand-edited file. Nodes (``JSONNode``) borrow from the document and
/// are valid only while it lives; values are attached to their parent as they are made,
/// so no json-c object is ever without an owner.
final class JSONDocument {
    private let root: OpaquePointer
    /// The file the document is read from or written to, for errors.
    let file: String
    /// Keys added to objects of this document without copying, freed after the tree.
    private var keys: [String: UnsafeMutablePointer<CChar>] = [:]
    /// The parser for JSON fragments attached while building, made on first use.
    private var fragmentParser: UnsafeMutablePointer<json_tokener>?

    /// How deep nested JSON may go: the document's own four levels plus nested Codable values.
    static let maximumDepth: Int32 = 512

    private init(root: OpaquePointer, file: String) {
        self.root = root
        self.file = file
    }

    deinit {
        json_object_put(root)
        if let fragmentParser { json_tokener_free(fragmentParser) }
        for key in keys.values { free(key) }
    }

    /// A document whose top level is an empty object, to build.
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when json-c cannot allocate it.
    static func emptyObject(file: String) throws -> JSONDocument {
        JSONDocument(root: try check(json_object_new_object(), file: file, "json_object_new_object"), file: file)
    }

    /// Parses `bytes` as one complete JSON document.
    ///
    /// - Throws: ``JSONStoreError/malformedDocument(file:offset:reason:)`` with json-c's
    ///   reason and the byte offset where parsing stopped.
    static func parse(_ bytes: [UInt8], file: String) throws -> JSONDocument {
        guard let tokener = json_tokener_new_ex(maximumDepth) else {
            throw JSONStoreError.malformedDocument(file: file, offset: nil, reason: "json-c could not allocate a parser")
        }
        defer { json_tokener_free(tokener) }
        let root = try parse(bytes, with: tokener, file: file)
        return JSONDocument(root: root, file: file)
    }

    /// Parses `bytes` with `tokener` into a json-c object the caller owns.
    private static func parse(_ bytes: [UInt8], with tokener: UnsafeMutablePointer<json_tokener>, file: String) throws -> OpaquePointer {
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                json_tokener_parse_ex(tokener, chars.baseAddress, Int32(chars.count))
            }
        }
        let error = json_tokener_get_error(tokener)
        let offset = Int(json_tokener_get_parse_end(tokener))
        // A complete top-level scalar (`42`, `"text"`) leaves json-c waiting for more input.
        if error == json_tokener_continue, parsed == nil, !bytes.isEmpty {
            let end = json_tokener_parse_ex(tokener, "", 1)
            if json_tokener_get_error(tokener) == json_tokener_success, let end { return end }
            json_object_put(end)
        }
        guard error == json_tokener_success, let parsed else {
            json_object_put(parsed)
            let reason = error == json_tokener_continue
                ? "the document ends before the JSON is complete"
                : String(cString: json_tokener_error_desc(error))
            throw JSONStoreError.malformedDocument(file: file, offset: offset, reason: reason)
        }
        guard offset == bytes.count || bytes[offset...].allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) else {
            json_object_put(parsed)
            throw JSONStoreError.malformedDocument(file: file, offset: offset, reason: "unexpected text after the JSON document")
        }
        return parsed
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

    /// Calls `body` with the document as text: indented two spaces with `"key": value`
    /// spacing when `pretty`, else on one line; `/` is never escaped.
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when json-c
    ///   fails, or what `body` throws.
    func withSerialized<R>(pretty: Bool = true, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        let flags = pretty
            ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE
            : JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE
        return try withExtendedLifetime(self) {
            var length = 0
            // The text belongs to the root object and lives until the document is released.
            let text = try check(json_object_to_json_string_length(root, flags, &length), file: file, "json_object_to_json_string_length")
            return try body(UnsafeRawBufferPointer(start: text, count: length))
        }
    }

    // MARK: Building

    /// A key string owned by the document, for adding members without copying the key.
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

    /// A value to create in the document.
    enum Value {
        case null
        case bool(Bool)
        case int(Int64)
        case unsigned(UInt64)
        /// A finite double with the text to write for it (the shortest that reads back exactly).
        case double(Double, text: String)
        case string(String)
        case object
        case array(capacity: Int)
        /// JSON text, parsed and attached as a nested value.
        case json([UInt8])
    }

    /// Creates `value` as the member `key` of `object` (which must not have that member yet).
    ///
    /// - Throws: ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when json-c
    ///   fails, or ``JSONStoreError/malformedDocument(file:offset:reason:)`` when `.json` text is not JSON.
    @discardableResult
    func add(_ value: Value, forKey key: Key, to object: JSONNode) throws -> JSONNode {
        let made = try make(value)
        if json_object_object_add_ex(object.pointer, key.pointer, made, UInt32(JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)) != 0 {
            json_object_put(made)
            try check(Int32(-1), file: file, "json_object_object_add_ex")
        }
        return JSONNode(pointer: made)
    }

    /// Creates `value` at the end of `array`.
    ///
    /// - Throws: As ``add(_:forKey:to:)``.
    @discardableResult
    func append(_ value: Value, to array: JSONNode) throws -> JSONNode {
        let made = try make(value)
        if json_object_array_add(array.pointer, made) != 0 {
            json_object_put(made)
            try check(Int32(-1), file: file, "json_object_array_add")
        }
        return JSONNode(pointer: made)
    }

    /// A new json-c object the caller owns; `nil` is JSON null.
    private func make(_ value: Value) throws -> OpaquePointer? {
        switch value {
        case .null:
            return nil
        case .bool(let value):
            return try check(json_object_new_boolean(value ? 1 : 0), file: file, "json_object_new_boolean")
        case .int(let value):
            return try check(json_object_new_int64(value), file: file, "json_object_new_int64")
        case .unsigned(let value):
            return try check(json_object_new_uint64(value), file: file, "json_object_new_uint64")
        case .double(let value, let text):
            return try check(json_object_new_double_s(value, text), file: file, "json_object_new_double_s")
        case .string(var value):
            let made = value.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    chars.isEmpty ? json_object_new_string("") : json_object_new_string_len(chars.baseAddress, Int32(chars.count))
                }
            }
            return try check(made, file: file, "json_object_new_string_len")
        case .object:
            return try check(json_object_new_object(), file: file, "json_object_new_object")
        case .array(let capacity):
            return try check(json_object_new_array_ext(Int32(clamping: max(capacity, 1))), file: file, "json_object_new_array_ext")
        case .json(let bytes):
            if fragmentParser == nil {
                fragmentParser = try check(json_tokener_new_ex(Self.maximumDepth), file: file, "json_tokener_new_ex")
            }
            json_tokener_reset(fragmentParser)
            return try Self.parse(bytes, with: fragmentParser!, file: file)
        }
    }
}
