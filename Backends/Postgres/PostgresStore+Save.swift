import Foundation
import PostgresNIO
import StrataCore

extension PostgresStore {
    /// Writes one save in one transaction: inserts (with new `_pk`s), updates, deletes and
    /// the join rows of to-many relationships. All of it commits or none does.
    ///
    /// An updated snapshot may list only the changed properties (``DataStorePartialUpdating``):
    /// its `UPDATE` sets only their columns, so a concurrent save by another process that
    /// changed other attributes of the same model keeps them; for one attribute, the save
    /// that commits last wins.
    ///
    /// Inserts into a table with `#Unique` constraints are upserts on its first constraint
    /// (`INSERT ... ON CONFLICT ... DO UPDATE`): the core has already turned an insert that
    /// collides with a stored model into an update, and a model another process stored
    /// between that check and this save is updated in place too, and the inserted model takes
    /// its identifier. A collision on a further constraint fails the save with SQLSTATE 23505.
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store,
    ///   ``SwiftDataError/modelValidationFailure`` when an update or delete names a model the
    ///   store does not hold, ``SwiftDataError/configurationSchemaNotFoundInContainerSchema``
    ///   for a model of an entity it does not hold, or ``PostgresStoreError``; nothing is written then.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        if request.inserted.isEmpty && request.updated.isEmpty && request.deleted.isEmpty {
            return DataStoreSaveChangesResult(for: identifier)
        }
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        var writer = PostgresSaveWriter(store: self)
        let token = try pool.transaction { connection in
            try writer.apply(inserted: request.inserted, updated: request.updated, deleted: request.deleted, on: connection)
            let token = try PostgresHistory(store: self).record(writer.history, author: request.editingState.author, on: connection)
            try countCommit(on: connection)
            return token
        }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: writer.remapped, historyToken: token)
    }

    /// Deletes the rows the request selects, with their join rows, in one statement.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no exact SQL
    ///   form, ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` store, or ``PostgresStoreError``.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        _ = try deleteListing(request)
    }

    /// Deletes the rows the request selects, with their join rows, in one statement, and
    /// returns their identifiers: the keys its `DELETE … RETURNING` gave back, so a row
    /// another process inserts meanwhile is either deleted and listed or left.
    ///
    /// - Throws: As ``delete(_:)``.
    public func deleteListing<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws -> [PersistentIdentifier] {
        let table = try table(for: T.self)
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        let rows: PostgresQueryCompiler.Compilation.Result
        do {
            rows = try compiler.rows(of: table, filter: try request.filter)
        } catch is PostgresQueryCompiler.Unsupported {
            throw DataStoreError.preferInMemoryFilter
        }
        let keys = "SELECT t0.\(SQLIdentifier.quote(RelationalSchemaMapping.primaryKey))" + rows.from
        let deleted = try pool.transaction { connection in
            var writer = PostgresSaveWriter(store: self)
            try writer.clearJoinRows(of: table, ownersSQL: keys, binds: rows.compilation.binds, on: connection)
            let deleted = try writer.deleteRows(of: table, where: "IN (\(keys))", binds: rows.compilation.binds, on: connection)
            _ = try PostgresHistory(store: self).record(writer.history, author: request.editingState.author, on: connection)
            // A delete that matched nothing is no commit the other processes need to refresh for.
            if !deleted.isEmpty { try countCommit(on: connection) }
            return deleted
        }
        let template = try PersistentIdentifier.identifier(for: identifier, entityName: table.entityName, primaryKey: 0)
        return deleted.map(template.replacingPrimaryKey)
    }
}

/// The work of one save on one connection inside its transaction.
struct PostgresSaveWriter {
    let store: PostgresStore
    var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
    /// To-one columns of inserted rows that name a model inserted later in the save, set once it has a key.
    private var fixups: [(table: RelationalSchemaMapping.Table, key: Int64, column: Int, target: PersistentIdentifier)] = []
    private var pendingFixups: [(column: Int, target: PersistentIdentifier)] = []
    /// The SQL of this save's row-by-row INSERTs by entity, and of its UPDATEs by entity and
    /// column set: a save of many rows builds each text once.
    private var insertSQL: [String: String] = [:]
    private var updateSQL: [UpdateShape: String] = [:]
    /// The save's changes, for its history row.
    private(set) var history = HistoryRecorder()
    private let recordsHistory: Bool

    private var primaryKey: String { SQLIdentifier.quote(RelationalSchemaMapping.primaryKey) }

    private struct UpdateShape: Hashable {
        let entityName: String
        let columns: [Int]
    }

    init(store: PostgresStore) {
        self.store = store
        recordsHistory = store.configuration.historyRetention.isEnabled
    }

