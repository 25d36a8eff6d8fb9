import Foundation

/// One save as a built-in store keeps it, in plain values a store can write in its own form;
/// ``transaction(schema:)`` turns it into the ``DefaultHistoryTransaction`` apps read.
///
/// The changes are kept as runs: consecutive changes of one kind and entity whose keys
/// follow one another (and, for updates, that changed the same properties) are one run, so
/// a save of 100,000 new rows records one run rather than 100,000 changes.
package struct HistoryRecord: Sendable, Hashable {
    /// Changes of one kind to models of one entity with consecutive keys.
    package struct Run: Sendable, Hashable {
        package enum Kind: String, Sendable { case insert = "i", update = "u", delete = "d" }
        package var kind: Kind
        package var entityName: String
        /// The key of the first model of the run.
        package var firstKey: Int64
        /// How many models the run covers: keys `firstKey ..< firstKey + count`.
        package var count: Int64
        /// For updates, the properties changed.
        package var updatedProperties: [String] = []
        /// For deletes, the values of the `.preserveValueOnDeletion` attributes; a delete
        /// with preserved values is a run of one.
        package var tombstone: [String: PersistentValue] = [:]

        /// Whether `key` is the one after the run's last, compared without overflow: a run
        /// may end at the largest key.
        func continues(with key: Int64) -> Bool {
            firstKey.addingReportingOverflow(count) == (key, false)
        }
    }

    package var transactionIdentifier: Int64
    package var timestamp: Date
    package var author: String?
    package var storeIdentifier: String
    package var bundleIdentifier: String
    package var processIdentifier: String
    package var runs: [Run]

    /// A record with the saving process's bundle and process identifiers.
    package init(transactionIdentifier: Int64, timestamp: Date = Date(), author: String?, storeIdentifier: String, runs: [Run]) {
        self.init(
            transactionIdentifier: transactionIdentifier, timestamp: timestamp, author: author, storeIdentifier: storeIdentifier,
            bundleIdentifier: Self.currentProcess.bundle, processIdentifier: Self.currentProcess.process, runs: runs)
    }

    /// A record with every field given, as a store reads one back.
    package init(
        transactionIdentifier: Int64, timestamp: Date, author: String?, storeIdentifier: String, bundleIdentifier: String,
        processIdentifier: String, runs: [Run]
    ) {
        self.transactionIdentifier = transactionIdentifier
        self.timestamp = timestamp
        self.author = author
        self.storeIdentifier = storeIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.processIdentifier = processIdentifier
        self.runs = runs
    }

    /// This process's bundle identifier (its name where it has none) and process identifier.
    package static let currentProcess: (bundle: String, process: String) = {
        let process = ProcessInfo.processInfo
        return (Bundle.main.bundleIdentifier ?? process.processName, String(process.processIdentifier))
    }()

    /// The number of changes the record holds.
    package var changeCount: Int64 { runs.reduce(0) { $0 + $1.count } }

    /// The transaction apps read: each change typed by its model, when the schema knows the
    /// model's type; changes of entities it does not know are left out.
    package func transaction(schema: Schema) -> DefaultHistoryTransaction {
        var typed: [HistoryChange] = []
        var position: Int64 = 0
        for var run in runs {
            // A run recorded before its entity was renamed reads as a change of the new entity.
            let entity = schema.entitiesByName[run.entityName] ?? schema.entities.first { $0.originalName == run.entityName }
            guard let entity, let type = entity.modelType else {
                position += run.count
                continue
            }
            run.entityName = entity.name
            typed += type.historyChanges(run, storeIdentifier: storeIdentifier, firstPosition: position, transaction: transactionIdentifier)
            position += run.count
        }
        return DefaultHistoryTransaction(
            id: transactionIdentifier, timestamp: timestamp, changes: typed, storeIdentifier: storeIdentifier,
            bundleIdentifier: bundleIdentifier, processIdentifier: processIdentifier, author: author)
    }
}

