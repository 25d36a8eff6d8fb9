import StrataCore

extension SQLiteQueryCompiler {
    /// The most keys one lookup binds: SQLite's limit on parameters is at least 999.
    static let lookupChunkSize = 512

    /// `SELECT <columns> FROM "Entity" AS t0 WHERE t0."_pk" IN (?, ...)`: rows by primary key.
    ///
    /// The number of parameters is rounded up to a power of two (the last key repeats), so
    /// lookups of any length share a few prepared statements. Rows come back in no particular
    /// order; the caller orders them.
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an entity the mapping does not have.
    func lookup(entity: String, columns: [String], keys: ArraySlice<Int64>) throws -> SQLiteQuery {
        let compilation = try Compilation(compiler: self, entity: entity)
        var width = 1
        while width < keys.count { width *= 2 }
        var list = SQLiteQuery.joined(keys.map { "\(bind: .integer($0))" }, separator: ", ")
        if let last = keys.last {
            for _ in keys.count..<width { list += ", \(bind: .integer(last))" }
        }
        let key: SQLiteQuery = "\(alias: .root).\(name: SQLiteSchemaMapping.primaryKey)"
        return "\(SQLiteQuery(sql: "SELECT " + columns.joined(separator: ", "))) FROM \(compilation.rootTable) WHERE \(key) IN (\(list))"
    }

    /// The members of a to-many relationship stored as the destination's to-one `column`,
    /// for the owners whose keys `keys` lists (a JSON array): rows of (owner, member), by
    /// owner, each owner's members in member order.
    func inverseMembers(destination: String, column: String, keys: String) -> SQLiteQuery {
        inverseRows(destination: destination, column: column, columns: [SQLiteSchemaMapping.primaryKey], keys: keys)
    }

    /// The whole rows of the members of a to-many relationship stored as the destination's
    /// to-one `column`, for the owners whose keys `keys` lists (a JSON array): the owner's key,
    /// then `columns` of the destination, by owner, each owner's members in member order.
    ///
    /// Ordered by owner first, the order of the column's index (whose entries end with the
    /// primary key), so SQLite reads the rows in order; ordered by member alone, it sorted
    /// them all in a temporary b-tree.
    func inverseRows(destination: String, column: String, columns: [String], keys: String) -> SQLiteQuery {
        let list = ([column] + columns).map { "\(Alias.root.sql).\(SQLIdentifier.quote($0))" }.joined(separator: ", ")
        let owner: SQLiteQuery = "\(alias: .root).\(name: column)"
        let key: SQLiteQuery = "\(alias: .root).\(name: SQLiteSchemaMapping.primaryKey)"
        return "\(SQLiteQuery(sql: "SELECT " + list)) FROM \(name: destination) AS \(alias: .root) WHERE \(owner) IN (SELECT value FROM json_each(\(bind: .text(keys)))) ORDER BY \(owner), \(key)"
    }

    /// The members of a to-many relationship stored in join table `join`, for the owners
    /// whose keys `keys` lists (a JSON array): rows of (owner, member), in the order they were written.
    func joinMembers(join: String, owner: String, member: String, keys: String) -> SQLiteQuery {
        "SELECT \(name: owner), \(name: member) FROM \(name: join) WHERE \(name: owner) IN (SELECT value FROM json_each(\(bind: .text(keys)))) ORDER BY rowid"
    }
}
