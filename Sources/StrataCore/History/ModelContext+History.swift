import Foundation

extension ModelContext {
    /// The transactions that `descriptor` selects, from every store of the container that
    /// keeps history of that transaction type; oldest first unless the descriptor sorts.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` when no store keeps such history,
    ///   ``SwiftDataError/historyTokenExpired`` when the descriptor asks for changes after a
    ///   token older than what was deleted, or a store's error.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        var found = false
        var transactions: [T] = []
        for box in core.stores {
            guard let provider = box.store as? any HistoryProviding,
                let fetched = try Self.fetchHistory(descriptor, from: provider)
            else { continue }
            found = true
            transactions += fetched
        }
        guard found else { throw DataStoreError.unsupportedFeature }
        return HistoryQuery.order(transactions, descriptor)
    }

    /// Deletes the transactions that `descriptor` selects from every store of the container
    /// that keeps history of that transaction type.
    ///
    /// - Throws: ``DataStoreError/unsupportedFeature`` when no store keeps such history, or a store's error.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        var found = false
        for box in core.stores {
            guard let provider = box.store as? any HistoryProviding else { continue }
            found = try Self.deleteHistory(descriptor, from: provider) || found
        }
        guard found else { throw DataStoreError.unsupportedFeature }
    }

    private static func fetchHistory<T, P: HistoryProviding>(_ descriptor: HistoryDescriptor<T>, from provider: P) throws -> [T]? {
        guard let descriptor = descriptor as? HistoryDescriptor<P.HistoryType> else { return nil }
        return try provider.fetchHistory(descriptor) as? [T]
    }

    private static func deleteHistory<T, P: HistoryProviding>(_ descriptor: HistoryDescriptor<T>, from provider: P) throws -> Bool {
        guard let descriptor = descriptor as? HistoryDescriptor<P.HistoryType> else { return false }
        try provider.deleteHistory(descriptor)
        return true
    }
}

/// Selecting, ordering and limiting transactions in memory, for stores that keep them there
/// and for merging several stores' answers.
package enum HistoryQuery {
    /// The transactions `descriptor` selects from `records`, which a store already narrowed
    /// by the descriptor's ``HistoryFilter``: ordered, limited, and typed by `schema`.
    ///
    /// - Throws: The predicate's evaluation error.
    package static func run(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, over records: [HistoryRecord], schema: Schema, isExact: Bool
    ) throws -> [DefaultHistoryTransaction] {
        try select(descriptor, from: records, schema: schema, isExact: isExact).map { $0.transaction(schema: schema) }
    }

    /// The records `descriptor` selects from `records` (already narrowed by its filter), in
    /// its order and within its limit. Records are typed only when the predicate or the sort
    /// needs more than the filter ran.
    ///
    /// - Throws: The predicate's evaluation error.
    package static func select(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, from records: [HistoryRecord], schema: Schema, isExact: Bool
    ) throws -> [HistoryRecord] {
        var selected = records.sorted { ($0.timestamp, $0.transactionIdentifier) < ($1.timestamp, $1.transactionIdentifier) }
        if !isExact || !descriptor.sortBy.isEmpty {
            var pairs = selected.map { ($0, $0.transaction(schema: schema)) }
            if !isExact, let predicate = descriptor.predicate { pairs = try pairs.filter { try predicate.evaluate($0.1) } }
            if !descriptor.sortBy.isEmpty {
                let order = pairs.map(\.1).sorted(using: descriptor.sortBy).map(\.id)
                let byIdentifier = Dictionary(pairs.map { ($0.1.id, $0.0) }, uniquingKeysWith: { first, _ in first })
                selected = order.compactMap { byIdentifier[$0] }
            } else {
                selected = pairs.map(\.0)
            }
        }
        return limited(selected, descriptor.fetchLimit)
    }

    /// Throws when the descriptor asks after a token older than what was pruned from `storeIdentifier`.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired``.
    package static func checkExpiry(_ translation: HistoryFilter.Translation, storeIdentifier: String, horizon: Int64) throws {
        for token in translation.lowerBounds where HistoryFilter.isExpired(token, storeIdentifier: storeIdentifier, horizon: horizon) {
            throw HistoryFilter.expired(token, storeIdentifier: storeIdentifier, horizon: horizon)
        }
    }

    /// `transactions` oldest first (by timestamp, then identifier), or in the descriptor's
    /// order, and at most its `fetchLimit`.
    package static func order<T: HistoryTransaction>(_ transactions: [T], _ descriptor: HistoryDescriptor<T>) -> [T] {
        var ordered = transactions.sorted { ($0.timestamp, $0.transactionIdentifier) < ($1.timestamp, $1.transactionIdentifier) }
        if !descriptor.sortBy.isEmpty { ordered.sort(using: descriptor.sortBy) }
        return limited(ordered, descriptor.fetchLimit)
    }

    private static func limited<T>(_ elements: [T], _ limit: UInt64) -> [T] {
        guard limit > 0 && UInt64(elements.count) > limit else { return elements }
        return Array(elements.prefix(Int(limit)))
    }
}
