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

    /// How deep nested JSON may go: the document's own four levels plus nested Codable values.
    static let maximumDepth: Int32 = 512

    private init(root: OpaquePointer, file: String) {
        self.root = root
        self.file = file
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
