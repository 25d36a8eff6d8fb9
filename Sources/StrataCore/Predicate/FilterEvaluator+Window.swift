extension FilterEvaluator {
    /// Sorts snapshots by `keys` (keeping the given order among equal keys), then applies
    /// `offset` and `limit`: the tail of a fetch for stores that filter in memory.
    ///
    /// - Throws: ``SwiftDataError/unsupportedSortDescriptor`` when two values cannot be ordered.
    public func sortedWindow(
        _ snapshots: [DefaultSnapshot], by keys: [FilterSortKey], offset: Int?, limit: Int?
    ) throws -> [DefaultSnapshot] {
        var ordered = snapshots
        if !keys.isEmpty {
            var failure: (any Error)?
            ordered = snapshots.enumerated().sorted { lhs, rhs in
                do {
                    if try areInIncreasingOrder(lhs.element, rhs.element, by: keys) { return true }
                    if try areInIncreasingOrder(rhs.element, lhs.element, by: keys) { return false }
                } catch {
                    failure = failure ?? error
                }
                return lhs.offset < rhs.offset
            }.map(\.element)
            if let failure { throw failure }
        }
        let start = min(max(offset ?? 0, 0), ordered.count)
        var window = ordered[start...]
        if let limit, limit >= 0 { window = window.prefix(limit) }
        return Array(window)
    }
}

extension FilterExpression {
    /// The identifiers a filter asks for when it is the core's lookup by identifier
    /// (`.contains(collection: .list(ids), element: .property(variable: 0, path: []))`), in order; else `nil`.
    ///
    /// The core sends this filter to fault relationships in; stores answer it with direct lookups.
    public var requestedIdentifiers: [PersistentIdentifier]? {
        guard case .contains(.list(let values), .property(0, [])) = self else { return nil }
        return values.compactMap { value in
            if case .identifier(let id) = value { return id }
            return nil
        }
    }
}
