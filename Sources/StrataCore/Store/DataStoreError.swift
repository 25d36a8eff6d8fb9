/// Errors a data store reports to the core, with SwiftData's cases.
///
/// ``preferInMemoryFilter`` and ``preferInMemorySort`` are requests rather than failures:
/// the core then evaluates the predicate or sort itself.
public enum DataStoreError: Error, Hashable, Sendable {
    /// The store does not support the requested operation.
    case unsupportedFeature
    /// The store cannot evaluate the fetch's predicate; the core should filter in memory.
    case preferInMemoryFilter
    /// The store cannot apply the fetch's sort descriptors; the core should sort in memory.
    case preferInMemorySort
    /// The predicate is malformed.
    case invalidPredicate
}
