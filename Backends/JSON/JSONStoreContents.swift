import Foundation
import StrataCore

/// The models of one document as the store keeps them in memory, with everything of the
/// file it does not understand, so a rewrite keeps it.
struct JSONStoreContents: Sendable {
    /// One model: its key, its snapshot, and members of its object the schema does not name.
    struct Record: Sendable {
        var key: Int64
        var snapshot: DefaultSnapshot
        /// Unknown members as compact JSON text, in document order.
        var unknownMembers: [(key: String, json: [UInt8])]
    }

    /// The records of one entity in document order, with their positions by key.
    struct Table: Sendable {
        private(set) var records: [Record] = []
        private(set) var positions: [Int64: Int] = [:]

        func record(for key: Int64) -> Record? { positions[key].map { records[$0] } }

        /// Adds `record` at the end; `false` when its key is taken.
        mutating func append(_ record: Record) -> Bool {
            guard positions[record.key] == nil else { return false }
            positions[record.key] = records.count
            records.append(record)
            return true
        }

        /// Writes the values `changes` lists into the record with `key`, keeping the values it
        /// does not list and the record's unknown members; `false` when there is no such record.
        mutating func merge(_ key: Int64, changes: DefaultSnapshot) -> Bool {
            guard let position = positions[key] else { return false }
            let stored = records[position].snapshot
            if changes.propertyNames == stored.propertyNames {
                records[position].snapshot = changes
                return true
            }
            var merged = stored
            for (name, value) in zip(changes.propertyNames, changes.values) {
                guard let index = stored.propertyNames.firstIndex(of: name) else { continue }
                merged[index: index] = value
            }
            records[position].snapshot = merged
            return true
        }

        /// Removes the records with `keys`; `false` when one is missing (nothing is removed then).
        mutating func remove(_ keys: Set<Int64>) -> Bool {
            guard !keys.isEmpty else { return true }
            guard keys.allSatisfy({ positions[$0] != nil }) else { return false }
            records.removeAll { keys.contains($0.key) }
            positions = Dictionary(uniqueKeysWithValues: records.enumerated().map { ($1.key, $0) })
            return true
        }
    }

    /// The store's identifier, written as `storeIdentifier`.
    var storeIdentifier: String
    /// The next key to give an inserted model; keys are never reused.
    var nextKey: Int64 = 1
    /// The tables of the schema's entities, by entity name.
    var tables: [String: Table] = [:]
    /// Arrays under `entities` for entities the schema does not hold, as JSON text.
    var unknownEntities: [(name: String, json: [UInt8])] = []
    /// Top-level members the format does not define, as JSON text.
    var unknownMembers: [(key: String, json: [UInt8])] = []
    /// The document's transactions, written as its `history` member.
    var history = HistoryLog()

    /// The snapshot of the model `identifier` names, if this document holds it.
    func snapshot(for identifier: PersistentIdentifier) -> DefaultSnapshot? {
        guard let key = identifier.primaryKey(as: Int64.self, inStore: storeIdentifier) else { return nil }
        return tables[identifier.entityName]?.record(for: key)?.snapshot
    }
}
