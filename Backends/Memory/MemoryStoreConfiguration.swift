import StrataCore

/// A store that keeps models in memory for the life of its container: for tests, previews
/// and scratch data.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration(name: "scratch"))
/// ```
public struct MemoryStoreConfiguration: DataStoreConfiguration, HistoryRetaining {
    /// The store this configuration opens.
    public typealias Store = MemoryStore

    /// The configuration's name, unique within a container.
    public var name: String
    /// The models this store holds; `nil` for every model of the container.
    public var schema: Schema?
    /// Whether contexts may save; a store opened with `false` refuses every change with
    /// ``DataStoreError/unsupportedFeature``, as the other built-in stores do.
    public var allowsSave: Bool
    /// How much history the store keeps: ``HistoryRetention/unlimited`` unless set.
    public var historyRetention: HistoryRetention = .unlimited

    /// Creates a configuration.
    public init(name: String = "memory", schema: Schema? = nil, allowsSave: Bool = true) {
        self.name = name
        self.schema = schema
        self.allowsSave = allowsSave
    }

    public static func == (lhs: MemoryStoreConfiguration, rhs: MemoryStoreConfiguration) -> Bool {
        lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
    }
}
