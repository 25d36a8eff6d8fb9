import Foundation

// Autosave of the main context: changes are saved once they rest for a moment, and at the
// latest after a while when they keep coming.
extension ModelContext {
    /// When the main context saves by itself (see ``ModelContext/autosaveEnabled``).
    ///
    /// A change starts a wait of ``delay``. When that wait ends with no newer change, the
    /// context saves; when changes kept coming, it waits again, but saves anyway once the
    /// changes have waited ``maximumDelay``. A failed autosave is logged, the changes stay
    /// pending, and the autosave tries again after ``maximumDelay``.
    public struct AutosavePolicy: Sendable {
        /// How long changes rest before they are saved.
        public var delay: Duration
        /// The longest changes wait while more keep coming, and the wait before a failed
        /// autosave is retried.
        public var maximumDelay: Duration
        /// The clock that measures both. Tests pass a clock they advance by hand.
        public var clock: any Clock<Duration>

        /// A policy of `delay` and `maximumDelay` on `clock`.
        public init(delay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(2), clock: any Clock<Duration> = ContinuousClock()) {
            self.delay = delay
            self.maximumDelay = maximumDelay
            self.clock = clock
        }
    }

    /// Notes a change for autosave and starts the wait when none is running.
    func scheduleAutosave() {
        guard autosaveEnabled, isMainContext else { return }
        autosaveChangeCount &+= 1
        guard !autosaveScheduled else { return }
        autosaveScheduled = true
        let weak = WeakContext(self)
        let policy = autosavePolicy
        Task { @MainActor in
            await Self.autosave(weak, policy)
        }
    }

    /// Waits as ``AutosavePolicy`` says, then saves; retries a failed save.
    @MainActor
    private static func autosave(_ weak: WeakContext, _ policy: AutosavePolicy) async {
        var waited = Duration.zero
        while true {
            guard let seen = weak.context?.autosaveChangeCount else { return }
            do {
                try await policy.clock.sleep(for: policy.delay)
            } catch {
                weak.context?.autosaveScheduled = false
                return
            }
            waited += policy.delay
            guard let context = weak.context else { return }
            guard context.autosaveEnabled, context.hasChanges else {
                context.autosaveScheduled = false
                return
            }
            if context.autosaveChangeCount != seen && waited < policy.maximumDelay { continue }
            do {
                try context.save()
                context.autosaveScheduled = false
                return
            } catch {
                StrataLog.logger.error("autosave of the main context failed; its changes stay pending and it retries in \(policy.maximumDelay): \(error)")
            }
            waited = .zero
            do {
                try await policy.clock.sleep(for: policy.maximumDelay - policy.delay)
            } catch {
                weak.context?.autosaveScheduled = false
                return
            }
        }
    }
}
