import Foundation
import StrataCore

extension SQLiteStore {
    /// Writes one save in one transaction: inserts (with new `_pk`s), updates, deletes and
    /// the join-table rows of to-many relationships. All of it commits or none does.
    ///
    /// - Throws: ``SQLiteStoreError/readOnly(path:)`` for a read-only store, or
    ///   ``SQLiteError`` (for example a UNIQUE index violation) after rolling back.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        guard configuration.allowsSave else { throw SQLiteStoreError.readOnly(path: path) }
        var writer = SaveWriter(store: self)
        do {
            try write { connection in
                try SQLiteMetadata.transaction(connection) {
                    try writer.apply(inserted: request.inserted, updated: request.updated, deleted: request.deleted, on: connection)
                }
            }
        } catch {
            for reference in writer.filesWritten { externalStorage?.remove(reference) }
            throw error
        }
        for reference in writer.filesToRemove { externalStorage?.remove(reference) }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: writer.remapped)
    }
}

/// The work of one save on the writer connection.
struct SaveWriter {
    let store: SQLiteStore
    var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
    var filesWritten: [String] = []
    var filesToRemove: [String] = []
    private var fixups: [(table: SQLiteSchemaMapping.Table, key: Int64, column: String, target: PersistentIdentifier)] = []

    init(store: SQLiteStore) {
        self.store = store
    }

