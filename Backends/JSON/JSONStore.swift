import Foundation
import StrataCore
import Synchronization

/// A store that keeps its models in one JSON document, read through json-c.
///
/// The document is read once when the store opens and kept in memory; fetches, counts and
/// identifier lists run on snapshots with ``FilterEvaluator`` and never touch the file.
/// Each save rewrites the whole document atomically (temporary file, `fsync`, `rename`,
/// `fsync` of the folder). A save refuses with ``JSONStoreError/documentChangedOnDisk(file:)``
/// when another process or an editor changed the file since the store read or last wrote
/// it: nothing is merged and nothing is overwritten; reopen the container to pick up the
/// other version. An update may list only the changed properties
/// (``DataStorePartialUpdating``); the others, and members the schema does not name, are
/// kept. A document that cannot be read makes opening fail with a
/// ``JSONStoreError`` naming the file, and the file stays as it was.
public final class JSONStore: DataStore, DataStoreBatching, DataStoreMigrating, DataStoreExplaining, DataStorePartialUpdating, HistoryProviding,
    Sendable
{
    /// The store's configuration.
    public let configuration: JSONStoreConfiguration
    /// The models this store holds.
    public let schema: Schema
    /// The document's `storeIdentifier`, kept across saves and reopenings.
    public let identifier: String

    private let file: JSONDocumentFile
    private let layouts: [JSONEntityLayout]

    private struct State: Sendable {
        var contents: JSONStoreContents
        /// The version of the file the contents were read from or last written as; `nil` when there was no file.
        var identity: JSONDocumentFile.Identity?
    }

    /// The current contents; readers copy them out and work without the lock.
    private let state: Locked<State>
    /// Held for a whole save, so saves apply one after another to the newest contents.
    private let saving = NSLock()

    /// Opens the document at the configuration's URL, or an empty store when there is no file yet.
    ///
    /// - Throws: ``JSONStoreError/malformedDocument(file:offset:reason:)`` for text that is not
    ///   JSON, ``JSONStoreError/wrongShape(file:path:reason:)`` for JSON that is not a Strata
    ///   document of this schema, ``JSONStoreError/unsupportedFormatVersion(file:version:)``,
    ///   ``JSONStoreError/operationFailed(file:operation:errorNumber:)`` when the file cannot be
    ///   read, and ``DataStoreError/unsupportedFeature`` when the configuration has no schema.
    public init(_ configuration: JSONStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        guard let schema = configuration.schema else { throw DataStoreError.unsupportedFeature }
        try configuration.validate()
        self.configuration = configuration
        self.schema = schema
        let file = JSONDocumentFile(url: configuration.url, permissions: configuration.filePermissions)
        let layouts = schema.entities.map(JSONEntityLayout.init)
        self.file = file
        self.layouts = layouts
        let initial: State
        var migrated = false
        if let (bytes, identity) = try file.read() {
            let contents: JSONStoreContents
            // Record by record first, which needs a fraction of the memory; whole when that
            // fails, so that every error is the one the whole document gives.
            if let document = JSONDocument.parseByOutline(bytes, file: file.path),
                let read = try? Self.read(document, layouts: layouts, schema: schema, migrationPlan: migrationPlan)
            {
                (contents, migrated) = read
            } else {
                let document = try JSONDocument.parse(bytes, file: file.path)
                (contents, migrated) = try Self.read(document, layouts: layouts, schema: schema, migrationPlan: migrationPlan)
            }
            if migrated { try Self.checkUniqueness(contents, layouts: layouts, schema: schema, file: file.path) }
            initial = State(contents: contents, identity: identity)
        } else {
            var contents = JSONStoreContents(storeIdentifier: UUID().uuidString)
            for layout in layouts { contents.tables[layout.name] = JSONStoreContents.Table() }
            initial = State(contents: contents, identity: nil)
        }
        self.identifier = initial.contents.storeIdentifier
        self.state = Locked(initial)
        // A document written with another schema is rewritten with this one at once, so that
        // a migration's lightweight step is on disk when the store opens.
        if migrated && configuration.allowsSave {
            var next = initial
            try write(&next)
            state.withLock { $0 = next }
        }
    }

    /// Reads a parsed document with `schema`, and whether it was written with another schema.
    ///
    /// - Throws: ``SwiftDataError/backwardMigration`` for a document of a newer schema
    ///   without a migration plan, or what ``JSONStoreFormat`` throws.
    private static func read(
        _ document: JSONDocument, layouts: [JSONEntityLayout], schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?
    ) throws -> (contents: JSONStoreContents, migrated: Bool) {
        var change = JSONStoreFormat.SchemaChange()
        var migrated = false
        if let recorded = try JSONStoreFormat.recordedSchema(document) {
            if recorded.version > schema.version && migrationPlan == nil {
                throw SwiftDataError.backwardMigration.with(
                    details: "\(document.file) was written by schema version \(recorded.version); this app's schema is \(schema.version)")
            }
            if !recorded.hasSameStructure(as: schema) { change = JSONStoreFormat.SchemaChange(from: recorded, to: schema) }
            migrated = recorded != schema
        }
        return (try JSONStoreFormat.read(document, layouts: layouts, change: change), migrated)
    }

    /// Refuses contents that break one of the schema's unique constraints, as a document
    /// written before a constraint existed may.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming the entity and the constraint.
    private static func checkUniqueness(_ contents: JSONStoreContents, layouts: [JSONEntityLayout], schema: Schema, file: String) throws {
        for layout in layouts {
            guard let entity = schema.entitiesByName[layout.name], let records = contents.tables[layout.name]?.records else { continue }
            for constraint in entity.uniquenessConstraints {
                let positions = constraint.compactMap { layout.positions[$0] }
                guard positions.count == constraint.count else { continue }
                var seen = Set<[PersistentValue]>()
                for record in records where !seen.insert(positions.map { record.snapshot.values[$0] }).inserted {
                    throw SwiftDataError.modelValidationFailure.with(
                        details: "\(file): the unique constraint on \(layout.name) (\(constraint.joined(separator: ", "))) does not hold for the stored records, which have duplicates; remove them in a custom migration stage's willMigrate first")
                }
            }
        }
    }

    // MARK: Fetching

    /// The snapshots of `T` matching the request, sorted and windowed.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``
    ///   when the request has no store-neutral form, or an evaluation error.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: try select(request))
    }

    /// The number of models matching the request's filter, within its window.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try select(request, sorted: false).count
    }

    /// The identifiers of the models matching the request, in order.
    ///
    /// - Throws: As ``fetch(_:)``.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try select(request).map(\.persistentIdentifier)
    }

    /// The matching snapshots in document order, then sorted (unless `sorted` is `false`) and
    /// windowed; for a lookup by identifier, the held ones in the requested order.
    private func select<T: PersistentModel>(_ request: DataStoreFetchRequest<T>, sorted: Bool = true) throws -> [DefaultSnapshot] {
        let entityName = Schema.entityName(for: T.self)
        let contents = state.withLock { $0.contents }
        guard let table = contents.tables[entityName] else { throw unknownEntity(entityName) }
        if let identifiers = request.identifiers {
            var seen = Set<PersistentIdentifier>()
            return identifiers.compactMap { id in
                guard id.entityName == entityName, seen.insert(id).inserted else { return nil }
                return contents.snapshot(for: id)
            }
        }
        let filter = try request.filter
        let keys = sorted ? try request.sortKeys : []
        let evaluator = FilterEvaluator { contents.snapshot(for: $0) }
        var snapshots: [DefaultSnapshot] = []
        // Each record read in place: iterating the array copied every record, its identifier
        // and arrays, to copy its snapshot once more.
        for index in table.records.indices {
            if let filter, try !evaluator.matches(table.records[index].snapshot, filter) { continue }
            snapshots.append(table.records[index].snapshot)
        }
        return try evaluator.sortedWindow(
            snapshots, by: keys, offset: request.descriptor.fetchOffset, limit: request.descriptor.fetchLimit)
    }

    // MARK: Saving

    /// Applies inserts, updates and deletes, writes the document, and gives inserted models
    /// permanent identifiers; nothing changes, in memory or on disk, when it throws.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` configuration,
    ///   ``JSONStoreError/documentChangedOnDisk(file:)`` when the file changed since it was
    ///   read, ``SwiftDataError/modelValidationFailure`` when an update or delete names a model
    ///   the document does not hold, ``SwiftDataError/configurationSchemaNotFoundInContainerSchema``
    ///   for a model of an entity it does not hold, or a write failure.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        if request.inserted.isEmpty && request.updated.isEmpty && request.deleted.isEmpty {
            return DataStoreSaveChangesResult(for: identifier)
        }
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        return try saving.withLock {
            var next = state.withLock { $0 }
            var recorder = HistoryRecorder()
            let permanent = try apply(request, to: &next.contents, recorder: &recorder)
            let token = next.contents.history.append(
                recorder, author: request.editingState.author, storeIdentifier: identifier, retention: configuration.historyRetention)
            try write(&next)
            state.withLock { $0 = next }
            return DataStoreSaveChangesResult(for: identifier, request: request, insertedIdentifiers: permanent, historyToken: token)
        }
    }

    /// Applies a save request to `contents`, returning the permanent identifiers of inserted
    /// models in the order of the request's inserts.
    private func apply(
        _ request: DataStoreSaveChangesRequest<DefaultSnapshot>, to contents: inout JSONStoreContents, recorder: inout HistoryRecorder
    ) throws -> [PersistentIdentifier] {
        // The permanent identifier of the last entity seen, to put each new key into: making
        // each from the names looked their scope up (a lock and the hash of two strings).
        var template: PersistentIdentifier?
        // The new identifiers in the order of the inserts.
        var permanent: [PersistentIdentifier] = []
        permanent.reserveCapacity(request.inserted.count)
        for snapshot in request.inserted {
            guard contents.nextKey < .max else {
                throw JSONStoreError.unrepresentableValue(file: file.path, path: "nextKey", reason: "no key is left for new models")
            }
            let key = contents.nextKey
            contents.nextKey += 1
            let entityName = snapshot.persistentIdentifier.entityName
            if template?.entityName != entityName {
                template = try PersistentIdentifier.identifier(for: identifier, entityName: entityName, primaryKey: 0)
            }
            permanent.append(template!.replacingPrimaryKey(key))
        }
        var remapping = SaveRemapping(inserted: request.inserted, permanent: permanent)
        // Inserts come in runs of one entity: its table is taken out of the contents for the
        // run and put back after it, where changing it in place per record moved it out of
        // the dictionary and back and hashed the entity's name each time.
        var table: (name: String, records: JSONStoreContents.Table)?
        for (snapshot, id) in zip(request.inserted, permanent) {
            let record = JSONStoreContents.Record(
                key: id.primaryKey(as: Int64.self)!, snapshot: remapping.copy(snapshot, as: id),
                unknownMembers: [])
            if table?.name != id.entityName {
                if let finished = table { contents.tables[finished.name] = finished.records }
                guard let taken = contents.tables.removeValue(forKey: id.entityName) else { throw unknownEntity(id.entityName) }
                table = (id.entityName, taken)
            }
            _ = table!.records.append(record)
            recorder.insert(id.entityName, key: record.key)
        }
        if let finished = table { contents.tables[finished.name] = finished.records }
        for snapshot in request.updated {
            let id = snapshot.persistentIdentifier
            guard contents.tables[id.entityName] != nil else { throw unknownEntity(id.entityName) }
            guard let key = id.primaryKey(as: Int64.self, inStore: identifier),
                contents.tables[id.entityName]!.merge(key, changes: remapping.copy(snapshot, as: id))
            else { throw missingModel(id.description) }
            recorder.update(id.entityName, key: key, properties: snapshot.propertyNames)
        }
        var deletions: [String: Set<Int64>] = [:]
        for snapshot in request.deleted {
            let id = snapshot.persistentIdentifier
            guard contents.tables[id.entityName] != nil else { throw unknownEntity(id.entityName) }
            guard let key = id.primaryKey(as: Int64.self, inStore: identifier) else { throw missingModel(id.description) }
            deletions[id.entityName, default: []].insert(key)
            if let stored = contents.tables[id.entityName]!.record(for: key) { recordDelete(stored, into: &recorder) }
        }
        for (entityName, keys) in deletions {
            guard contents.tables[entityName]!.remove(keys) else {
                let missing = keys.filter { contents.tables[entityName]!.record(for: $0) == nil }.sorted()
                throw missingModel("\(entityName) with key(s) \(missing)")
            }
        }
        return permanent
    }

    private func recordDelete(_ record: JSONStoreContents.Record, into recorder: inout HistoryRecorder) {
        let entityName = record.snapshot.persistentIdentifier.entityName
        guard configuration.historyRetention.isEnabled, let entity = schema.entitiesByName[entityName] else { return }
        recorder.delete(entityName, key: record.key, tombstone: HistoryRecorder.tombstone(of: entity) { record.snapshot[$0] })
    }

    private func unknownEntity(_ entityName: String) -> SwiftDataError {
        SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(details: "the JSON store \(file.path) holds no entity \(entityName)")
    }

    private func missingModel(_ model: String) -> SwiftDataError {
        SwiftDataError.modelValidationFailure.with(details: "the JSON store \(file.path) holds no model \(model); nothing was saved")
    }

    /// Writes `state.contents` over the document and records the new file's identity.
    private func write(_ state: inout State) throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        let document = try JSONStoreFormat.write(
            state.contents, layouts: layouts, schema: schema, file: file.path, sizeHint: state.identity.map { Int(clamping: $0.size) })
        let expected = state.identity
        state.identity = try document.withSerialized { try file.replace(with: $0, expecting: expected) }
    }

    /// Deletes every model of `T` the request's filter selects, and writes the document.
    ///
    /// - Throws: ``DataStoreError/preferInMemoryFilter`` when the predicate has no store-neutral
    ///   form, or as ``save(_:)``.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let filter = try request.filter
        let entityName = Schema.entityName(for: T.self)
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        try saving.withLock {
            var next = state.withLock { $0 }
            guard let table = next.contents.tables[entityName] else { throw unknownEntity(entityName) }
            let contents = next.contents
            let evaluator = FilterEvaluator { contents.snapshot(for: $0) }
            var keys = Set<Int64>()
            var recorder = HistoryRecorder()
            for record in table.records {
                if let filter, try !evaluator.matches(record.snapshot, filter) { continue }
                keys.insert(record.key)
                recordDelete(record, into: &recorder)
            }
            guard !keys.isEmpty else { return }
            _ = next.contents.tables[entityName]!.remove(keys)
            _ = next.contents.history.append(
                recorder, author: request.editingState.author, storeIdentifier: identifier, retention: configuration.historyRetention)
            try write(&next)
            state.withLock { $0 = next }
        }
    }

    // MARK: History

    /// The transactions `descriptor` selects, from the document's `history` member as read or last written.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when the descriptor asks after a token
    ///   older than what was deleted, or the predicate's evaluation error.
    public func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try state.withLock { $0.contents.history }.fetch(descriptor, storeIdentifier: identifier, schema: schema)
    }

    /// Deletes the transactions `descriptor` selects and writes the document.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` configuration,
    ///   the predicate's evaluation error, or as ``save(_:)``.
    public func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        try saving.withLock {
            var next = state.withLock { $0 }
            let before = next.contents.history
            try next.contents.history.delete(descriptor, storeIdentifier: identifier, schema: schema)
            guard next.contents.history != before else { return }
            try write(&next)
            state.withLock { $0 = next }
        }
    }

    // MARK: Other requests

    /// Says that the filter, sort and window run on the document's snapshots in memory, or why the store refuses them.
    public func explain<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> String {
        let entityName = Schema.entityName(for: T.self)
        var parts: [String] = []
        if let identifiers = request.identifiers {
            return "JSONStore looks up \(identifiers.count) \(entityName) record(s) by key"
        }
        switch Result(catching: { try request.filter }) {
        case .success(nil): parts.append("JSONStore scans every \(entityName) record of \(file.path) (loaded in memory)")
        case .success(.contains(.list, .property(0, []))?): parts.append("JSONStore looks up \(entityName) records by key")
        case .success: parts.append("JSONStore evaluates the filter on each \(entityName) record of \(file.path) (loaded in memory)")
        case .failure: parts.append("JSONStore refuses the filter (no store-neutral form); the core filters in memory")
        }
        switch Result(catching: { try request.sortKeys }) {
        case .success(let keys) where !keys.isEmpty: parts.append("sorts by \(keys.map { $0.path.joined(separator: ".") }.joined(separator: ", "))")
        case .success: break
        case .failure: parts.append("refuses the sort; the core sorts in memory")
        }
        if request.descriptor.fetchOffset != nil || request.descriptor.fetchLimit != nil { parts.append("applies the offset and limit") }
        return parts.joined(separator: "; ")
    }

    /// Removes every model and deletes the document.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` for an `allowsSave: false` configuration,
    ///   or a file-system failure.
    public func erase() throws {
        guard configuration.allowsSave else { throw DataStoreError.unsupportedFeature }
        try saving.withLock {
            try file.remove()
            state.withLock { state in
                var contents = JSONStoreContents(storeIdentifier: identifier)
                contents.nextKey = state.contents.nextKey
                // Tokens from before the erase expire: the transaction numbers go on from where they were.
                let nextTransaction = state.contents.history.nextTransaction
                contents.history = HistoryLog(nextTransaction: nextTransaction, horizon: nextTransaction - 1)
                for layout in layouts { contents.tables[layout.name] = JSONStoreContents.Table() }
                state = State(contents: contents, identity: nil)
            }
        }
    }
}
