import Foundation
import StrataCore
internal import CSQLite

/// The SQL functions and collations that let compiled filters and sorts use Foundation's
/// string semantics, registered on every connection by ``register(on:)``.
///
/// Each is implemented in Swift with the very Foundation call that
/// `FilterEvaluator` uses, so SQL and in-memory evaluation agree. They take text and
/// return `NULL` when an argument is `NULL`, as Swift's `nil` propagates. Localized ones
/// read the current locale, so they must not appear in a persistent index, `CHECK`
/// constraint or generated column.
///
/// | name | kind | meaning |
/// |---|---|---|
/// | `strata_localized_standard_contains(a, b)` | function | `a.localizedStandardContains(b)` as 0/1 (0 for an empty `b`) |
/// | `strata_case_insensitive_compare(a, b)` | function | `a.caseInsensitiveCompare(b)` as -1/0/1 |
/// | `strata_localized_compare(a, b)` | function | `a.localizedCompare(b)` as -1/0/1 |
/// | `strata_localized_standard_compare(a, b)` | function | `a.localizedStandardCompare(b)` as -1/0/1 |
/// | `strata_character_count(a)` | function | `a.count`: `Character`s (extended grapheme clusters), not code points as `length` |
/// | `strata_starts_with(a, b)` | function | `a.starts(with: b)` as 0/1, by `Character` (``CanonicalString/starts(_:with:)``) |
/// | `strata_contains(a, b)` | function | `a.contains(b)` as 0/1, by `Character` (``CanonicalString/contains(_:_:)``) |
/// | `strata_canonical` | collation | Swift's `==` and `<`: canonically equivalent strings are equal (``CanonicalString/compare(_:_:)``) |
/// | `strata_case_insensitive` | collation | orders by `caseInsensitiveCompare` |
/// | `strata_localized` | collation | orders by `localizedCompare` |
/// | `strata_localized_standard` | collation | orders by `localizedStandardCompare` |
enum SQLiteFunctions {
    /// The SQL names of the functions and collations, as compiled SQL spells them.
    enum Name {
        static let characterCount = "strata_character_count"
        /// The collation of every string comparison, sort and index, so that SQL equates and orders strings as Swift does.
        static let canonical = "strata_canonical"

        /// The function that runs `test`, answering 0 or 1.
        static func test(_ test: FilterStringTest) -> String {
            switch test {
            case .contains: "strata_contains"
            case .startsWith: "strata_starts_with"
            case .localizedStandardContains: "strata_localized_standard_contains"
            }
        }

        /// The comparison function for `order`.
        static func compare(_ order: FilterStringOrder) -> String {
            switch order {
            case .caseInsensitive: "strata_case_insensitive_compare"
            case .localized: "strata_localized_compare"
            case .localizedStandard: "strata_localized_standard_compare"
            }
        }

        /// The collation that sorts by `order`.
        static func collation(_ order: FilterStringOrder) -> String {
            switch order {
            case .caseInsensitive: "strata_case_insensitive"
            case .localized: "strata_localized"
            case .localizedStandard: "strata_localized_standard"
            }
        }
    }

