import Foundation

/// The stores of an app's models: a schema, the configurations that place its entities,
/// and the opened stores behind them.
///
/// Each configuration owns part of the schema and every entity lives in exactly one
/// store. Relationships may cross stores; they are resolved by identifier.
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration(name: "trips"))
/// let context = ModelContext(container)
/// ```
public final class ModelContainer: Equatable, @unchecked Sendable {
    /// All models of the container.
    public var schema: Schema { core.schema }
    /// The plan that migrates stores written by older schema versions.
    public var migrationPlan: (any SchemaMigrationPlan.Type)? { core.migrationPlan }
    /// The configurations of every store, in the order given, each with the sub-schema it
    /// holds. (SwiftData's `configurations`, a `Set<ModelConfiguration>`, comes with the
    /// SQLite store and lists its configurations only.)
    public var dataStoreConfigurations: [any DataStoreConfiguration] { core.configurations }

    /// The stores, routing and live contexts; shared with every context of the container.
    let core: ContainerCore
    private let mainContextStorage = Locked<UncheckedContext?>(nil)

    /// Opens a container for a schema, placing its entities in the configurations' stores.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when the schema breaks a rule;
    ///   ``SwiftDataError/duplicateConfiguration`` when two configurations share a name or both
    ///   claim the same model; ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` when a
    ///   configuration names a model the schema lacks; ``SwiftDataError/loadIssueModelContainer``
    ///   when no configuration is given or a store fails to open (with the store's error);
    ///   ``SwiftDataError/backwardMigration`` or ``SwiftDataError/unknownSchema`` when a store's
    ///   data was written with a schema the app cannot migrate from; and the error a custom
    ///   migration stage's `willMigrate` or `didMigrate` throws, as it is. A migration that
    ///   fails leaves the store's data as it was.
    public init(for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [any DataStoreConfiguration]) throws {
        try schema.validate()
        guard !configurations.isEmpty else {
            throw SwiftDataError.loadIssueModelContainer.with(
                details: "no configuration was given; pass one (MemoryStoreConfiguration, JSONStoreConfiguration, ...) or import Strata for the default SQLite store")
        }
        let placement = try Self.place(schema: schema, configurations: configurations)
        var opened: [StoreBox] = []
        var placed: [any DataStoreConfiguration] = []
        var byEntity: [String: StoreBox] = [:]
        for (configuration, entities) in placement {
            let subschema = Schema(entities: entities, version: schema.version, issues: [])
            let store: any DataStore
            var configured = configuration
            do {
                configured = Self.withSchema(configured, subschema.storageSchema)
                try configured.validate()
                store = try Self.open(configured, migrationPlan: migrationPlan)
            } catch let error as SwiftDataError {
                throw error
            } catch let failure as SchemaMigrator.StageFailure {
                throw failure.error
            } catch {
                throw SwiftDataError.loadIssueModelContainer.with(
                    details: "the store of configuration \"\(configuration.name)\" could not be opened: \(error)")
            }
            let box = StoreBox(store: store, configurationName: configuration.name, entityNames: Set(entities.map(\.name)))
            if opened.contains(where: { $0.identifier == box.identifier }) {
                throw SwiftDataError.duplicateConfiguration.with(
                    details: "two configurations open the same store \"\(box.identifier)\"")
            }
            opened.append(box)
            placed.append(Self.withSchema(configuration, subschema))
            for entity in entities { byEntity[entity.name] = box }
        }
        self.core = ContainerCore(
            schema: schema, migrationPlan: migrationPlan, configurations: placed, stores: opened, storesByEntity: byEntity)
    }

    /// A new public face for a core whose container the app released while keeping its main context.
    init(core: ContainerCore) {
        self.core = core
    }

    /// Opens a container for model types and every model related to them.
    ///
    /// - Throws: As ``init(for:migrationPlan:configurations:)``.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens a container for a schema.
    ///
    /// - Throws: As ``init(for:migrationPlan:configurations:)``.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// The context for the main actor, which saves automatically after changes.
    ///
    /// The container keeps its main context; the main context does not keep the container,
    /// so releasing the container (and the contexts the app holds) closes the stores.
    @MainActor
    public var mainContext: ModelContext {
        mainContextStorage.withLock { stored in
            if let stored { return stored.context }
            let context = ModelContext(mainContextOf: self)
            context.autosaveEnabled = true
            stored = UncheckedContext(context)
            return context
        }
    }

