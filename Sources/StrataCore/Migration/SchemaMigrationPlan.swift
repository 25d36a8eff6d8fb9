/// The versions of an app's schema in order, and how to move a store from one to the next.
public protocol SchemaMigrationPlan {
    /// Every version, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The steps between consecutive versions.
    static var stages: [MigrationStage] { get }
}

/// One step of a migration plan.
public enum MigrationStage: @unchecked Sendable {
    /// A step the store performs by itself: added optional or defaulted properties, removed
    /// properties, renames through `originalName`, new models, changed delete rules.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A step with code run before (on the old schema's models) and after (on the new one's).
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)
}
