/// Runs a ``SchemaMigrationPlan`` against one store before its container opens it.
///
/// The recorded schema is matched to one of the plan's versions by structure (entities,
/// properties, constraints, indexes), the version number deciding between versions of equal
/// structure. The stages then run in the order the plan lists them, from that version to the
/// container's: the plan's order decides the direction, not the version numbers, so a
/// rollback plan `[V2, V1]` works. Everything happens on a working copy that replaces the
/// store's data only once every stage succeeded (see ``DataStoreMigrating``).
enum SchemaMigrator {
    /// One version of the plan, restricted to the entities of the store being migrated.
    private struct Version {
        let type: any VersionedSchema.Type
        /// The models' schema, which the stages' contexts open.
        let schema: Schema
        /// What the store records and is opened with: class hierarchies folded (see ``Schema/storageSchema``).
        var storage: Schema { schema.storageSchema }
    }

    /// Migrates the data of `configuration` to its schema when a plan is given and the
    /// recorded schema differs.
    ///
    /// - Throws: ``SwiftDataError/unknownSchema`` when the recorded schema or the container's
    ///   is none of the plan's versions, or no stage leads from one to the other (nothing is
    ///   touched then); a stage's error, or the store's, after which the data is as it was.
    static func migrate<Store: DataStoreMigrating>(
        _ store: Store.Type, _ configuration: Store.Configuration, plan: any SchemaMigrationPlan.Type
    ) throws {
        guard let target = configuration.schema, let stored = try Store.storedSchema(for: configuration),
            !stored.hasSameStructure(as: target)
        else { return }
        let names = Set(target.entities.map(\.name)).union(stored.entities.map(\.name))
        let versions = plan.schemas.map { type in
            let full = Schema(versionedSchema: type)
            let entities = full.entities.filter { names.contains(full.hierarchyRoot(of: $0).name) }
            return Version(type: type, schema: Schema(entities: entities, version: full.version, issues: []))
        }
        let planName = String(describing: plan)
        guard let from = position(of: stored, in: versions) else {
            throw SwiftDataError.unknownSchema.with(
                details: "the store \"\(configuration.name)\" was written with schema \(stored.version), which matches none of \(planName)'s schemas")
        }
        guard let to = position(of: target, in: versions) else {
            throw SwiftDataError.unknownSchema.with(
                details: "the container's schema matches none of \(planName)'s schemas, so the plan cannot migrate the store \"\(configuration.name)\" to it")
        }
        let steps = try path(from: from, to: to, versions: versions, stages: plan.stages, planName: planName)
        let copy = try Store.makeWorkingCopy(of: configuration)
        do {
            for (index, step) in steps.enumerated() {
                let old = versions[step.from]
                let new = versions[step.to]
                if let willMigrate = step.willMigrate { try run(willMigrate, on: copy, schema: old.schema) }
                _ = try Store(ModelContainer.withSchema(copy, index == steps.count - 1 ? target : new.storage), migrationPlan: plan)
                if let didMigrate = step.didMigrate { try run(didMigrate, on: copy, schema: new.schema) }
            }
            try Store.replaceData(of: configuration, withWorkingCopy: copy)
        } catch {
            Store.discardWorkingCopy(copy)
            throw error
        }
        StrataLog.logger.info(
            "migrated the store \"\(configuration.name)\" from schema \(versions[from].type) to \(versions[to].type) in \(steps.count) stage(s)")
    }

    /// One stage on the way, as positions in the plan's versions.
    private struct Step {
        let from: Int
        let to: Int
        let willMigrate: ((ModelContext) throws -> Void)?
        let didMigrate: ((ModelContext) throws -> Void)?
    }

    /// The version whose structure is `schema`'s; of several, the one with the same version number.
    private static func position(of schema: Schema, in versions: [Version]) -> Int? {
        let matches = versions.indices.filter { versions[$0].storage.hasSameStructure(as: schema) }
        return matches.first { versions[$0].schema.version == schema.version } ?? matches.last
    }

