/// A `Sendable`, `Codable` copy of one model's values: what travels between contexts and stores.
///
/// ``DefaultSnapshot`` is the snapshot every Strata store uses; a store may define its own.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// The identifier of the model the values belong to.
    var persistentIdentifier: PersistentIdentifier { get }

    /// Captures the values of a model's backing data; related models' backing data is
    /// collected into `relatedBackingDatas` by identifier.
    init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData])

    /// The same values under `persistentIdentifier`, with every relationship value that
    /// points at a key of `remappedIdentifiers` rewritten to its value.
    func copy(
        persistentIdentifier: PersistentIdentifier,
        remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?
    ) -> Self
}

/// The coding keys of a snapshot: its identifier and its modeled properties by name.
public enum DataStoreSnapshotCodingKey: CodingKey, Hashable, Sendable {
    /// The snapshot's ``DataStoreSnapshot/persistentIdentifier``.
    case persistentIdentifier
    /// A property of the model, by its name in the schema.
    case modeledProperty(String)

    /// The key's string.
    public var stringValue: String {
        switch self {
        case .persistentIdentifier: "persistentIdentifier"
        case .modeledProperty(let name): name
        }
    }

    /// `.persistentIdentifier` for that string, else a modeled property.
    public init(stringValue: String) {
        self = stringValue == "persistentIdentifier" ? .persistentIdentifier : .modeledProperty(stringValue)
    }

    /// Always `nil`: snapshot keys are strings.
    public var intValue: Int? { nil }

    /// Always `nil`: snapshot keys are strings.
    public init?(intValue: Int) { nil }
}

/// A value a snapshot can hold: `Codable` and `Sendable`.
public typealias DataStoreSnapshotValue = Codable & Sendable