    mutating func apply(
        inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot], on connection: SQLiteConnection
    ) throws {
        var keys: [(SQLiteSchemaMapping.Table, Int64, DefaultSnapshot)] = []
        for snapshot in inserted {
            let table = try table(of: snapshot)
            let key = try insert(snapshot, into: table, on: connection)
            remapped[snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(
                for: store.identifier, entityName: table.entityName, primaryKey: key)
            keys.append((table, key, snapshot))
        }
        for fixup in fixups {
            guard let target = remapped[fixup.target], let targetKey = target.primaryKey(as: Int64.self) else { continue }
            let statement = try connection.cached(
                "UPDATE \(SQLIdentifier.quote(fixup.table.tableName)) SET \(SQLIdentifier.quote(fixup.column)) = ?1 WHERE \(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) = ?2")
            try statement.bind([.integer(targetKey), .integer(fixup.key)])
            try statement.run()
        }
        for snapshot in updated {
            let table = try table(of: snapshot)
            guard let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self) else { continue }
            try update(snapshot, in: table, key: key, on: connection)
            keys.append((table, key, snapshot))
        }
        for (table, key, snapshot) in keys { try writeJoinRows(snapshot, table: table, key: key, on: connection) }
        for snapshot in deleted {
            let table = try table(of: snapshot)
            guard let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self) else { continue }
            try delete(key, from: table, on: connection)
        }
    }

    private func table(of snapshot: DefaultSnapshot) throws -> SQLiteSchemaMapping.Table {
        guard let table = store.mapping.tables[snapshot.persistentIdentifier.entityName] else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the SQLite store \(store.path) holds no entity \(snapshot.persistentIdentifier.entityName)")
        }
        return table
    }

    private func values(of snapshot: DefaultSnapshot, table: SQLiteSchemaMapping.Table) -> [PersistentValue] {
        if snapshot.propertyNames == table.propertyNames { return snapshot.values }
        return table.propertyNames.map { snapshot[$0] ?? .null }
    }

    private mutating func bindings(
        _ snapshot: DefaultSnapshot, table: SQLiteSchemaMapping.Table, key: Int64?
    ) throws -> [SQLiteValue] {
        let values = values(of: snapshot, table: table)
        var result: [SQLiteValue] = []
        result.reserveCapacity(table.columns.count)
        for column in table.columns {
            let value = values[column.slot]
            if case .identifier(let target) = value, target.isTemporary {
                if let permanent = remapped[target] {
                    result.append(SQLiteValueCodec.encode(.identifier(permanent), storeIdentifier: store.identifier))
                } else {
                    result.append(.null)
                    if let key { fixups.append((table, key, column.name, target)) } else { pendingFixups.append((column.name, target)) }
                }
                continue
            }
            if column.externalStorage, case .data(let bytes) = value, bytes.count >= ExternalStorage.threshold,
                let storage = store.externalStorage
            {
                let reference = try storage.store(bytes)
                filesWritten.append(reference)
                result.append(.text(reference))
                continue
            }
            result.append(SQLiteValueCodec.encode(value, storeIdentifier: store.identifier))
        }
        return result
    }

    /// Fixups found while binding an insert, before its `_pk` was known.
    private var pendingFixups: [(column: String, target: PersistentIdentifier)] = []

    /// Insert statements by entity, so a save of many rows neither rebuilds nor re-hashes the SQL per row.
    private var insertStatements: [String: SQLiteStatement] = [:]
    /// Update statements by entity, for the same reason.
    private var updateStatements: [String: SQLiteStatement] = [:]

    private mutating func insert(_ snapshot: DefaultSnapshot, into table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws -> Int64 {
        pendingFixups = []
        let values = try bindings(snapshot, table: table, key: nil)
        let statement: SQLiteStatement
        if let cached = insertStatements[table.entityName] {
            cached.reset()
            statement = cached
        } else {
            statement = try connection.cached(insertSQL(table))
            insertStatements[table.entityName] = statement
        }
        try statement.bind(values)
        try statement.run()
        let key = connection.lastInsertRowID
        for pending in pendingFixups { fixups.append((table, key, pending.column, pending.target)) }
        pendingFixups = []
        return key
    }

    private func insertSQL(_ table: SQLiteSchemaMapping.Table) -> String {
        guard !table.columns.isEmpty else { return "INSERT INTO \(SQLIdentifier.quote(table.tableName)) DEFAULT VALUES" }
        let names = table.columns.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")
        let parameters = (1...table.columns.count).map { "?\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(SQLIdentifier.quote(table.tableName)) (\(names)) VALUES (\(parameters))"
    }

    private mutating func update(_ snapshot: DefaultSnapshot, in table: SQLiteSchemaMapping.Table, key: Int64, on connection: SQLiteConnection) throws {
        guard !table.columns.isEmpty else { return }
        try collectExternalFiles(of: key, in: table, on: connection)
        var values = try bindings(snapshot, table: table, key: key)
        values.append(.integer(key))
        let statement: SQLiteStatement
        if let cached = updateStatements[table.entityName] {
            cached.reset()
            statement = cached
        } else {
            let assignments = table.columns.enumerated().map { "\(SQLIdentifier.quote($1.name)) = ?\($0 + 1)" }.joined(separator: ", ")
            statement = try connection.cached(
                "UPDATE \(SQLIdentifier.quote(table.tableName)) SET \(assignments) WHERE \(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) = ?\(table.columns.count + 1)")
            updateStatements[table.entityName] = statement
        }
        try statement.bind(values)
        try statement.run()
    }

    private mutating func delete(_ key: Int64, from table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws {
        try collectExternalFiles(of: key, in: table, on: connection)
        for property in table.properties {
            guard case .joinTable(let name, let owner, _, _) = property else { continue }
            let statement = try connection.cached("DELETE FROM \(SQLIdentifier.quote(name)) WHERE \(SQLIdentifier.quote(owner)) = ?1")
            try statement.bind([.integer(key)])
            try statement.run()
        }
        let statement = try connection.cached(
            "DELETE FROM \(SQLIdentifier.quote(table.tableName)) WHERE \(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) = ?1")
        try statement.bind([.integer(key)])
        try statement.run()
    }

    /// Notes the external files a row refers to now, to remove after the commit.
    private mutating func collectExternalFiles(of key: Int64, in table: SQLiteSchemaMapping.Table, on connection: SQLiteConnection) throws {
        let external = table.columns.filter(\.externalStorage)
        guard !external.isEmpty, store.externalStorage != nil else { return }
        let statement = try connection.cached(
            "SELECT \(external.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")) FROM \(SQLIdentifier.quote(table.tableName)) WHERE \(SQLIdentifier.quote(SQLiteSchemaMapping.primaryKey)) = ?1")
        try statement.bind([.integer(key)])
        if try statement.step() {
            for index in external.indices {
                if case .text(let reference) = statement.column(Int32(index)) { filesToRemove.append(reference) }
            }
        }
        statement.reset()
    }

    private func writeJoinRows(_ snapshot: DefaultSnapshot, table: SQLiteSchemaMapping.Table, key: Int64, on connection: SQLiteConnection) throws {
        let values = values(of: snapshot, table: table)
        for (slot, property) in table.properties.enumerated() {
            guard case .joinTable(let name, let owner, let member, _) = property else { continue }
            guard case .identifiers(let ids) = values[slot] else { continue }
            let clear = try connection.cached("DELETE FROM \(SQLIdentifier.quote(name)) WHERE \(SQLIdentifier.quote(owner)) = ?1")
            try clear.bind([.integer(key)])
            try clear.run()
            let insert = try connection.cached(
                "INSERT OR IGNORE INTO \(SQLIdentifier.quote(name)) (\(SQLIdentifier.quote(owner)), \(SQLIdentifier.quote(member))) VALUES (?1, ?2)")
            for id in ids {
                let target = remapped[id] ?? id
                guard target.storeIdentifier == store.identifier, let memberKey = target.primaryKey(as: Int64.self) else { continue }
                insert.reset()
                try insert.bind([.integer(key), .integer(memberKey)])
                try insert.run()
            }
        }
    }
}
