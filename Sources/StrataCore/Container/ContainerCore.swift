import Foundation

/// What a container's contexts need from it: the opened stores, which store holds each
/// entity, the entities' run-time descriptions, and the live contexts to notify.
///
/// Contexts hold this core strongly and the public ``ModelContainer`` weakly only for the
/// main context, so the main context does not keep its container alive: once the app lets
/// go of the container and of every context, the core is freed and its stores close.
final class ContainerCore: @unchecked Sendable {  // immutable after init but for `contexts`, which has its lock
    let schema: Schema
    let migrationPlan: (any SchemaMigrationPlan.Type)?
    let configurations: [any DataStoreConfiguration]
    let stores: [StoreBox]
    private let storesByEntity: [String: StoreBox]
    private let runtimes: [String: EntityRuntime]
    private let contexts = Locked<[WeakContext]>([])

    init(
        schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: [any DataStoreConfiguration],
        stores: [StoreBox], storesByEntity: [String: StoreBox]
    ) {
        self.schema = schema
        self.migrationPlan = migrationPlan
        self.configurations = configurations
        self.stores = stores
        self.storesByEntity = storesByEntity
        ModelHierarchies.register(schema)
        var runtimes: [String: EntityRuntime] = [:]
        for entity in schema.entities where entity.modelType != nil {
            runtimes[entity.name] = EntityRuntime(entity: entity, schema: schema)
        }
        self.runtimes = runtimes
        storageEntitiesHoldingModels = Set(runtimes.values.filter { !$0.relationships.isEmpty }.map(\.storageEntityName))
        hasUniquenessConstraints = runtimes.values.contains { !$0.entity.uniquenessConstraints.isEmpty }
        hasTransformableAttributes = runtimes.values.contains { $0.attributes.contains { $0.transformerName != nil } }
        hasCountedRelationships = schema.entities.contains { entity in
            entity.relationships.contains { ($0.minimumModelCount ?? 0) > 0 || ($0.maximumModelCount ?? 0) > 0 }
        }
    }

    /// Whether some class has a `#Unique` constraint: a save checks its inserts only then.
    let hasUniquenessConstraints: Bool
    /// Whether some attribute is stored through a value transformer: a save checks that its
    /// transformers are registered only then.
    let hasTransformableAttributes: Bool
    /// Whether some relationship has a minimum or maximum model count: a save counts only then.
    let hasCountedRelationships: Bool

    /// The store entities some of whose classes have relationships: only their models can be
    /// in a reference cycle that a context's end must break.
    let storageEntitiesHoldingModels: Set<String>

    /// The store that holds `entityName`.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` when no configuration holds it.
    func store(for entityName: String) throws -> StoreBox {
        guard let store = storesByEntity[entityName] else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "no configuration of this container holds the model \(entityName)")
        }
        return store
    }

    /// The run-time description of `entityName`.
    ///
    /// - Throws: ``SwiftDataError/configurationSchemaNotFoundInContainerSchema`` when the schema lacks it.
    func runtime(for entityName: String) throws -> EntityRuntime {
        guard let runtime = runtimes[entityName] else {
            throw SwiftDataError.configurationSchemaNotFoundInContainerSchema.with(
                details: "the container's schema has no model \(entityName)")
        }
        return runtime
    }

    /// The model type of `entityName`.
    ///
    /// - Throws: As ``runtime(for:)``.
    func modelType(for entityName: String) throws -> any PersistentModel.Type {
        try runtime(for: entityName).modelType
    }

    func register(_ context: ModelContext) {
        contexts.withLock { list in
            list.removeAll { $0.context == nil }
            list.append(WeakContext(context))
        }
    }

    /// Posted, with the core as object, when another process changed a store.
    static let changedElsewhere = Notification.Name("StrataStoreChangedElsewhere")
    /// The `Set<String>` of entity names in ``changedElsewhere``'s user info.
    static let entityNamesKey = "entityNames"

    /// Tells every live context, the caller's included, of stores another process changed.
    ///
    /// - Parameter deferred: A store not asked now: a fetch from it notices after reading
    ///   (``noticeExternalChange(of:reported:)``).
    func noticeExternalChanges(except deferred: StoreBox? = nil) {
        for store in stores where store !== deferred {
            noticeExternalChange(of: store)
        }
    }

    /// Tells every live context, the caller's included, when another process changed `store`.
    ///
    /// - Parameter reported: The external change count a fetch from `store` returned; when
    ///   `nil`, the store is asked.
    /// - Returns: Whether it had changed.
    @discardableResult
    func noticeExternalChange(of store: StoreBox, reported: Int64? = nil) -> Bool {
        guard store.noticeExternalChange(reported: reported) else { return false }
        broadcast(from: nil, change: .changedElsewhere(entityNames: store.entityNames))
        NotificationCenter.default.post(
            name: Self.changedElsewhere, object: self, userInfo: [Self.entityNamesKey: store.entityNames])
        return true
    }

    /// Hands a saved change to every other live context; each applies it before its next operation.
    func broadcast(from sender: ModelContext?, change: ContextInbox.Change) {
        let receivers = contexts.withLock { list in list.compactMap(\.context) }
        for context in receivers where context !== sender {
            context.inbox.post(change)
        }
    }
}

/// A weak reference to a context, so the container does not keep contexts alive.
struct WeakContext: @unchecked Sendable {
    weak var context: ModelContext?
    init(_ context: ModelContext) { self.context = context }
}
