import Foundation

/// The description of a set of models: their entities, properties, relationships,
/// constraints and indexes, and the schema's version.
///
/// `Schema([Trip.self])` includes every model type reachable through relationships, infers
/// inverses that only one side names, and records anything that breaks the rules so that
/// ``validate()`` (and every container) can report it.
public final class Schema: Codable, Hashable, CustomStringConvertible, @unchecked Sendable {
    /// The version of the format ``save(to:)`` writes.
    public static let schemaEncodingVersion = Version(1, 0, 0)

    /// The encoding version this schema was created or decoded with.
    public let encodingVersion: Version
    /// The schema's version.
    public let version: Version
    /// The entities, in the order their model types were discovered.
    public let entities: [Entity]
    /// The entities by name.
    public let entitiesByName: [String: Entity]
    /// Rules the models break, found while building the schema.
    private(set) var issues: [String]
    /// The schema stores are opened with, when it differs from this one (see ``storageSchema``).
    private(set) var storage: Schema?

    /// An empty schema.
    public convenience init() {
        self.init(entities: [], version: Version(1, 0, 0), issues: [])
    }

    /// A schema of explicitly described entities.
    public convenience init(_ entities: Entity..., version: Version = Version(1, 0, 0)) {
        self.init(entities: entities, version: version, issues: [])
    }

    /// A schema of the given model types and every model type related to them.
    public convenience init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var builder = SchemaBuilder(types: types)
        let built = builder.build()
        self.init(entities: built.entities, version: version, issues: built.issues)
    }

    /// A schema of the given model types and every model type related to them.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The schema of one version of a versioned schema.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    init(entities: [Entity], version: Version, issues: [String], encodingVersion: Version = Schema.schemaEncodingVersion) {
        self.entities = entities
        self.version = version
        self.issues = issues
        self.encodingVersion = encodingVersion
        self.entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            guard let parentName = entity.superentityName, let parent = entitiesByName[parentName] else { continue }
            entity.superentity = parent
            parent.subentities.insert(entity)
        }
        let (storage, storageIssues) = Self.storage(of: entities, version: version, in: self)
        self.storage = storage
        self.issues += storageIssues
    }

    /// The entity of model type `type`, if the schema contains it.
    public func entity<T: PersistentModel>(for type: T.Type) -> Entity? {
        entitiesByName[Self.entityName(for: type)]
    }

    /// The entity name Strata uses for a model type: the class's own name.
    public static func entityName<T: PersistentModel>(for type: T.Type) -> String {
        entityName(for: type as any PersistentModel.Type)
    }

    static func entityName(for type: any PersistentModel.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = entityNames.withLock({ $0[key] }) { return name }
        let name = String(describing: type)
        entityNames.withLock { $0[key] = name }
        return name
    }

    /// Entity names by model type: `String(describing:)` costs thousands of instructions,
    /// and every fetch asks for its type's name.
    private static let entityNames = Locked<[ObjectIdentifier: String]>([:])

    /// Checks the rules the schema's models must follow.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` naming each broken rule, such as an
    ///   inverse declared on both sides or a constraint on a property that is not stored.
    public func validate() throws {
        guard issues.isEmpty else {
            throw SwiftDataError.modelValidationFailure.with(details: issues.joined(separator: "; "))
        }
    }

    /// Writes the schema as JSON to `url`.
    ///
    /// - Throws: The encoding or file-system error.
    public func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// Reads a schema written by ``save(to:)``; its entities describe storage, not Swift types.
    ///
    /// - Throws: The file-system error, or a `DecodingError` naming what was malformed.
    public static func load(from url: URL) throws -> Schema {
        try JSONDecoder().decode(Schema.self, from: Data(contentsOf: url))
    }

    private enum CodingKeys: String, CodingKey {
        case encodingVersion, version, entities
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(encodingVersion, forKey: .encodingVersion)
        try container.encode(version, forKey: .version)
        try container.encode(entities, forKey: .entities)
    }

    /// Decodes a schema written by ``encode(to:)``.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let entities = try container.decode([Entity].self, forKey: .entities)
        self.init(
            entities: entities,
            version: try container.decode(Version.self, forKey: .version),
            issues: [],
            encodingVersion: try container.decode(Version.self, forKey: .encodingVersion))
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.entities.map(\.fingerprint) == rhs.entities.map(\.fingerprint)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(entities.map(\.name))
    }

    /// The version and each entity.
    public var description: String {
        (["Schema \(version)"] + entities.map(\.description)).joined(separator: "\n")
    }
}
