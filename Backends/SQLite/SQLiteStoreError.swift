/// Failures of the SQLite store that are not SQLite's own errors.
public enum SQLiteStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A column holds a value that cannot be a value of the property's kind.
    case corruptValue(table: String, column: String, expected: String)
    /// The file exists but is not a SQLite database; it was left untouched.
    case notADatabase(path: String)
    /// The file is a SQLite database that Strata did not create; it was left untouched.
    case foreignDatabase(path: String, tables: [String])
    /// The database was written by a newer Strata file format.
    case unsupportedFormat(path: String, version: String)
    /// The store is read-only (`allowsSave: false`), or a read-only store's file is missing.
    case readOnly(path: String)
    /// A file of an `.externalStorage` attribute is missing or unreadable.
    case missingExternalData(path: String)
    /// The SQLite library in use lacks a feature the store needs.
    case missingFeature(String)

    /// What is wrong and where.
    public var description: String {
        switch self {
        case .corruptValue(let table, let column, let expected):
            "the column \(table).\(column) holds a value that is not a \(expected)"
        case .notADatabase(let path):
            "\(path) is not a SQLite database; it was not opened or changed"
        case .foreignDatabase(let path, let tables):
            "\(path) is a SQLite database that Strata did not create (tables: \(tables.joined(separator: ", "))); it was not changed"
        case .unsupportedFormat(let path, let version):
            "\(path) uses Strata store format \(version), which this version cannot read; it was not changed"
        case .readOnly(let path):
            "the store \(path) is read-only (allowsSave is false), or does not exist and cannot be created read-only"
        case .missingExternalData(let path):
            "the externally stored data file \(path) is missing or unreadable"
        case .missingFeature(let feature):
            "the SQLite library in use was built without \(feature), which the store needs"
        }
    }
}

