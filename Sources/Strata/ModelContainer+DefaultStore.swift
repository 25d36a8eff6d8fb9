import Foundation
import StrataCore
import StrataSQLite

extension ModelContainer {
    /// Opens a container whose models live in the default SQLite store, `default.store` in
    /// the app's data directory.
    ///
    /// - Throws: As `ModelContainer.init(for:migrationPlan:configurations:)`.
    public convenience init(for forTypes: any PersistentModel.Type...) throws {
        let schema = Schema(forTypes)
        try self.init(for: schema, migrationPlan: nil, configurations: [ModelConfiguration(schema: schema)])
    }

    /// Opens a container in the default SQLite store with a migration plan.
    ///
    /// - Throws: As `ModelContainer.init(for:migrationPlan:configurations:)`.
    public convenience init(for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        let schema = Schema(forTypes)
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: [ModelConfiguration(schema: schema)])
    }

    /// Opens a container with SQLite configurations; with none, the default store.
    ///
    /// - Throws: As `ModelContainer.init(for:migrationPlan:configurations:)`.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        let schema = Schema(forTypes)
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: Self.orDefault(configurations, schema))
    }

    /// Opens a container for a schema in the default SQLite store.
    ///
    /// - Throws: As `ModelContainer.init(for:migrationPlan:configurations:)`.
    public convenience init(for schema: Schema) throws {
        try self.init(for: schema, migrationPlan: nil, configurations: [ModelConfiguration(schema: schema)])
    }

    /// Opens a container for a schema with SQLite configurations; with none, the default store.
    ///
    /// - Throws: As `ModelContainer.init(for:migrationPlan:configurations:)`.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: Self.orDefault(configurations, schema))
    }

    private static func orDefault(_ configurations: [ModelConfiguration], _ schema: Schema) -> [any DataStoreConfiguration] {
        configurations.isEmpty ? [ModelConfiguration(schema: schema)] : configurations
    }
}
