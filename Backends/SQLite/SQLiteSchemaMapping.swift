import StrataCore

/// How SQLiteStore lays out a schema: the tables of the core's `RelationalSchemaMapping`
/// (one per entity with an integer primary key `_pk`, one column per attribute and per
/// to-one relationship, join tables for to-many relationships without a to-one inverse).
///
/// Column representations (chosen so SQL compares and sorts like Swift where the type is
/// comparable):
///
/// | kind | column | stored as |
/// |---|---|---|
/// | bool | INTEGER | 0 or 1 |
/// | int | INTEGER | the value (`UInt64` by bit pattern) |
/// | double | REAL | the value; NaN as the TEXT `NaN` and -0.0 as an 8-byte BLOB of its bit pattern, which a REAL cannot hold (queries compare them as Swift does, so a double column's index serves equality and ranges only through a scan) |
/// | string | TEXT | the value |
/// | data | BLOB | the bytes |
/// | date | REAL | seconds since 2001-01-01 00:00 UTC (`timeIntervalSinceReferenceDate`, exact) |
/// | uuid | TEXT | upper-case canonical form (sorts like the bytes) |
/// | url | TEXT | `absoluteString` |
/// | decimal | TEXT | `Decimal.description` (exact); compared in SQL as REAL |
/// | codable | TEXT | JSON with sorted keys |
/// | to-one | INTEGER | the destination's `_pk`, or TEXT holding the identifier as JSON when the destination lives in another store |
typealias SQLiteSchemaMapping = RelationalSchemaMapping
