import Foundation

/// The history of a store that keeps it in memory (the memory store, and the JSON store
/// between document writes): records oldest first, and how far they were pruned.
package struct HistoryLog: Sendable, Hashable {
    /// One record per save, oldest first.
    package var records: [HistoryRecord] = []
    /// The identifier the next save's transaction gets.
    package var nextTransaction: Int64 = 1
    /// The highest transaction identifier ever deleted: a token before it has expired.
    package var horizon: Int64 = 0

    package init(records: [HistoryRecord] = [], nextTransaction: Int64 = 1, horizon: Int64 = 0) {
        self.records = records
        self.nextTransaction = nextTransaction
        self.horizon = horizon
    }

    /// Records a save's changes as the next transaction, then prunes what `retention` no
    /// longer keeps; returns the new transaction's token, or `nil` when nothing was recorded.
    package mutating func append(
        _ recorder: HistoryRecorder, author: String?, storeIdentifier: String, retention: HistoryRetention, now: Date = Date()
    ) -> DefaultHistoryToken? {
        guard retention.isEnabled, !recorder.runs.isEmpty else { return nil }
        let id = nextTransaction
        nextTransaction += 1
        records.append(HistoryRecord(transactionIdentifier: id, timestamp: now, author: author, storeIdentifier: storeIdentifier, runs: recorder.runs))
        prune(retention, now: now)
        return DefaultHistoryToken(tokenValue: [storeIdentifier: id])
    }

    /// Deletes the records `retention` no longer keeps.
    package mutating func prune(_ retention: HistoryRetention, now: Date = Date()) {
        var doomed = 0
        if let limit = retention.maximumTransactions, records.count > limit { doomed = records.count - limit }
        if let oldest = retention.oldestKept(now: now) {
            while doomed < records.count - 1 && records[doomed].timestamp < oldest { doomed += 1 }
        }
        guard doomed > 0 else { return }
        horizon = max(horizon, records[doomed - 1].transactionIdentifier)
        records.removeFirst(doomed)
    }

    /// The transactions `descriptor` selects.
    ///
    /// - Throws: ``SwiftDataError/historyTokenExpired`` when it asks after a token older than
    ///   what was pruned, or the predicate's evaluation error.
    package func fetch(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, storeIdentifier: String, schema: Schema
    ) throws -> [DefaultHistoryTransaction] {
        let translation = HistoryFilter.superset(of: descriptor.predicate)
        try HistoryQuery.checkExpiry(translation, storeIdentifier: storeIdentifier, horizon: horizon)
        let filter = translation.filter.resolved(for: storeIdentifier)
        return try HistoryQuery.run(descriptor, over: records.filter { filter.matches($0) }, schema: schema, isExact: translation.isExact)
    }

    /// Deletes the transactions `descriptor` selects.
    ///
    /// - Throws: The predicate's evaluation error.
    package mutating func delete(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, storeIdentifier: String, schema: Schema) throws {
        let translation = HistoryFilter.superset(of: descriptor.predicate)
        let filter = translation.filter.resolved(for: storeIdentifier)
        let doomed = Set(try HistoryQuery.select(descriptor, from: records.filter { filter.matches($0) }, schema: schema, isExact: translation.isExact).map(\.transactionIdentifier))
        guard let highest = doomed.max() else { return }
        records.removeAll { doomed.contains($0.transactionIdentifier) }
        horizon = max(horizon, highest)
    }
}