    /// Registers every function and collation on `connection`.
    ///
    /// Functions are flagged `SQLITE_DETERMINISTIC` so SQLite may evaluate them once per
    /// statement for constant arguments.
    /// - Throws: ``SQLiteStoreError`` when SQLite refuses a registration.
    static func register(on connection: SQLiteConnection) throws {
        let db = connection.handle
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC

        try connection.check(sqlite3_create_function_v2(
            db, Name.test(.localizedStandardContains), 2, flags, nil,
            { context, _, arguments in
                guard let (a, b) = SQLiteFunctions.texts(arguments) else { return sqlite3_result_null(context) }
                sqlite3_result_int(context, a.localizedStandardContains(b) ? 1 : 0)
            }, nil, nil, nil), sql: nil)

        try connection.check(sqlite3_create_function_v2(
            db, Name.characterCount, 1, flags, nil,
            { context, _, arguments in
                guard let a = SQLiteFunctions.text(arguments?[0]) else { return sqlite3_result_null(context) }
                sqlite3_result_int64(context, Int64(a.count))
            }, nil, nil, nil), sql: nil)

        try connection.check(sqlite3_create_function_v2(
            db, Name.test(.startsWith), 2, flags, nil,
            { context, _, arguments in
                guard let (a, b) = SQLiteFunctions.buffers(arguments) else { return sqlite3_result_null(context) }
                sqlite3_result_int(context, CanonicalString.starts(utf8: a, with: b) ? 1 : 0)
            }, nil, nil, nil), sql: nil)

        try connection.check(sqlite3_create_function_v2(
            db, Name.test(.contains), 2, flags, nil,
            { context, _, arguments in
                guard let (a, b) = SQLiteFunctions.buffers(arguments) else { return sqlite3_result_null(context) }
                sqlite3_result_int(context, CanonicalString.contains(utf8: a, b) ? 1 : 0)
            }, nil, nil, nil), sql: nil)

        try connection.check(sqlite3_create_collation_v2(
            db, Name.canonical, SQLITE_UTF8, nil,
            { _, count1, bytes1, count2, bytes2 in
                CanonicalString.compare(utf8: bytes1, count: Int(count1), bytes2, count: Int(count2))
            }, nil), sql: nil)

        try connection.check(sqlite3_create_function_v2(
            db, Name.compare(.caseInsensitive), 2, flags, nil,
            { context, _, arguments in
                guard let (a, b) = SQLiteFunctions.texts(arguments) else { return sqlite3_result_null(context) }
                sqlite3_result_int(context, Int32(a.caseInsensitiveCompare(b).rawValue))
            }, nil, nil, nil), sql: nil)

        try connection.check(sqlite3_create_function_v2(
            db, Name.compare(.localized), 2, flags, nil,
            { context, _, arguments in
                guard let (a, b) = SQLiteFunctions.texts(arguments) else { return sqlite3_result_null(context) }
                sqlite3_result_int(context, Int32(a.localizedCompare(b).rawValue))
            }, nil, nil, nil), sql: nil)

        try connection.check(sqlite3_create_function_v2(
            db, Name.compare(.localizedStandard), 2, flags, nil,
            { context, _, arguments in
                guard let (a, b) = SQLiteFunctions.texts(arguments) else { return sqlite3_result_null(context) }
                sqlite3_result_int(context, Int32(a.localizedStandardCompare(b).rawValue))
            }, nil, nil, nil), sql: nil)

        try connection.check(sqlite3_create_collation_v2(
            db, Name.collation(.caseInsensitive), SQLITE_UTF8, nil,
            { _, count1, bytes1, count2, bytes2 in
                let (a, b) = SQLiteFunctions.collated(count1, bytes1, count2, bytes2)
                return Int32(a.caseInsensitiveCompare(b).rawValue)
            }, nil), sql: nil)

        try connection.check(sqlite3_create_collation_v2(
            db, Name.collation(.localized), SQLITE_UTF8, nil,
            { _, count1, bytes1, count2, bytes2 in
                let (a, b) = SQLiteFunctions.collated(count1, bytes1, count2, bytes2)
                return Int32(a.localizedCompare(b).rawValue)
            }, nil), sql: nil)

        try connection.check(sqlite3_create_collation_v2(
            db, Name.collation(.localizedStandard), SQLITE_UTF8, nil,
            { _, count1, bytes1, count2, bytes2 in
                let (a, b) = SQLiteFunctions.collated(count1, bytes1, count2, bytes2)
                return Int32(a.localizedStandardCompare(b).rawValue)
            }, nil), sql: nil)
    }

    // MARK: Reading arguments

    /// The UTF-8 bytes of a function argument's text, valid while the function runs, or `nil` for `NULL`.
    fileprivate static func buffer(_ value: OpaquePointer?) -> UnsafeRawBufferPointer? {
        guard let value, sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))  // after sqlite3_value_text, as SQLite requires
    }

    /// The text of a function argument, or `nil` for `NULL`.
    fileprivate static func text(_ value: OpaquePointer?) -> String? {
        buffer(value).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The texts of a two-argument function, or `nil` when either is `NULL`.
    fileprivate static func texts(_ arguments: UnsafeMutablePointer<OpaquePointer?>?) -> (String, String)? {
        guard let (a, b) = buffers(arguments) else { return nil }
        return (String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
    }

    /// The UTF-8 bytes of a two-argument function's texts, valid while the function runs,
    /// or `nil` when either is `NULL`.
    fileprivate static func buffers(_ arguments: UnsafeMutablePointer<OpaquePointer?>?) -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)? {
        guard let arguments, let a = buffer(arguments[0]), let b = buffer(arguments[1]) else { return nil }
        return (a, b)
    }

    /// The two UTF-8 strings a collation compares (not NUL-terminated).
    fileprivate static func collated(
        _ count1: Int32, _ bytes1: UnsafeRawPointer?, _ count2: Int32, _ bytes2: UnsafeRawPointer?
    ) -> (String, String) {
        func string(_ count: Int32, _ bytes: UnsafeRawPointer?) -> String {
            guard let bytes, count > 0 else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
        }
        return (string(count1, bytes1), string(count2, bytes2))
    }
}