    /// The stages from version `from` to version `to`, each the first the plan lists that
    /// starts where the previous one ended.
    private static func path(from: Int, to: Int, versions: [Version], stages: [MigrationStage], planName: String) throws -> [Step] {
        func index(of type: any VersionedSchema.Type) -> Int? {
            versions.firstIndex { ObjectIdentifier($0.type) == ObjectIdentifier(type) }
        }
        var steps: [Step] = []
        var current = from
        while current != to {
            let next = stages.lazy.compactMap { stage -> Step? in
                let (source, destination, willMigrate, didMigrate) = stage.parts
                guard index(of: source) == current, let target = index(of: destination) else { return nil }
                return Step(from: current, to: target, willMigrate: willMigrate, didMigrate: didMigrate)
            }.first
            guard let next, steps.count < stages.count else {
                throw SwiftDataError.unknownSchema.with(
                    details: "\(planName) has no stage that leads from \(versions[current].type) towards \(versions[to].type)")
            }
            steps.append(next)
            current = next.to
        }
        return steps
    }

    /// Runs a custom stage's closure in a context of a container over the working copy, and saves.
    ///
    /// - Throws: The closure's own error as a ``StageFailure``, so that the container hands it
    ///   to the app as it is; the container's or the save's error otherwise.
    private static func run<C: DataStoreConfiguration>(_ body: (ModelContext) throws -> Void, on copy: C, schema: Schema) throws {
        let container = try ModelContainer(for: schema, migrationPlan: nil, configurations: [ModelContainer.withSchema(copy, schema)])
        let context = ModelContext(container)
        do {
            try body(context)
        } catch {
            throw StageFailure(error: error)
        }
        if context.hasChanges { try context.save() }
    }

    /// An error a custom stage's closure threw; ``ModelContainer`` rethrows ``error`` itself.
    struct StageFailure: Error {
        let error: any Error
    }
}

extension MigrationStage {
    /// The stage's versions and closures.
    fileprivate var parts: (any VersionedSchema.Type, any VersionedSchema.Type, ((ModelContext) throws -> Void)?, ((ModelContext) throws -> Void)?) {
        switch self {
        case .lightweight(let from, let to): (from, to, nil, nil)
        case .custom(let from, let to, let willMigrate, let didMigrate): (from, to, willMigrate, didMigrate)
        }
    }
}

extension DataStoreMigrating {
    /// ``SchemaMigrator/migrate(_:_:plan:)`` for a configuration known only as a `DataStoreConfiguration`.
    static func migrate(_ configuration: any DataStoreConfiguration, plan: any SchemaMigrationPlan.Type) throws {
        guard let configuration = configuration as? Configuration else { return }
        try SchemaMigrator.migrate(Self.self, configuration, plan: plan)
    }
}

extension Schema {
    /// For each entity both schemas hold, the properties this schema holds under another name
    /// than `stored` does: new name → stored name.
    ///
    /// A property is renamed when its `originalName` names a stored property this schema no
    /// longer has, or (a rename undone by a rollback plan) when a stored property named it as
    /// its `originalName`. Stores use this for lightweight migration, so that the data of a
    /// renamed property is kept.
    public func propertyRenames(from stored: Schema) -> [String: [String: String]] {
        var renames: [String: [String: String]] = [:]
        let entityRenames = entityRenames(from: stored)
        for entity in entities {
            guard let old = stored.entitiesByName[entityRenames[entity.name] ?? entity.name] else { continue }
            let newNames = Set(entity.storedPropertyNames)
            var available = Set(old.storedPropertyNames).subtracting(newNames)
            for name in entity.storedPropertyNames where !old.storedPropertyNames.contains(name) {
                let forward = entity.storedPropertiesByName[name]?.originalName
                let backward = old.storedProperties.first { $0.originalName == name }?.name
                guard let original = [forward, backward].compactMap({ $0 }).first(where: available.contains) else { continue }
                available.remove(original)
                renames[entity.name, default: [:]][name] = original
            }
        }
        return renames
    }

    /// The entities of this schema that `stored` holds under another name, by their name here:
    /// the new entity names the old one as its `originalName`, or (for a rollback) the old
    /// entity names the new one as its own.
    public func entityRenames(from stored: Schema) -> [String: String] {
        var renames: [String: String] = [:]
        var available = Set(stored.entities.map(\.name)).subtracting(entities.map(\.name))
        for entity in entities where stored.entitiesByName[entity.name] == nil {
            let forward = entity.originalName
            let backward = stored.entities.first { $0.originalName == entity.name }?.name
            guard let original = [forward, backward].compactMap({ $0 }).first(where: available.contains) else { continue }
            available.remove(original)
            renames[entity.name] = original
        }
        return renames
    }

    /// Whether the two schemas describe the same entities, properties, constraints and
    /// indexes, whatever their version numbers and entity order.
    public func hasSameStructure(as other: Schema) -> Bool {
        entities.map(\.fingerprint).sorted() == other.entities.map(\.fingerprint).sorted()
    }
}