/// Collects the changes of one save, in the order the store makes them, into runs.
package struct HistoryRecorder: Sendable {
    package private(set) var runs: [HistoryRecord.Run] = []

    package init() {}

    /// Records the insert of the model with `key`.
    package mutating func insert(_ entityName: String, key: Int64) {
        append(.insert, entityName, key)
    }

    /// Records the inserts of the rows `keys` of `entityName`, in order: what ``insert(_:key:)``
    /// records for each of them, in one step.
    package mutating func insert(_ entityName: String, keys: Range<Int64>) {
        guard let first = keys.first else { return }
        append(.insert, entityName, first)
        runs[runs.count - 1].count += Int64(keys.count - 1)
    }

    /// Records an update of the model with `key` that changed `properties`.
    package mutating func update(_ entityName: String, key: Int64, properties: [String]) {
        append(.update, entityName, key, properties: properties)
    }

    /// Records updates of the rows `keys` of `entityName`, in order, each changing
    /// `properties`: what ``update(_:key:properties:)`` records for each of them, with the
    /// name and the properties compared once rather than for every row.
    package mutating func update(_ entityName: String, keys: ArraySlice<Int64>, properties: [String]) {
        guard let first = keys.first else { return }
        append(.update, entityName, first, properties: properties)
        // The last run is now this chunk's: only a gap in the keys starts another.
        for key in keys.dropFirst() {
            if runs[runs.count - 1].continues(with: key) {
                runs[runs.count - 1].count += 1
            } else {
                append(.update, entityName, key, properties: properties)
            }
        }
    }

    /// Records the delete of the model with `key`, with its preserved values.
    package mutating func delete(_ entityName: String, key: Int64, tombstone: [String: PersistentValue] = [:]) {
        append(.delete, entityName, key, tombstone: tombstone)
    }

    /// The values of the `.preserveValueOnDeletion` attributes of `entity` that `value(_:)`
    /// gives, by name: what the delete of such a model records.
    package static func tombstone(of entity: Schema.Entity, _ value: (String) throws -> PersistentValue?) rethrows -> [String: PersistentValue] {
        var tombstone: [String: PersistentValue] = [:]
        for attribute in entity.attributes where attribute.options.contains(.preserveValueOnDeletion) {
            if let stored = try value(attribute.name) { tombstone[attribute.name] = stored }
        }
        return tombstone
    }

    private mutating func append(
        _ kind: HistoryRecord.Run.Kind, _ entityName: String, _ key: Int64, properties: [String] = [],
        tombstone: [String: PersistentValue] = [:]
    ) {
        // The last run's fields are read in place: a copy of the run retained and released
        // its name, properties and tombstone for every model a save wrote.
        let last = runs.count - 1
        if tombstone.isEmpty, last >= 0, runs[last].kind == kind, runs[last].continues(with: key), runs[last].tombstone.isEmpty,
            runs[last].entityName == entityName, runs[last].updatedProperties == properties
        {
            runs[last].count += 1
            return
        }
        runs.append(HistoryRecord.Run(
            kind: kind, entityName: entityName, firstKey: key, count: 1, updatedProperties: properties, tombstone: tombstone))
    }
}

// MARK: Text form

extension HistoryRecord {
    /// The runs as compact JSON, the form SQLite and JSON documents keep:
    /// `[["i","Trip",1,100],["u","Trip",7,1,["name"]],["d","Trip",9,1,[],{"code":{"string":"K"}}]]`.
    ///
    /// - Throws: `EncodingError` when a preserved value cannot be encoded.
    package static func encode(_ runs: [Run]) throws -> String {
        var text = "["
        for (index, run) in runs.enumerated() {
            if index > 0 { text += "," }
            text += "[\"\(run.kind.rawValue)\","
            appendQuoted(run.entityName, to: &text)
            text += ",\(run.firstKey),\(run.count)"
            if !run.updatedProperties.isEmpty || !run.tombstone.isEmpty {
                text += ",["
                for (position, name) in run.updatedProperties.enumerated() {
                    if position > 0 { text += "," }
                    appendQuoted(name, to: &text)
                }
                text += "]"
            }
            if !run.tombstone.isEmpty {
                let encoder = JSONEncoder()
                encoder.outputFormatting = .sortedKeys
                text += ","
                text += String(decoding: try encoder.encode(run.tombstone), as: UTF8.self)
            }
            text += "]"
        }
        return text + "]"
    }

    /// The runs of text ``encode(_:)`` wrote.
    ///
    /// - Throws: `DecodingError` when the text is not in that form.
    package static func decodeRuns(_ text: String) throws -> [Run] {
        let runs = try JSONDecoder().decode([Run].self, from: Data(text.utf8))
        // Positions of the changes count on from 0 across the runs.
        var total: Int64 = 0
        for run in runs {
            let (sum, overflow) = total.addingReportingOverflow(run.count)
            guard !overflow else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the history runs hold more changes than a count can"))
            }
            total = sum
        }
        return runs
    }

    private static func appendQuoted(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension HistoryRecord.Run: Decodable {
    package init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let code = try container.decode(String.self)
        guard let kind = Kind(rawValue: code) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown history change kind \"\(code)\"")
        }
        self.kind = kind
        entityName = try container.decode(String.self)
        firstKey = try container.decode(Int64.self)
        count = try container.decode(Int64.self)
        guard count >= 1 else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "a history run covers no change") }
        guard !firstKey.addingReportingOverflow(count - 1).overflow else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a history run's keys pass the largest key")
        }
        updatedProperties = container.isAtEnd ? [] : try container.decode([String].self)
        tombstone = container.isAtEnd ? [:] : try container.decode([String: PersistentValue].self)
    }
}

