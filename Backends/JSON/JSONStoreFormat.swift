import Foundation
import StrataCore

/// The `strata-json` document format: reading a document into ``JSONStoreContents`` and writing one back.
///
/// ```json
/// {"format": "strata-json", "formatVersion": 1, "schemaVersion": "1.0.0",
///  "storeIdentifier": "…", "nextKey": 9, "entities": {"Trip": [{"id": "1", "name": "Kyoto", …}]},
///  "history": {…}, "schema": {…}}
/// ```
/// The StrataCore catalog's "JSON store format" article describes every rule.
enum JSONStoreFormat {
    /// The value of the `format` member.
    static let name = "strata-json"
    /// The newest `formatVersion` this store reads, and the one it writes.
    static let version = 1
    /// The top-level members the format defines; others are kept as they are.
    static let definedMembers: Set<String> = [
        "format", "formatVersion", "schemaVersion", "schema", "storeIdentifier", "nextKey", "entities", "history",
    ]

    /// The schema a document records in its `schema` member, or `nil` when it records none.
    ///
    /// - Throws: ``JSONStoreError/wrongShape(file:path:reason:)`` when the member is not a schema.
    static func recordedSchema(_ document: JSONDocument) throws -> Schema? {
        guard let member = document.rootNode.member("schema") else { return nil }
        do {
            return try JSONDecoder().decode(Schema.self, from: Data(member.plainText))
        } catch {
            throw JSONStoreError.wrongShape(file: document.file, path: "schema", reason: "not a schema Strata wrote: \(error)")
        }
    }

