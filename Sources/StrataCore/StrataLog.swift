import Logging

/// Strata's log: where the core says what it did in memory instead of in a store.
///
/// Messages go to swift-log's `Logger(label: "strata")`; bootstrap `LoggingSystem` to see them.
enum StrataLog {
    static let logger = Logger(label: "strata")

    /// Records that part of a request ran in memory, and why.
    static func fallback(_ what: String, reason: String) {
        logger.debug("\(what) runs in memory: \(reason)")
    }
}