// MARK: Typed changes

extension PersistentModel {
    /// The changes of `run`, typed as changes of this model type.
    static func historyChanges(_ run: HistoryRecord.Run, storeIdentifier: String, firstPosition: Int64, transaction: Int64) -> [HistoryChange] {
        let layout = ModelLayout.of(Self.self)
        var changes: [HistoryChange] = []
        changes.reserveCapacity(Int(clamping: run.count))
        switch run.kind {
        case .insert:
            for offset in 0..<run.count {
                guard let id = try? PersistentIdentifier.identifier(for: storeIdentifier, entityName: run.entityName, primaryKey: run.firstKey + offset) else { continue }
                changes.append(.insert(DefaultHistoryInsert<Self>(
                    changeIdentifier: firstPosition + offset, transactionIdentifier: transaction, changedPersistentIdentifier: id)))
            }
        case .update:
            let keyPaths = run.updatedProperties.compactMap { name -> (any PartialKeyPath<Self> & Sendable)? in
                guard let slot = layout.propertyNames.firstIndex(of: name), let keyPath = layout.keyPaths[slot] as? PartialKeyPath<Self> else {
                    return nil
                }
                // Key paths to stored properties are immutable values; the cast only adds the marker.
                return unsafeBitCast(keyPath, to: (any PartialKeyPath<Self> & Sendable).self)
            }
            for offset in 0..<run.count {
                guard let id = try? PersistentIdentifier.identifier(for: storeIdentifier, entityName: run.entityName, primaryKey: run.firstKey + offset) else { continue }
                changes.append(.update(DefaultHistoryUpdate<Self>(
                    changeIdentifier: firstPosition + offset, transactionIdentifier: transaction, changedPersistentIdentifier: id,
                    updatedAttributes: keyPaths)))
            }
        case .delete:
            var values: [(keyPath: PartialKeyPath<Self>, value: any Sendable)] = []
            for (slot, name) in layout.propertyNames.enumerated() {
                guard let stored = run.tombstone[name], let keyPath = layout.keyPaths[slot] as? PartialKeyPath<Self> else { continue }
                values.append((keyPath, Self.tombstoneValue(stored, for: keyPath)))
            }
            let tombstone = HistoryTombstone(values)
            for offset in 0..<run.count {
                guard let id = try? PersistentIdentifier.identifier(for: storeIdentifier, entityName: run.entityName, primaryKey: run.firstKey + offset) else { continue }
                changes.append(.delete(DefaultHistoryDelete<Self>(
                    changeIdentifier: firstPosition + offset, transactionIdentifier: transaction, changedPersistentIdentifier: id,
                    tombstone: tombstone)))
            }
        }
        return changes
    }

    /// A preserved value as the property's own type where that type reads stored values; an
    /// optional property's value as its wrapped type, or `nil` as `Optional<Wrapped>.none`.
    private static func tombstoneValue(_ stored: PersistentValue, for keyPath: PartialKeyPath<Self>) -> any Sendable {
        var valueType = type(of: keyPath).valueType
        if let optional = valueType as? any _OptionalType.Type {
            if stored.isNull { return Self.sendable(optional.nilValue) }
            valueType = optional.wrappedType
        }
        func decode<Value>(_: Value.Type) -> (any Sendable)? {
            if let type = Value.self as? any PersistentAttributeValue.Type, let value = type.init(persistentValue: stored) {
                return Self.sendable(value)
            }
            return nil
        }
        return _openExistential(valueType, do: decode) ?? stored
    }

    /// A stored attribute's value as `any Sendable`: attribute types are value types of plain
    /// data, and `Any` and `any Sendable` share one layout (Sendable is a marker protocol).
    private static func sendable(_ value: Any) -> any Sendable {
        withUnsafePointer(to: value) { $0.withMemoryRebound(to: (any Sendable).self, capacity: 1) { $0.pointee } }
    }
}
