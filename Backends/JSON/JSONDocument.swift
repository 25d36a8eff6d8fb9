import Foundation
internal import CJSONC

/// One parsed json-c document, released when the document is.
///
/// Parsing reports the byte offset where json-c stopped, so errors can point at the
/// broken spot in a hand-edited file.
final class JSONDocument {
    private let root: OpaquePointer

    private init(root: OpaquePointer) {
        self.root = root
    }

    deinit {
        json_object_put(root)
    }

    /// Parses `bytes` as one complete JSON document.
    ///
    /// - Throws: ``JSONStoreError/malformedDocument(file:offset:reason:)`` with json-c's
    ///   reason and the byte offset where parsing stopped.
    static func parse(_ bytes: [UInt8], file: String) throws -> JSONDocument {
        guard let tokener = json_tokener_new() else {
            throw JSONStoreError.malformedDocument(file: file, offset: nil, reason: "json-c could not allocate a parser")
        }
        defer { json_tokener_free(tokener) }
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                json_tokener_parse_ex(tokener, chars.baseAddress, Int32(chars.count))
            }
        }
        let error = json_tokener_get_error(tokener)
        let offset = Int(json_tokener_get_parse_end(tokener))
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
        return JSONDocument(root: parsed)
    }

    /// Whether the document's top level is a JSON object.
    var isObject: Bool { json_object_get_type(root) == json_type_object }

    /// The keys of the top-level object, in document order; empty unless it is an object.
    var topLevelKeys: [String] {
        guard isObject else { return [] }
        var keys: [String] = []
        var iterator = json_object_iter_begin(root)
        var end = json_object_iter_end(root)
        while json_object_iter_equal(&iterator, &end) == 0 {
            keys.append(String(cString: json_object_iter_peek_name(&iterator)))
            json_object_iter_next(&iterator)
        }
        return keys
    }
}
