import StrataCore

/// The text of every statement that writes rows: INSERT, UPDATE and DELETE per entity
/// table, join-table rows, erasing and the metadata table.
///
/// Like GRDB's `DAO`, the text is built once per table and shape and kept for the life of
/// the store: the mapping never changes while a store is open, so neither does the text.
/// Names are quoted with ``SQLIdentifier``; values only ever reach SQLite as `?n`
/// parameters, bound by the caller. Queries that read rows are the query compiler's.
final class SQLiteWriteStatements: Sendable {
    /// The statements of one entity table.
    struct Table: Sendable {
        /// `INSERT INTO "T" ("a", "b") VALUES (?1, ?2)`, every column in table order.
        let insert: String
        /// `DELETE FROM "T"`: every row, for erasing.
        let deleteAll: String
        /// `SELECT "data" FROM "T" WHERE "_pk" = ?1` for each `.externalStorage` column, by column name.
        let selectExternal: [String: String]
        /// `SELECT 1 FROM "T" WHERE "_pk" = ?1`: whether a row exists.
        let exists: String
        /// `SELECT max("_pk") FROM "T"`: the highest key, one step down the b-tree.
        let highestKey: String
        /// `SELECT (SELECT min("_pk") FROM "T"), (SELECT max("_pk") FROM "T"), (SELECT count(*) FROM "T")`:
        /// each a subquery of its own, so that SQLite answers min and max from the ends of
        /// the b-tree and the count from its pages.
        let keyBounds: String
        /// `SELECT (SELECT min("_pk") FROM "T"), (SELECT max("_pk") FROM "T")`: ``keyBounds`` without the count.
        let keyRange: String
        /// `SELECT "_pk" FROM "T"`: every key, in the order of the smallest b-tree that holds them.
        let keys: String
    }

    /// The statements of one join table, seen from one side.
    struct JoinSide: Sendable, Hashable {
        /// `DELETE FROM "J" WHERE "owner" = ?1`.
        let clear: String
        /// `DELETE FROM "J" WHERE "owner" IN `, to be followed by a parenthesised list or subquery of keys.
        let clearOwners: String
        /// `INSERT OR IGNORE INTO "J" ("owner", "member") VALUES (?1, ?2)`.
        let insert: String
    }

    /// One UPDATE shape: a table and the columns it sets, in table order.
    private struct UpdateShape: Hashable {
        let table: String
        let columns: [Int]
    }

    private let tables: [String: Table]
    private let joinSides: [String: JoinSide]
    private let updates = Locked<[UpdateShape: String]>([:])