    mutating func apply(
        inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot], on connection: PostgresConnection
    ) throws {
        var joinWrites: [(RelationalSchemaMapping.Table, Int64, SnapshotColumns)] = []
        // Tables without `#Unique` take their rows in batches, with keys drawn first, so every
        // reference to them resolves before any row is written; the others go row by row, as
        // upserts whose key the server decides.
        var batches: [(table: RelationalSchemaMapping.Table, rows: [SnapshotColumns], keys: [Int64])] = []
        var single: [(table: RelationalSchemaMapping.Table, listed: SnapshotColumns)] = []
        for snapshot in inserted {
            let table = try store.table(named: snapshot.persistentIdentifier.entityName)
            let listed = SnapshotColumns(snapshot, table: table)
            if !table.uniqueConstraints.isEmpty {
                single.append((table, listed))
            } else if let index = batches.firstIndex(where: { $0.table.entityName == table.entityName }) {
                batches[index].rows.append(listed)
            } else {
                batches.append((table, [listed], []))
            }
        }
        for index in batches.indices {
            let table = batches[index].table
            let keys = try PostgresBatchInsert(store: store, table: table).drawKeys(batches[index].rows.count, on: connection)
            batches[index].keys = keys
            let template = try PersistentIdentifier.identifier(for: store.identifier, entityName: table.entityName, primaryKey: 0)
            for (listed, key) in zip(batches[index].rows, keys) { remapped[listed.snapshot.persistentIdentifier] = template.replacingPrimaryKey(key) }
        }
        var written: [PersistentIdentifier: (entity: String, key: Int64, inserted: Bool)] = [:]
        for (table, listed) in single {
            let (key, inserted) = try insert(listed, into: table, on: connection)
            remapped[listed.snapshot.persistentIdentifier] = try PersistentIdentifier.identifier(
                for: store.identifier, entityName: table.entityName, primaryKey: key)
            written[listed.snapshot.persistentIdentifier] = (table.entityName, key, inserted)
            joinWrites.append((table, key, listed))
        }
        for (table, rows, keys) in batches {
            try PostgresBatchInsert(store: store, table: table).insert(rows, keys: keys, on: connection) { listed, column in
                let value = listed.value(ofColumn: column) ?? .null
                if case .identifier(let target) = value, target.isTemporary { return remapped[target].map { .identifier($0) } ?? .null }
                return value
            }
            for (listed, key) in zip(rows, keys) {
                written[listed.snapshot.persistentIdentifier] = (table.entityName, key, true)
                joinWrites.append((table, key, listed))
            }
        }
        if recordsHistory {
            // In the save's order; an insert that met another process's row updated it, and history says so.
            for snapshot in inserted {
                guard let row = written[snapshot.persistentIdentifier] else { continue }
                if row.inserted {
                    history.insert(row.entity, key: row.key)
                } else {
                    history.update(row.entity, key: row.key, properties: snapshot.propertyNames)
                }
            }
        }
        for fixup in fixups {
            guard let target = remapped[fixup.target], let targetKey = target.primaryKey(as: Int64.self) else { continue }
            var binds = PostgresBindings()
            binds.append(targetKey)
            binds.append(fixup.key)
            try store.pool.execute(
                "UPDATE \(store.writer.qualified(fixup.table.tableName)) SET \(SQLIdentifier.quote(fixup.table.columns[fixup.column].name)) = $1 WHERE \(primaryKey) = $2",
                binds, on: connection)
        }
        for snapshot in updated {
            let table = try store.table(named: snapshot.persistentIdentifier.entityName)
            let key = try heldKey(of: snapshot)
            let listed = SnapshotColumns(snapshot, table: table)
            try update(listed, in: table, key: key, on: connection)
            joinWrites.append((table, key, listed))
            if recordsHistory { history.update(table.entityName, key: key, properties: snapshot.propertyNames) }
        }
        for (table, key, listed) in joinWrites where table.hasJoinTables { try writeJoinRows(listed, table: table, key: key, on: connection) }
        var deletes: [(table: RelationalSchemaMapping.Table, keys: [Int64])] = []
        var listed = Set<PersistentIdentifier>()
        for snapshot in deleted where listed.insert(snapshot.persistentIdentifier).inserted {
            let table = try store.table(named: snapshot.persistentIdentifier.entityName)
            let key = try heldKey(of: snapshot)
            if let index = deletes.firstIndex(where: { $0.table.entityName == table.entityName }) {
                deletes[index].keys.append(key)
            } else {
                deletes.append((table, [key]))
            }
        }
        for (table, keys) in deletes {
            var binds = PostgresBindings()
            binds.append(keys)
            try clearJoinRows(of: table, ownersSQL: "SELECT unnest($1::bigint[])", binds: binds, on: connection)
            let deleted = try deleteRows(of: table, where: "= ANY($1)", binds: binds, order: keys, on: connection).count
            guard deleted == keys.count else {
                throw SwiftDataError.modelValidationFailure.with(
                    details: "the PostgreSQL store \(store.configuration.name) holds only \(deleted) of the \(keys.count) \(table.entityName) models the save deletes; nothing was saved")
            }
        }
    }

    /// Deletes the rows of `table` whose key satisfies `condition` (`= ANY($1)`, `IN (...)`),
    /// recording them in history in the order of `order` (else of their keys), with the
    /// tombstone values of their `.preserveValueOnDeletion` columns; returns the keys of the
    /// deleted rows in that order.
    @discardableResult
    mutating func deleteRows(
        of table: RelationalSchemaMapping.Table, where condition: String, binds: PostgresBindings, order: [Int64]? = nil,
        on connection: PostgresConnection
    ) throws -> [Int64] {
        let preserved = recordsHistory ? store.preservedColumns[table.entityName] ?? [] : []
        let returned = ([primaryKey] + preserved.map { PostgresValueCodec.selection(SQLIdentifier.quote($0.name), kind: $0.kind) })
            .joined(separator: ", ")
        let rows = try store.pool.query(
            "DELETE FROM \(store.writer.qualified(table.tableName)) WHERE \(primaryKey) \(condition) RETURNING \(returned)", binds, on: connection)
        var tombstones: [Int64: [String: PersistentValue]] = [:]
        for row in rows {
            var cells = row.makeIterator()
            guard let key = try cells.next()?.decode(Int64.self) else { continue }
            var tombstone: [String: PersistentValue] = [:]
            for column in preserved {
                guard let cell = cells.next() else { break }
                tombstone[column.name] = try PostgresValueCodec.decode(cell, column: column, storeIdentifier: store.identifier, table: table.tableName)
            }
            tombstones[key] = tombstone
        }
        let deleted = (order ?? tombstones.keys.sorted()).compactMap { key in tombstones[key].map { (key, $0) } }
        if recordsHistory {
            for (key, tombstone) in deleted { history.delete(table.entityName, key: key, tombstone: tombstone) }
        }
        return deleted.map(\.0)
    }

    /// The `_pk` of a model this store gave an identifier to.
    private func heldKey(of snapshot: DefaultSnapshot) throws -> Int64 {
        guard let key = snapshot.persistentIdentifier.primaryKey(as: Int64.self, inStore: store.identifier) else {
            throw missingModel(snapshot.persistentIdentifier)
        }
        return key
    }

    private func missingModel(_ id: PersistentIdentifier) -> SwiftDataError {
        SwiftDataError.modelValidationFailure.with(
            details: "the PostgreSQL store \(store.configuration.name) holds no model \(id); nothing was saved")
    }

    /// Binds the values of `columns` (indices into `table.columns`); a reference to a model
    /// inserted later in this save is bound as `NULL` and fixed up once that model has a key.
    private mutating func bind(
        _ listed: SnapshotColumns, columns: [Int], table: RelationalSchemaMapping.Table, key: Int64?, into binds: inout PostgresBindings
    ) {
        for index in columns {
            let value = listed.value(ofColumn: index) ?? .null
            if case .identifier(let target) = value, target.isTemporary {
                if let permanent = remapped[target] {
                    PostgresValueCodec.bind(.identifier(permanent), to: &binds, storeIdentifier: store.identifier)
                } else {
                    binds.appendNull()
                    if let key { fixups.append((table, key, index, target)) } else { pendingFixups.append((index, target)) }
                }
                continue
            }
            PostgresValueCodec.bind(value, to: &binds, storeIdentifier: store.identifier)
        }
    }

    /// Inserts a row and returns its key, and whether it is new (`false` when it met a row of
    /// the same unique key, which it updated).
    private mutating func insert(
        _ listed: SnapshotColumns, into table: RelationalSchemaMapping.Table, on connection: PostgresConnection
    ) throws -> (key: Int64, inserted: Bool) {
        pendingFixups = []
        var binds = PostgresBindings()
        bind(listed, columns: table.everyColumn, table: table, key: nil, into: &binds)
        let sql = insertSQL[table.entityName] ?? insertStatement(for: table)
        insertSQL[table.entityName] = sql
        guard let row = try store.pool.query(sql, binds, on: connection).first else {
            throw PostgresStoreError.server(location: store.location, sqlState: "?", message: "an INSERT returned no key", sql: sql)
        }
        let (key, inserted) = try row.decode((Int64, Bool).self)
        for pending in pendingFixups { fixups.append((table, key, pending.column, pending.target)) }
        pendingFixups = []
        return (key, inserted)
    }

    /// `INSERT ... RETURNING` of one row of `table`, an upsert on its first `#Unique` constraint.
    private func insertStatement(for table: RelationalSchemaMapping.Table) -> String {
        let names = table.columns.map { SQLIdentifier.quote($0.name) }
        var sql = "INSERT INTO \(store.writer.qualified(table.tableName))"
        if names.isEmpty {
            sql += " DEFAULT VALUES"
        } else {
            let placeholders = table.columns.enumerated().map { PostgresValueCodec.placeholder($0.offset + 1, kind: $0.element.kind) }
            sql += " (\(names.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
            if let first = table.uniqueConstraints.first, let terms = store.writer.conflictTarget(first, in: table) {
                sql += " ON CONFLICT (\(terms)) DO UPDATE SET " + names.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            }
        }
        // `xmax` is 0 in a row the statement inserted, and set in one it updated.
        return sql + " RETURNING \(primaryKey), (xmax = 0)"
    }

    /// Sets the listed columns of row `key`; a row that does not exist throws.
    private mutating func update(_ listed: SnapshotColumns, in table: RelationalSchemaMapping.Table, key: Int64, on connection: PostgresConnection) throws {
        var binds = PostgresBindings()
        let sql: String
        if listed.columns.isEmpty {
            // Nothing of the row itself changed (only to-many relationships, or nothing): it must still exist.
            sql = "SELECT 1 FROM \(store.writer.qualified(table.tableName)) WHERE \(primaryKey) = $1"
            binds.append(key)
            guard try store.pool.query(sql, binds, on: connection).first != nil else { throw missingModel(listed.snapshot.persistentIdentifier) }
            return
        }
        bind(listed, columns: listed.columns, table: table, key: key, into: &binds)
        binds.append(key)
        let shape = UpdateShape(entityName: table.entityName, columns: listed.columns)
        if let cached = updateSQL[shape] {
            sql = cached
        } else {
            let assignments = listed.columns.enumerated().map { position, index in
                "\(SQLIdentifier.quote(table.columns[index].name)) = \(PostgresValueCodec.placeholder(position + 1, kind: table.columns[index].kind))"
            }
            sql = "UPDATE \(store.writer.qualified(table.tableName)) SET \(assignments.joined(separator: ", ")) WHERE \(primaryKey) = $\(binds.count)"
            updateSQL[shape] = sql
        }
        guard try store.pool.execute(sql, binds, on: connection) > 0 else { throw missingModel(listed.snapshot.persistentIdentifier) }
    }

    /// Rewrites the join rows of the listed to-many relationships of row `key`, in the members' order.
    private func writeJoinRows(_ listed: SnapshotColumns, table: RelationalSchemaMapping.Table, key: Int64, on connection: PostgresConnection) throws {
        for (slot, property) in table.properties.enumerated() {
            guard case .joinTable(let name, let owner, let member, _) = property, case .identifiers(let ids) = listed.value(ofProperty: slot)
            else { continue }
            let join = store.writer.qualified(name), ownerColumn = SQLIdentifier.quote(owner), memberColumn = SQLIdentifier.quote(member)
            var clear = PostgresBindings()
            clear.append(key)
            try store.pool.execute("DELETE FROM \(join) WHERE \(ownerColumn) = $1", clear, on: connection)
            let members: [Int64] = ids.compactMap { id in
                let target = remapped[id] ?? id
                return target.primaryKey(as: Int64.self, inStore: store.identifier)
            }
            guard !members.isEmpty else { continue }
            var binds = PostgresBindings()
            binds.append(key)
            binds.append(members)
            try store.pool.execute(
                "INSERT INTO \(join) (\(ownerColumn), \(memberColumn)) SELECT $1, m FROM unnest($2::bigint[]) WITH ORDINALITY AS u(m, o) ORDER BY o ON CONFLICT DO NOTHING",
                binds, on: connection)
        }
    }

    /// Deletes the join rows whose owner, on either side, is among the keys `ownersSQL` selects.
    func clearJoinRows(of table: RelationalSchemaMapping.Table, ownersSQL: String, binds: PostgresBindings, on connection: PostgresConnection) throws {
        for property in table.properties {
            guard case .joinTable(let name, let owner, _, _) = property else { continue }
            try store.pool.execute(
                "DELETE FROM \(store.writer.qualified(name)) WHERE \(SQLIdentifier.quote(owner)) IN (\(ownersSQL))", binds, on: connection)
        }
    }
}
