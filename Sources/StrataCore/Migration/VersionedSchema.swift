/// One version of an app's schema: its model types and version number.
///
/// Declare each version as an enum holding its model classes, as with SwiftData:
/// ```swift
/// enum TripsSchemaV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { var name: String; init(name: String) { self.name = name } }
/// }
/// ```
public protocol VersionedSchema {
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
    /// The version number.
    static var versionIdentifier: Schema.Version { get }
}
