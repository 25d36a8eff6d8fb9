import Foundation

/// One save as a built-in store keeps it, in plain values a store can write in its own form;
/// ``transaction(schema:)`` turns it into the ``DefaultHistoryTransaction`` apps read.
package struct HistoryRecord: Codable, Sendable {
    /// One change of the save.
    package struct Change: Codable, Sendable {
        package enum Kind: String, Codable, Sendable { case insert, update, delete }
        package var kind: Kind
        package var identifier: PersistentIdentifier
        /// For an update, the properties it changed.
        package var updatedProperties: [String]
        /// For a delete, the values of the `.preserveValueOnDeletion` attributes.
        package var tombstone: [String: PersistentValue]
    }

    package var transactionIdentifier: Int64
    package var timestamp: Date
    package var author: String?
    package var storeIdentifier: String
    package var bundleIdentifier: String
    package var processIdentifier: String
    package var changes: [Change]

    /// The record of a save: inserts under their permanent identifiers, updates with the
    /// properties their snapshots list, deletes with their preserved values.
    package init<S: DataStoreSnapshot>(
        _ request: DataStoreSaveChangesRequest<S>, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier],
        transactionIdentifier: Int64, storeIdentifier: String, schema: Schema, timestamp: Date = Date()
    ) {
        self.transactionIdentifier = transactionIdentifier
        self.timestamp = timestamp
        self.author = request.editingState.author
        self.storeIdentifier = storeIdentifier
        let process = ProcessInfo.processInfo
        self.bundleIdentifier = Bundle.main.bundleIdentifier ?? process.processName
        self.processIdentifier = String(process.processIdentifier)
        var changes: [Change] = []
        for snapshot in request.inserted {
            let id = remappedIdentifiers[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier
            changes.append(Change(kind: .insert, identifier: id, updatedProperties: [], tombstone: [:]))
        }
        for snapshot in request.updated {
            let names = (snapshot as? DefaultSnapshot)?.propertyNames
                ?? schema.entitiesByName[snapshot.persistentIdentifier.entityName]?.storedPropertyNames ?? []
            changes.append(Change(kind: .update, identifier: snapshot.persistentIdentifier, updatedProperties: names, tombstone: [:]))
        }
        for snapshot in request.deleted {
            var preserved: [String: PersistentValue] = [:]
            if let entity = schema.entitiesByName[snapshot.persistentIdentifier.entityName], let values = snapshot as? DefaultSnapshot {
                for attribute in entity.attributes where attribute.options.contains(.preserveValueOnDeletion) {
                    if let value = values[attribute.name] { preserved[attribute.name] = value }
                }
            }
            changes.append(Change(kind: .delete, identifier: snapshot.persistentIdentifier, updatedProperties: [], tombstone: preserved))
        }
        self.changes = changes
    }

    /// The transaction apps read: each change typed by its model, when the schema knows the
    /// model's type; changes of entities it does not know are left out.
    package func transaction(schema: Schema) -> DefaultHistoryTransaction {
        var typed: [HistoryChange] = []
        for (position, change) in changes.enumerated() {
            guard let type = schema.entitiesByName[change.identifier.entityName]?.modelType else { continue }
            typed.append(type.historyChange(change, position: Int64(position), transaction: transactionIdentifier))
        }
        return DefaultHistoryTransaction(
            id: transactionIdentifier, timestamp: timestamp, changes: typed, storeIdentifier: storeIdentifier,
            bundleIdentifier: bundleIdentifier, processIdentifier: processIdentifier, author: author)
    }
}

extension PersistentModel {
    /// `change` as a change of this model type.
    static func historyChange(_ change: HistoryRecord.Change, position: Int64, transaction: Int64) -> HistoryChange {
        switch change.kind {
        case .insert:
            return .insert(DefaultHistoryInsert<Self>(
                changeIdentifier: position, transactionIdentifier: transaction, changedPersistentIdentifier: change.identifier))
        case .update:
            let layout = ModelLayout.of(Self.self)
            let keyPaths = change.updatedProperties.compactMap { name -> (any PartialKeyPath<Self> & Sendable)? in
                guard let slot = layout.propertyNames.firstIndex(of: name), let keyPath = layout.keyPaths[slot] as? PartialKeyPath<Self> else {
                    return nil
                }
                return unsafeBitCast(keyPath, to: (any PartialKeyPath<Self> & Sendable).self)
            }
            return .update(DefaultHistoryUpdate<Self>(
                changeIdentifier: position, transactionIdentifier: transaction, changedPersistentIdentifier: change.identifier,
                updatedAttributes: keyPaths))
        case .delete:
            let layout = ModelLayout.of(Self.self)
            var values: [(keyPath: PartialKeyPath<Self>, value: any Sendable)] = []
            for (slot, name) in layout.propertyNames.enumerated() {
                guard let stored = change.tombstone[name], let keyPath = layout.keyPaths[slot] as? PartialKeyPath<Self> else { continue }
                values.append((keyPath, Self.tombstoneValue(stored, for: keyPath)))
            }
            return .delete(DefaultHistoryDelete<Self>(
                changeIdentifier: position, transactionIdentifier: transaction, changedPersistentIdentifier: change.identifier,
                tombstone: HistoryTombstone(values)))
        }
    }

    /// A preserved value as the property's own type where that type reads stored values.
    private static func tombstoneValue(_ stored: PersistentValue, for keyPath: PartialKeyPath<Self>) -> any Sendable {
        func decode<Value>(_: Value.Type) -> (any Sendable)? {
            if let type = Value.self as? any PersistentAttributeValue.Type, let value = type.init(persistentValue: stored) {
                // Stored attribute types are value types of plain data; `Any` and `any Sendable`
                // share one layout (Sendable is a marker).
                return unsafeBitCast(value as Any, to: (any Sendable).self)
            }
            return nil
        }
        return _openExistential(type(of: keyPath).valueType, do: decode) ?? stored
    }
}
