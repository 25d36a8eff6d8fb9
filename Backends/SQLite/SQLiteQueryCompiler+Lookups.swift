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

    /// The owners whose to-many relationships a load reads, as a query condition.
    ///
    /// A run of consecutive keys (a fetch of every row of a table whose keys have no gap, the
    /// usual case) binds its two ends and reads the destination's index as one range; other
    /// keys bind one JSON array, which SQLite parses into a temporary table and then seeks
    /// the index once per owner (for 2,000 owners with 6,000 members, 5.5 M instructions
    /// in SQLite more than the range).
    enum OwnerKeys {
        /// Every key from the lower bound through the upper one.
        case run(ClosedRange<Int64>)
        /// The keys as a JSON array (``SQLiteQueryCompiler/jsonArray(of:)``).
        case list(String)

        /// `keys`, as a run when they span as many keys as they hold. A repeated key can make
        /// keys with a gap look like a run; ``OwnerRows`` checks for repeats.
        init(_ keys: [Int64]) {
            if let first = keys.first {
                var lower = first
                var upper = first
                for key in keys {
                    lower = Swift.min(lower, key)
                    upper = Swift.max(upper, key)
                }
                if (lower...upper).isEveryKey(of: Int64(keys.count)) {
                    self = .run(lower...upper)
                    return
                }
            }
            self = .list(SQLiteQueryCompiler.jsonArray(of: keys))
        }

        /// The condition that `owner` is one of the keys. A run's range also holds a real
        /// number between two of its keys, which no list does (damage: a key column holds
        /// integers), so readers take a row's owner with `SQLiteStatement.integer(_:)`,
        /// which drops any other type.
        func contain(_ owner: SQLiteQuery) -> SQLiteQuery {
            switch self {
            case .run(let keys): "\(owner) BETWEEN \(bind: .integer(keys.lowerBound)) AND \(bind: .integer(keys.upperBound))"
            case .list(let json): "\(owner) IN (SELECT value FROM json_each(\(bind: .text(json))))"
            }
        }
    }

    /// The members of a to-many relationship stored as the destination's to-one `column`,
    /// for the owners `keys`: rows of (owner, member), by owner, each owner's members in
    /// member order.
    func inverseMembers(destination: String, column: String, keys: OwnerKeys) -> SQLiteQuery {
        inverseRows(destination: destination, column: column, columns: [column, SQLiteSchemaMapping.primaryKey], keys: keys)
    }

    /// The rows of the members of a to-many relationship stored as the destination's to-one
    /// `column`, for the owners `keys`: `columns` of the destination, by owner, each owner's
    /// members in member order.
    ///
    /// Ordered by owner first, the order of the column's index (whose entries end with the
    /// primary key), so SQLite reads the rows in order; ordered by member alone, it sorted
    /// them all in a temporary b-tree.
    func inverseRows(destination: String, column: String, columns: [String], keys: OwnerKeys) -> SQLiteQuery {
        let list = columns.map { "\(Alias.root.sql).\(SQLIdentifier.quote($0))" }.joined(separator: ", ")
        let owner: SQLiteQuery = "\(alias: .root).\(name: column)"
        let key: SQLiteQuery = "\(alias: .root).\(name: SQLiteSchemaMapping.primaryKey)"
        return "\(SQLiteQuery(sql: "SELECT " + list)) FROM \(name: destination) AS \(alias: .root) WHERE \(keys.contain(owner)) ORDER BY \(owner), \(key)"
    }

    /// The members of a to-many relationship stored in join table `join`, for the owners
    /// `keys`: rows of (owner, member), in the order they were written.
    func joinMembers(join: String, owner: String, member: String, keys: OwnerKeys) -> SQLiteQuery {
        let ownerColumn: SQLiteQuery = "\(name: owner)"
        return "SELECT \(ownerColumn), \(name: member) FROM \(name: join) WHERE \(keys.contain(ownerColumn)) ORDER BY rowid"
    }
}
