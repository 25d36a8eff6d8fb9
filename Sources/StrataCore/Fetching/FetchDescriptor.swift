import Foundation

/// What to fetch: a predicate, a sort order, a window, and how much of each model to load.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Kyoto" },
///                                        sortBy: [SortDescriptor(\.startDate)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    /// The order of the results.
    public var sortBy: [SortDescriptor<T>]
    /// The most results to return.
    public var fetchLimit: Int?
    /// How many leading results to skip.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context are reflected. Defaults to `true`.
    public var includePendingChanges: Bool = true
    /// The properties to load now; others load when first read. Empty loads all.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships whose destinations to load with the results.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []
    // Declared last: its layout depends on `T`, so in code compiled once for every model
    // type, reaching a property declared after it asks the runtime for the descriptor's type
    // metadata (about 330 instructions); a fetch reads the others several times.
    /// The condition models must meet; `nil` fetches every model of the type.
    public var predicate: Predicate<T>?

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
