import Foundation

/// How much history a built-in store keeps: none, all of it, or a window.
///
/// History is on by default, as in SwiftData, and kept until ``ModelContext/deleteHistory(_:)``
/// prunes it. A store that needs no history turns it off, and then nothing is written for it;
/// a store that should never grow without bound keeps a window, pruned as it saves:
///
/// ```swift
/// var configuration = ModelConfiguration(url: storeURL)
/// configuration.historyRetention = .window(transactions: 10_000, age: .seconds(7 * 86_400))
/// ```
///
/// An app that keeps a token older than the window gets ``SwiftDataError/historyTokenExpired``,
/// as after a prune by ``ModelContext/deleteHistory(_:)``.
public struct HistoryRetention: Sendable, Hashable {
    /// Whether the store records history at all.
    public let isEnabled: Bool
    /// The most transactions kept; older ones are pruned as the store saves. `nil` for no limit.
    public let maximumTransactions: Int?
    /// The longest time a transaction is kept; older ones are pruned as the store saves.
    /// `nil` for no limit.
    public let maximumAge: Duration?

    /// Every save recorded and kept until pruned: the default.
    public static let unlimited = HistoryRetention(isEnabled: true, maximumTransactions: nil, maximumAge: nil)

    /// No history: saves record nothing, and ``ModelContext/fetchHistory(_:)`` finds no
    /// transactions of the store.
    public static let disabled = HistoryRetention(isEnabled: false, maximumTransactions: nil, maximumAge: nil)

    /// Every save recorded, keeping at most the last `transactions` and none older than `age`.
    ///
    /// A limit of less than one transaction keeps one: the last save's.
    public static func window(transactions: Int? = nil, age: Duration? = nil) -> HistoryRetention {
        HistoryRetention(isEnabled: true, maximumTransactions: transactions.map { max($0, 1) }, maximumAge: age)
    }

    /// The oldest timestamp a transaction saved at `now` keeps, when an age limit applies.
    package func oldestKept(now: Date) -> Date? {
        guard let maximumAge else { return nil }
        let (seconds, attoseconds) = maximumAge.components
        return now.addingTimeInterval(-(Double(seconds) + Double(attoseconds) / 1e18))
    }
}

/// A store configuration that says how much history its store keeps.
///
/// The built-in configurations adopt it; so can a third-party store's, so that code (and
/// StrataTesting's conformance checks) can set the retention without knowing the store.
public protocol HistoryRetaining {
    /// How much history the store keeps.
    var historyRetention: HistoryRetention { get set }
}
