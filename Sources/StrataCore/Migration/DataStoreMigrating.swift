/// A store whose data outlives it, and that can take part in a ``SchemaMigrationPlan``.
///
/// Before a container opens such a store, the core reads the schema its data was last
/// written with (``storedSchema(for:)``). When a migration plan is given and that schema is
/// not the container's, the core finds the recorded schema among the plan's versions and
/// runs the plan's stages from there to the container's schema, on a working copy:
///
/// 1. ``makeWorkingCopy(of:)`` copies the data to a new place.
/// 2. For each stage, in the order the plan lists them:
///    - a custom stage's `willMigrate` runs in a context of a container over the copy,
///      opened with the stage's old schema (the store opens unchanged);
///    - the store is opened over the copy with the stage's new schema and a non-`nil`
///      `migrationPlan`: ``DataStore/init(_:migrationPlan:)`` makes the lightweight changes
///      from the recorded schema to the new one (added and removed entities and properties,
///      renames through `originalName`, constraints and indexes) and records the new schema,
///      even when its version number is lower (a rollback plan);
///    - a custom stage's `didMigrate` runs in a context over the copy with the new schema,
///      and its changes are saved.
/// 3. ``replaceData(of:withWorkingCopy:)`` puts the copy in place of the original in one
///    atomic step. If anything fails before, ``discardWorkingCopy(_:)`` removes the copy and
///    the original data and its recorded version are exactly as they were.
///
/// Without a plan, the store's own opening makes the lightweight changes in place, and refuses
/// data written by a newer schema version with ``SwiftDataError/backwardMigration``.
public protocol DataStoreMigrating: DataStore {
    /// The schema the configuration's data was last written with, read without changing
    /// anything; `nil` when there is no data yet, or the store recorded no schema.
    ///
    /// - Throws: The store's error for data it cannot read.
    static func storedSchema(for configuration: Configuration) throws -> Schema?

    /// Copies the configuration's data to a new place and returns a configuration that opens
    /// the copy (with the same schema).
    ///
    /// - Throws: The store's error; nothing of the original changes.
    static func makeWorkingCopy(of configuration: Configuration) throws -> Configuration

    /// Replaces the configuration's data with the migrated working copy, atomically, and
    /// removes the copy.
    ///
    /// - Throws: The store's error; the original data is then as it was.
    static func replaceData(of configuration: Configuration, withWorkingCopy copy: Configuration) throws

    /// Removes a working copy after a failed migration.
    static func discardWorkingCopy(_ copy: Configuration)
}