    /// Whether ``mainContext`` records its changes for undo, as SwiftUI's
    /// `modelContainer(for:isUndoEnabled:)` arranges on Apple platforms.
    ///
    /// Setting it to `true` gives the main context an ``UndoManager`` (keeping one it already
    /// has); setting it to `false` removes it.
    @MainActor
    public var isUndoEnabled: Bool {
        get { mainContext.undoManager != nil }
        set {
            let context = mainContext
            if newValue {
                if context.undoManager == nil { context.undoManager = UndoManager() }
            } else {
                context.undoManager = nil
            }
        }
    }

    /// Removes every model from every store, and the stores' files.
    ///
    /// - Throws: The first store's error; stores after it are not erased.
    public func erase() throws {
        for store in core.stores { try store.erase() }
        core.broadcast(from: nil, change: .invalidateAll)
    }

    /// Removes every model from every store. Use ``erase()``, which reports failures.
    @available(*, deprecated, renamed: "erase()")
    public func deleteAllData() {
        try? erase()
    }

    public static func == (lhs: ModelContainer, rhs: ModelContainer) -> Bool { lhs.core === rhs.core }

    // MARK: Opening

    private static func place(
        schema: Schema, configurations: [any DataStoreConfiguration]
    ) throws -> [(any DataStoreConfiguration, [Schema.Entity])] {
        var names: Set<String> = []
        for configuration in configurations where !names.insert(configuration.name).inserted {
            throw SwiftDataError.duplicateConfiguration.with(details: "two configurations are named \"\(configuration.name)\"")
        }
        var owner: [String: String] = [:]
        var result: [(any DataStoreConfiguration, [Schema.Entity])] = []
        var catchAll: (any DataStoreConfiguration)?
        for configuration in configurations {
            guard let subschema = configuration.schema else {
                if let other = catchAll {
                    throw SwiftDataError.duplicateConfiguration.with(
                        details: "configurations \"\(other.name)\" and \"\(configuration.name)\" both have no schema, so both would hold every model")
                }
                catchAll = configuration
                continue
            }
            var entities: [Schema.Entity] = []
            for entity in subschema.entities {
                guard let named = schema.entitiesByName[entity.name] else {
                    throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                        details: "configuration \"\(configuration.name)\" names \(entity.name), which the container's schema does not contain")
                }
                // A class hierarchy is stored in one store entity, so it lives in one configuration.
                for mine in schema.hierarchy(from: schema.hierarchyRoot(of: named)) where owner[mine.name] != configuration.name {
                    if let other = owner[mine.name] {
                        throw SwiftDataError.duplicateConfiguration.with(
                            details: "\(mine.name) is in configurations \"\(other)\" and \"\(configuration.name)\"; a model, and every class of its hierarchy, belongs to one configuration")
                    }
                    owner[mine.name] = configuration.name
                    entities.append(mine)
                }
            }
            result.append((configuration, entities))
        }
        let rest = schema.entities.filter { owner[$0.name] == nil }
        if let catchAll {
            result.append((catchAll, rest))
        } else if let orphan = rest.first {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "\(orphan.name) is in no configuration; add it to one, or give one configuration no schema")
        }
        return result
    }

    /// `configuration` holding `schema`.
    static func withSchema<C: DataStoreConfiguration>(_ configuration: C, _ schema: Schema) -> C {
        var configured = configuration
        configured.schema = schema
        return configured
    }

    private static func open<C: DataStoreConfiguration>(
        _ configuration: C, migrationPlan: (any SchemaMigrationPlan.Type)?
    ) throws -> any DataStore {
        if let migrationPlan, let migrating = C.Store.self as? any DataStoreMigrating.Type {
            try migrating.migrate(configuration, plan: migrationPlan)
        }
        return try C.Store(configuration, migrationPlan: migrationPlan)
    }
}