    /// Builds the statements of every table of `mapping`.
    init(mapping: SQLiteSchemaMapping) {
        let key = SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)
        var tables: [String: Table] = [:]
        var joinSides: [String: JoinSide] = [:]
        for table in mapping.orderedTables {
            let name = SQLIdentifier.quote(table.tableName)
            let insert: String
            if table.columns.isEmpty {
                insert = "INSERT INTO \(name) DEFAULT VALUES"
            } else {
                let names = table.columns.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")
                let parameters = (1...table.columns.count).map { "?\($0)" }.joined(separator: ", ")
                insert = "INSERT INTO \(name) (\(names)) VALUES (\(parameters))"
            }
            var external: [String: String] = [:]
            for column in table.columns where column.externalStorage {
                external[column.name] = "SELECT \(SQLIdentifier.quote(column.name)) FROM \(name) WHERE \(key) = ?1"
            }
            tables[table.entityName] = Table(
                insert: insert, deleteAll: "DELETE FROM \(name)",
                selectExternal: external, exists: "SELECT 1 FROM \(name) WHERE \(key) = ?1", highestKey: "SELECT max(\(key)) FROM \(name)",
                keyBounds: "SELECT (SELECT min(\(key)) FROM \(name)), (SELECT max(\(key)) FROM \(name)), (SELECT count(*) FROM \(name))",
                keyRange: "SELECT (SELECT min(\(key)) FROM \(name)), (SELECT max(\(key)) FROM \(name))", keys: "SELECT \(key) FROM \(name)")
            for property in table.properties {
                guard case .joinTable(let join, let owner, let member, _) = property else { continue }
                let joinName = SQLIdentifier.quote(join)
                joinSides[Self.joinKey(join, owner)] = JoinSide(
                    clear: "DELETE FROM \(joinName) WHERE \(SQLIdentifier.quote(owner)) = ?1",
                    clearOwners: "DELETE FROM \(joinName) WHERE \(SQLIdentifier.quote(owner)) IN ",
                    insert: "INSERT OR IGNORE INTO \(joinName) (\(SQLIdentifier.quote(owner)), \(SQLIdentifier.quote(member))) VALUES (?1, ?2)")
            }
        }
        self.tables = tables
        self.joinSides = joinSides
        self.deleteAllJoinRows = mapping.joinTables.map { "DELETE FROM \(SQLIdentifier.quote($0.name))" }
    }

    /// The statements of the table of `entityName`, or `nil` when the mapping has none.
    func table(_ entityName: String) -> Table? { tables[entityName] }

    /// The statements of join table `name` for the side whose key is in `ownerColumn`.
    func joinSide(_ name: String, owner ownerColumn: String) -> JoinSide? { joinSides[Self.joinKey(name, ownerColumn)] }

    /// `DELETE FROM "J"` for every join table, for erasing.
    let deleteAllJoinRows: [String]

    /// `UPDATE "T" SET "a" = ?1, "b" = ?2 WHERE "_pk" = ?3`: the given columns (indices into
    /// `table.columns`, in increasing order), then the key. Built once per shape.
    func update(_ table: SQLiteSchemaMapping.Table, columns: [Int]) -> String {
        let shape = UpdateShape(table: table.entityName, columns: columns)
        if let sql = updates.withLock({ $0[shape] }) { return sql }
        let assignments = columns.enumerated()
            .map { "\(SQLIdentifier.quote(table.columns[$1].name)) = ?\($0 + 1)" }
            .joined(separator: ", ")
        let sql = "UPDATE \(SQLIdentifier.quote(table.tableName)) SET \(assignments) WHERE \(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) = ?\(columns.count + 1)"
        updates.withLock { $0[shape] = sql }
        return sql
    }

    /// `INSERT INTO "T" ("a", "b") VALUES (?, ?), (?, ?)`: `rows` rows, each row's
    /// parameters a value for every column in table order. SQLite gives the rows keys one by
    /// one as it gives a row inserted alone.
    func batchInsert(_ table: SQLiteSchemaMapping.Table, rows: Int) -> String {
        let names = table.columns.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")
        let row = "(" + Array(repeating: "?", count: table.columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(SQLIdentifier.quote(table.tableName)) (\(names)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Whether a table has triggers: SQLite keeps a trigger's table name as its `CREATE
    /// TRIGGER` spelled it, and table names match in any case.
    static let hasTriggers = "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE"

    /// The name the VALUES list of ``batchUpdate(_:columns:rows:)`` goes by.
    static let batchValues = SQLIdentifier.quote("_strata_values")

    /// `UPDATE "T" SET "a" = "_strata_values".column2, "b" = "_strata_values".column3 FROM
    /// (VALUES (?, ?, ?), (?, ?, ?)) AS "_strata_values" WHERE "T"."_pk" = "_strata_values".column1`:
    /// the given columns of `rows` rows, each row's parameters its key then its values in
    /// `columns` order. SQLite reads the list into a temporary table and updates each row it
    /// names by key.
    func batchUpdate(_ table: SQLiteSchemaMapping.Table, columns: [Int], rows: Int) -> String {
        let values = Self.batchValues
        let assignments = columns.enumerated()
            .map { "\(SQLIdentifier.quote(table.columns[$1].name)) = \(values).column\($0 + 2)" }
            .joined(separator: ", ")
        let row = "(" + Array(repeating: "?", count: columns.count + 1).joined(separator: ", ") + ")"
        let name = SQLIdentifier.quote(table.tableName)
        return "UPDATE \(name) SET \(assignments) FROM (VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))) AS \(values)"
            + " WHERE \(name).\(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) = \(values).column1"
    }

    /// `UPDATE "T" SET "c" = ?1`: one column of every row, to fill a column a migration added.
    static func fill(_ table: SQLiteSchemaMapping.Table, column: String) -> String {
        "UPDATE \(SQLIdentifier.quote(table.tableName)) SET \(SQLIdentifier.quote(column)) = ?1"
    }

    /// `INSERT ... ON CONFLICT DO UPDATE`: writes one key and value of the metadata table.
    static let upsertMetadata =
        "INSERT INTO \(SQLIdentifier.quote(SQLiteSchemaWriter.metadataTable)) (\"key\", \"value\") VALUES (?1, ?2) ON CONFLICT(\"key\") DO UPDATE SET \"value\" = excluded.\"value\""

    /// Every key and value of the metadata table.
    static let selectMetadata = "SELECT \"key\", \"value\" FROM \(SQLIdentifier.quote(SQLiteSchemaWriter.metadataTable))"

    private static func joinKey(_ name: String, _ owner: String) -> String { name + "\u{0}" + owner }
}