    /// Reads a parsed document.
    ///
    /// - Throws: ``JSONStoreError/wrongShape(file:path:reason:)`` naming the first value that
    ///   does not fit, or ``JSONStoreError/unsupportedFormatVersion(file:version:)``.
    /// With a `change`, the document was written with an older schema: renamed properties are
    /// read from their former members, and the members and entities the schema no longer has
    /// are dropped rather than kept as unknown.
    static func read(_ document: JSONDocument, layouts: [JSONEntityLayout], change: SchemaChange = SchemaChange()) throws -> JSONStoreContents {
        let file = document.file
        func wrong(_ path: String, _ reason: String) -> JSONStoreError { .wrongShape(file: file, path: path, reason: reason) }
        let root = document.rootNode
        guard root.isObject else { throw wrong("the top level", "expected an object, found \(root.typeName)") }
        guard let format = root.member("format")?.string else {
            throw wrong("format", "expected \"\(name)\"; this file is not a Strata JSON document")
        }
        guard format == name else { throw wrong("format", "expected \"\(name)\", found \"\(format)\"") }
        guard let version = root.member("formatVersion")?.int64 else { throw wrong("formatVersion", "expected an integer") }
        guard version <= Int64(Self.version), version >= 1 else {
            throw JSONStoreError.unsupportedFormatVersion(file: file, version: Int(clamping: version))
        }
        var storeIdentifier = UUID().uuidString
        if let member = root.member("storeIdentifier") {
            guard let text = member.string, !text.isEmpty else { throw wrong("storeIdentifier", "expected a non-empty string") }
            storeIdentifier = text
        }
        var contents = JSONStoreContents(storeIdentifier: storeIdentifier)
        var highestKey: Int64 = 0
        if let member = root.member("nextKey") {
            guard let next = member.int64, next >= 1 else { throw wrong("nextKey", "expected a positive integer") }
            contents.nextKey = next
        }
        guard let entities = root.member("entities"), entities.isObject else {
            throw wrong("entities", "expected an object with an array of records per entity")
        }
        let coding = JSONValueCoding(storeIdentifier: storeIdentifier, file: file)
        var layoutsByName = Dictionary(layouts.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (new, old) in change.entityRenames where layoutsByName[old] == nil { layoutsByName[old] = layoutsByName[new] }
        for layout in layouts { contents.tables[layout.name] = JSONStoreContents.Table() }
        let idKey = try document.key("id")
        try entities.forEachMember { entityName, records in
            guard let layout = layoutsByName[entityName] else {
                if change.retiredEntities.contains(entityName) {
                    // Dropped, but read by a document parsed by its outline: records that are
                    // not JSON fail the document as they do when it is parsed whole.
                    try document.forEachRecord(ofEntity: entityName, in: records) { _, _ in }
                } else {
                    contents.unknownEntities.append((entityName, try document.plainText(ofEntity: entityName, in: records)))
                }
                return
            }
            guard records.isArray else { throw wrong("entities.\(entityName)", "expected an array of records, found \(records.typeName)") }
            let renamed = change.renames[layout.name] ?? [:]
            let (table, highest) = try readRecords(
                records, named: entityName, of: document, layout: layout, keys: layout.propertyNames.map { try document.key($0) },
                formerKeys: layout.propertyNames.map { name in try renamed[name].map { try document.key($0) } },
                retired: change.retiredMembers[layout.name] ?? [], idKey: idKey, coding: coding)
            highestKey = max(highestKey, highest)
            contents.tables[layout.name] = table
        }
        root.forEachMember { member, node in
            if !definedMembers.contains(member) { contents.unknownMembers.append((member, node.plainText)) }
        }
        if highestKey == .max { throw wrong("entities", "a record's key is the largest integer; no key is left for new models") }
        contents.history = try readHistory(document, storeIdentifier: storeIdentifier)
        contents.nextKey = max(contents.nextKey, highestKey + 1)
        return contents
    }

    /// How a document written with one schema is read with another.
    struct SchemaChange {
        /// Per entity, property name → the member that held it before a rename.
        var renames: [String: [String: String]] = [:]
        /// Per entity, members of properties the new schema does not have.
        var retiredMembers: [String: Set<String>] = [:]
        /// Entities the new schema does not have.
        var retiredEntities: Set<String> = []
        /// New entity name → the name its records were stored under, for renamed entities.
        var entityRenames: [String: String] = [:]

        /// No change.
        init() {}

        init(from stored: Schema, to schema: Schema) {
            renames = schema.propertyRenames(from: stored)
            entityRenames = schema.entityRenames(from: stored)
            let newNames = Dictionary(entityRenames.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            for old in stored.entities {
                guard let entity = schema.entitiesByName[newNames[old.name] ?? old.name] else {
                    retiredEntities.insert(old.name)
                    continue
                }
                retiredMembers[entity.name] = Set(old.storedPropertyNames).subtracting(entity.storedPropertyNames)
            }
        }
    }

    /// Reads the array of one entity's records, the member `arrayName` of `entities` (the
    /// entity's former name when it was renamed), returning them and their largest key.
    private static func readRecords(
        _ records: JSONNode, named arrayName: String, of document: JSONDocument, layout: JSONEntityLayout, keys: [JSONDocument.Key], formerKeys: [JSONDocument.Key?],
        retired: Set<String>, idKey: JSONDocument.Key, coding: JSONValueCoding
    ) throws -> (JSONStoreContents.Table, Int64) {
        let entityName = layout.name
        let names = layout.propertyNames
        let roles = layout.roles
        let file = coding.file
        func wrong(_ index: Int, _ member: String, _ reason: String) -> JSONStoreError {
            .wrongShape(file: file, path: "entities.\(entityName)[\(index)]\(member.isEmpty ? "" : ".")\(member)", reason: reason)
        }
        var table = JSONStoreContents.Table()
        var highestKey: Int64 = 0
        // Each record's identifier is this one with its key: making each from the names
        // looked their scope up (a lock and the hash of two strings) per record.
        var template: PersistentIdentifier?
        try document.forEachRecord(ofEntity: arrayName, in: records) { index, object in
            guard object.isObject else { throw wrong(index, "", "expected a record object, found \(object.typeName)") }
            // Members are read in the order the store writes them, falling back to a look-up by
            // name for a document written in another order.
            var cursor = object.firstMember
            guard let key = object.member(idKey, at: &cursor)?.integerKey else {
                throw wrong(index, "id", "expected the record's key as a string of digits such as \"42\"")
            }
            var values: [PersistentValue] = []
            values.reserveCapacity(keys.count)
            var found = 1
            for position in keys.indices {
                guard let node = object.member(keys[position], at: &cursor) ?? formerKeys[position].flatMap({ object.member($0) }) else {
                    switch roles[position] {
                    case .toOne: values.append(.null)
                    case .toMany: values.append(.identifiers([]))
                    case .attribute(_, _, let fallback?): values.append(fallback)
                    case .attribute: throw wrong(index, names[position], "the record has no value for this required property")
                    }
                    continue
                }
                found += 1
                values.append(try coding.value(of: node, role: roles[position], path: "entities.\(entityName)[\(index)].\(names[position])"))
            }
            var unknown: [(key: String, json: [UInt8])] = []
            if object.count > found {
                object.forEachMember { member, node in
                    if member != "id" && layout.positions[member] == nil && !retired.contains(member) {
                        unknown.append((member, node.plainText))
                    }
                }
            }
            if template == nil { template = try PersistentIdentifier.identifier(for: coding.storeIdentifier, entityName: entityName, primaryKey: 0) }
            let identifier = template!.replacingPrimaryKey(key)
            let snapshot = DefaultSnapshot(persistentIdentifier: identifier, propertyNames: names, values: values)
            guard table.append(.init(key: key, snapshot: snapshot, unknownMembers: unknown)) else {
                throw wrong(index, "id", "another \(entityName) record has the key \(key)")
            }
            highestKey = max(highestKey, key)
        }
        return (table, highestKey)
    }

    /// Writes `contents` as a new document.
    ///
    /// - Throws: ``JSONStoreError/unrepresentableValue(file:path:reason:)``, or
    ///   ``JSONStoreError/malformedDocument(file:offset:reason:)`` for nested JSON that is not JSON.
    ///
    /// - Parameter sizeHint: The size of the document written last, if any.
    static func write(
        _ contents: JSONStoreContents, layouts: [JSONEntityLayout], schema: Schema, file: String, sizeHint: Int? = nil
    ) throws -> JSONTextWriter {
        // Room for the whole text, so that the buffer does not grow and copy itself: the last
        // document's size and an eighth more, or 384 bytes a record (a record of six short
        // attributes takes about 260). Pages reserved and never written cost no memory.
        let records = contents.tables.values.reduce(0) { $0 + $1.records.count }
        let capacity = max(4_096 + records * 384, (sizeHint ?? 0) + (sizeHint ?? 0) / 8)
        let document = JSONTextWriter(file: file, capacity: capacity)
        let root = document.rootNode
        try document.add(.string(name), forKey: document.key("format"), to: root)
        try document.add(.int(Int64(version)), forKey: document.key("formatVersion"), to: root)
        try document.add(.string(schema.version.description), forKey: document.key("schemaVersion"), to: root)
        try document.add(.string(contents.storeIdentifier), forKey: document.key("storeIdentifier"), to: root)
        try document.add(.int(contents.nextKey), forKey: document.key("nextKey"), to: root)
        for (member, json) in contents.unknownMembers {
            try document.add(.json(json), forKey: document.key(member), to: root)
        }
        let entities = try document.add(.object, forKey: document.key("entities"), to: root)
        let coding = JSONValueCoding(storeIdentifier: contents.storeIdentifier, file: file)
        let idKey = document.key("id")
        for layout in layouts.sorted(by: { $0.name < $1.name }) {
            let table = contents.tables[layout.name] ?? JSONStoreContents.Table()
            let array = try document.add(.array, forKey: document.key(layout.name), to: entities)
            let keys = layout.propertyNames.map { document.key($0) }
            // Each record read in place: iterating the array copied every record, and binding
            // its snapshot copied that again (its identifier and arrays, twice a record).
            for index in table.records.indices {
                let key = table.records[index].key
                let object = try document.append(.object, to: array)
                try document.add(.string(String(key)), forKey: idKey, to: object)
                let aligned = table.records[index].snapshot.propertyNames == layout.propertyNames
                for position in keys.indices {
                    let name = layout.propertyNames[position]
                    let value = aligned ? table.records[index].snapshot.values[position] : (table.records[index].snapshot[name] ?? .null)
                    try coding.add(
                        value, role: layout.roles[position], forKey: keys[position], to: object, in: document,
                        path: "entities.\(layout.name) key \(key).\(name)")
                }
                for (member, json) in table.records[index].unknownMembers where layout.positions[member] == nil && member != "id" {
                    try document.add(.json(json), forKey: document.key(member), to: object)
                }
            }
        }
        for (name, json) in contents.unknownEntities {
            try document.add(.json(json), forKey: document.key(name), to: entities)
        }
        try writeHistory(contents.history, to: root, in: document)
        // Last, so that the models come first for a reader of the file.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try document.add(.json(Array(try encoder.encode(schema))), forKey: document.key("schema"), to: root)
        return document
    }
}
