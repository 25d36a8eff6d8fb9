import Foundation

/// The snapshot of one model: its identifier and each persisted property's value by name.
///
/// Attributes hold their stored form; a to-one relationship holds
/// ``PersistentValue/identifier(_:)`` or ``PersistentValue/null``, a to-many one
/// ``PersistentValue/identifiers(_:)``. Snapshots of one entity share their list of
/// property names, so a snapshot costs little more than its values.
public struct DefaultSnapshot: DataStoreSnapshot, Hashable, CustomStringConvertible {
    /// The identifier of the model the values belong to.
    public private(set) var persistentIdentifier: PersistentIdentifier
    /// The property names, in the entity's slot order.
    public let propertyNames: [String]
    /// The values, one per name in ``propertyNames``.
    public private(set) var values: [PersistentValue]

    /// Creates a snapshot from names and values of equal count.
    ///
    /// - Precondition: `propertyNames.count == values.count`.
    public init(persistentIdentifier: PersistentIdentifier, propertyNames: [String], values: [PersistentValue]) {
        precondition(propertyNames.count == values.count, "a snapshot needs one value per property name")
        self.persistentIdentifier = persistentIdentifier
        self.propertyNames = propertyNames
        self.values = values
    }

    /// Drops the values, keeping the identifier: a fetch frees each row's values as soon as
    /// its model holds them, so rows and models are not all in memory at once.
    mutating func releaseValues() {
        values = []
    }

    /// A snapshot to be given its values by ``reuse(for:values:)`` before anything reads it:
    /// until then it holds no values.
    package init(reusedFor propertyNames: [String], as persistentIdentifier: PersistentIdentifier) {
        self.persistentIdentifier = persistentIdentifier
        self.propertyNames = propertyNames
        self.values = []
    }

    /// Makes this the snapshot of another row with the same property names: a store that
    /// streams hands its rows over in one snapshot, so the names are not retained and
    /// released again for every row.
    ///
    /// - Precondition: `values.count == propertyNames.count`.
    package mutating func reuse(for persistentIdentifier: PersistentIdentifier, values: consuming [PersistentValue]) {
        precondition(propertyNames.count == values.count, "a snapshot needs one value per property name")
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }

    /// Hands the values over, leaving none, as ``releaseValues()`` does: a model that keeps
    /// the array takes it without retaining it again.
    mutating func takeValues() -> [PersistentValue] {
        var taken: [PersistentValue] = []
        swap(&taken, &values)
        return taken
    }

    /// Creates a snapshot from a dictionary of values by property name (sorted by name).
    public init(persistentIdentifier: PersistentIdentifier, values: [String: PersistentValue]) {
        let sorted = values.sorted { $0.key < $1.key }
        self.init(persistentIdentifier: persistentIdentifier, propertyNames: sorted.map(\.key), values: sorted.map(\.value))
    }

    /// The value of the property `name`, or `nil` when the snapshot has no such property.
    public subscript(name: String) -> PersistentValue? {
        get {
            guard let index = propertyNames.firstIndex(of: name) else { return nil }
            return values[index]
        }
    }

    /// The value at `index` in ``propertyNames`` order.
    public subscript(index index: Int) -> PersistentValue {
        get { values[index] }
        set { values[index] = newValue }
    }

    /// Captures a model's values from its backing data.
    public init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData]) {
        self = SnapshotCapture.capture(backingData, related: &relatedBackingDatas)
    }

    /// The same values under another identifier, with relationship values remapped.
    public func copy(
        persistentIdentifier: PersistentIdentifier,
        remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]? = nil
    ) -> DefaultSnapshot {
        var copy = DefaultSnapshot(persistentIdentifier: persistentIdentifier, propertyNames: propertyNames, values: values)
        guard let remappedIdentifiers, !remappedIdentifiers.isEmpty else { return copy }
        for index in copy.values.indices {
            switch copy.values[index] {
            case .identifier(let id):
                if let mapped = remappedIdentifiers[id] { copy.values[index] = .identifier(mapped) }
            case .identifiers(let ids):
                if ids.contains(where: { remappedIdentifiers[$0] != nil }) {
                    copy.values[index] = .identifiers(ids.map { remappedIdentifiers[$0] ?? $0 })
                }
            default:
                break
            }
        }
        return copy
    }

    /// Whether a relationship value names a model by a temporary identifier: one inserted in
    /// the same save, whose permanent identifier the store gives it.
    var refersToTemporaryIdentifiers: Bool {
        values.contains { value in
            switch value {
            case .identifier(let id): id.isTemporary
            case .identifiers(let ids): ids.contains(where: \.isTemporary)
            default: false
            }
        }
    }

    /// The identifier and each property.
    public var description: String {
        let pairs = zip(propertyNames, values).map { "\($0): \($1)" }
        return "\(persistentIdentifier) { \(pairs.joined(separator: ", ")) }"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
        for (name, value) in zip(propertyNames, values) {
            try container.encode(value, forKey: .modeledProperty(name))
        }
    }

    /// Decodes a snapshot written by ``encode(to:)``; properties come back sorted by name.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        let identifier = try container.decode(PersistentIdentifier.self, forKey: .persistentIdentifier)
        var values: [String: PersistentValue] = [:]
        for key in container.allKeys {
            guard case .modeledProperty(let name) = key else { continue }
            values[name] = try container.decode(PersistentValue.self, forKey: key)
        }
        self.init(persistentIdentifier: identifier, values: values)
    }
}

/// The snapshots of a save as a store keeps them: under their permanent identifiers, with
/// relationships to other inserts of the save remapped from their temporary identifiers.
///
/// The map of temporary identifiers is made at the first snapshot whose relationships name
/// one; a save of models without such relationships never hashes an identifier (at 100,000
/// inserts the map was 10 MB).
package struct SaveRemapping {
    private let inserted: [DefaultSnapshot]
    private let permanent: [PersistentIdentifier]
    private var map: [PersistentIdentifier: PersistentIdentifier]?

    /// A remapping of the temporary identifiers of `inserted` to `permanent`, one per insert, in order.
    package init(inserted: [DefaultSnapshot], permanent: [PersistentIdentifier]) {
        self.inserted = inserted
        self.permanent = permanent
    }

    /// `snapshot` under `identifier`, its relationships to inserts of the save remapped.
    package mutating func copy(_ snapshot: DefaultSnapshot, as identifier: PersistentIdentifier) -> DefaultSnapshot {
        guard snapshot.refersToTemporaryIdentifiers else { return snapshot.copy(persistentIdentifier: identifier) }
        if map == nil {
            map = Dictionary(zip(inserted.lazy.map(\.persistentIdentifier), permanent), uniquingKeysWith: { _, last in last })
        }
        return snapshot.copy(persistentIdentifier: identifier, remappedIdentifiers: map)
    }
}
