import Foundation

/// A value behind a lock, for state several threads share.
///
/// Used in place of `Synchronization.Mutex` because on Linux `Mutex` waits on futexes that
/// ThreadSanitizer does not see, so every access it guards is reported as a race; the
/// pthread mutex under `NSLock` is one ThreadSanitizer understands, so its reports stay real.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    /// Unchecked for exclusivity: the lock gives each `withLock` sole access already, and the
    /// dynamic check cost two runtime calls (about 115 instructions) per call.
    @exclusivity(unchecked) private var guarded: Value

    package init(_ value: Value) {
        self.guarded = value
    }

    /// The current value.
    package var value: Value { withLock { $0 } }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&guarded)
    }
}
