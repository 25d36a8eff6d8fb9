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
    /// The transactions `descriptor` selects, ordered and limited.
    ///
    /// - Throws: The predicate's evaluation error.
    package static func run<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>, over transactions: [T]) throws -> [T] {
        let selected = try descriptor.predicate.map { predicate in try transactions.filter { try predicate.evaluate($0) } } ?? transactions
        return order(selected, descriptor)
    }

    /// `transactions` oldest first (by timestamp, then identifier), or in the descriptor's
    /// order, and at most its `fetchLimit`.
    package static func order<T: HistoryTransaction>(_ transactions: [T], _ descriptor: HistoryDescriptor<T>) -> [T] {
        var ordered = transactions.sorted { ($0.timestamp, $0.transactionIdentifier) < ($1.timestamp, $1.transactionIdentifier) }
        if !descriptor.sortBy.isEmpty { ordered.sort(using: descriptor.sortBy) }
        if descriptor.fetchLimit > 0 && UInt64(ordered.count) > descriptor.fetchLimit { ordered = Array(ordered.prefix(Int(descriptor.fetchLimit))) }
        return ordered
    }
}
