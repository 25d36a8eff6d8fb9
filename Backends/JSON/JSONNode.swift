import Foundation
internal import CJSONC

/// A value inside a ``JSONDocument``, borrowed: valid only while its document lives.
///
/// JSON `null` is a node whose pointer is `nil`, as in json-c.
struct JSONNode {
    /// The json-c object; `nil` is JSON null. Owned by the document.
    let pointer: OpaquePointer?

    init(pointer: OpaquePointer?) {
        self.pointer = pointer
    }

    /// The JSON type's name, for error messages: "object", "array", "string", ...
    var typeName: String {
        switch json_object_get_type(pointer) {
        case json_type_null: "null"
        case json_type_boolean: "a boolean"
        case json_type_double: "a number with a fraction"
        case json_type_int: "an integer"
        case json_type_object: "an object"
        case json_type_array: "an array"
        case json_type_string: "a string"
        default: "an unknown JSON value"
        }
    }

    var isNull: Bool { pointer == nil }
    var isObject: Bool { json_object_get_type(pointer) == json_type_object }
    var isArray: Bool { json_object_get_type(pointer) == json_type_array }
    var isString: Bool { json_object_get_type(pointer) == json_type_string }
    var isInteger: Bool { json_object_get_type(pointer) == json_type_int }
    var isDouble: Bool { json_object_get_type(pointer) == json_type_double }

    /// The Boolean, when the node is one.
    var bool: Bool? {
        json_object_get_type(pointer) == json_type_boolean ? json_object_get_boolean(pointer) != 0 : nil
    }

    /// The integer as a signed 64-bit value, when the node is an integer that fits.
    var int64: Int64? {
        guard isInteger else { return nil }
        let value = json_object_get_int64(pointer)
        // json-c keeps integers above Int64.max unsigned and clamps them here.
        if value == .max, json_object_get_uint64(pointer) != UInt64(Int64.max) { return nil }
        return value
    }

    /// A key written as an integer or as a string of decimal digits (`42`, `"42"`, `"-3"`).
    var integerKey: Int64? {
        if isInteger { return int64 }
        return withUTF8 { bytes -> Int64? in
            var digits = bytes[...]
            let negative = digits.first == UInt8(ascii: "-")
            if negative { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.count <= 19 else { return nil }
            var value: Int64 = 0
            for byte in digits {
                guard byte >= 48, byte <= 57 else { return nil }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 48))
                guard !overflow, !overflow2 else { return nil }
                value = sum
            }
            return negative ? -value : value
        } ?? nil
    }

    /// The integer as an unsigned 64-bit value, when the node is a non-negative integer.
    var uint64: UInt64? {
        guard isInteger else { return nil }
        let value = json_object_get_uint64(pointer)
        if value == 0, json_object_get_int64(pointer) != 0 { return nil }
        return value
    }

    /// The number as a `Double`, when the node is a number (an integer converts).
    var double: Double? {
        switch json_object_get_type(pointer) {
        case json_type_double: json_object_get_double(pointer)
        case json_type_int: int64.map(Double.init) ?? uint64.map(Double.init)
        default: nil
        }
    }

    /// The string, when the node is one.
    var string: String? {
        guard isString, let chars = json_object_get_string(pointer) else { return nil }
        let count = Int(json_object_get_string_len(pointer))
        return String(decoding: UnsafeRawBufferPointer(start: chars, count: count), as: UTF8.self)
    }

    /// Calls `body` with the string's UTF-8 bytes, when the node is a string.
    func withUTF8<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        guard isString, let chars = json_object_get_string(pointer) else { return nil }
        return try body(UnsafeRawBufferPointer(start: chars, count: Int(json_object_get_string_len(pointer))))
    }

    /// The number of elements of an array or members of an object; 0 for other values.
    var count: Int {
        switch json_object_get_type(pointer) {
        case json_type_array: Int(json_object_array_length(pointer))
        case json_type_object: Int(json_object_object_length(pointer))
        default: 0
        }
    }

    /// The element at `index` of an array.
    func element(at index: Int) -> JSONNode {
        JSONNode(pointer: json_object_array_get_idx(pointer, index))
    }

    /// The member `key` of an object (a null node for a `null` member), or `nil` when there is none.
    func member(_ key: JSONDocument.Key) -> JSONNode? {
        var value: OpaquePointer?
        guard json_object_object_get_ex(pointer, key.pointer, &value) != 0 else { return nil }
        return JSONNode(pointer: value)
    }

    /// A place among an object's members, for reading them in document order.
    struct MemberCursor {
        fileprivate var entry: UnsafeMutablePointer<lh_entry>?
    }

    /// A cursor at the first member of an object (at the end for other values).
    var firstMember: MemberCursor {
        MemberCursor(entry: isObject ? strata_json_object_first_member(pointer) : nil)
    }

    /// The member `key` of an object, as `member(_:)` finds it, reading
    /// the member at `cursor` first: when that one is `key` (the store writes a record's
    /// members in the order it reads them), the cursor moves past it and no name is hashed;
    /// otherwise the member is looked up by name and the cursor stays.
    func member(_ key: JSONDocument.Key, at cursor: inout MemberCursor) -> JSONNode? {
        if let entry = cursor.entry, strcmp(strata_json_member_key(entry), key.pointer) == 0 {
            cursor.entry = strata_json_member_next(entry)
            return JSONNode(pointer: strata_json_member_value(entry))
        }
        return member(key)
    }

    /// The member `name` of an object, or `nil` when there is none.
    func member(_ name: String) -> JSONNode? {
        var value: OpaquePointer?
        guard json_object_object_get_ex(pointer, name, &value) != 0 else { return nil }
        return JSONNode(pointer: value)
    }

    /// Calls `body` with each member of an object, in document order; nothing for other values.
    func forEachMember(_ body: (String, JSONNode) throws -> Void) rethrows {
        guard isObject else { return }
        var member = strata_json_object_first_member(pointer)
        while let current = member {
            try body(String(cString: strata_json_member_key(current)), JSONNode(pointer: strata_json_member_value(current)))
            member = strata_json_member_next(current)
        }
    }

    /// The value as compact JSON text (`/` unescaped); `null` for a null node.
    var plainText: [UInt8] {
        var length = 0
        guard let text = json_object_to_json_string_length(pointer, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &length) else {
            return Array("null".utf8)
        }
        return Array(UnsafeRawBufferPointer(start: text, count: length))
    }
}
