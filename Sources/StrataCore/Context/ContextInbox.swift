import Synchronization

/// Changes other contexts saved, waiting to be applied by the context that owns this inbox.
///
/// Contexts are not thread-safe, so a saving context never touches another context's
/// models: it posts here, and the receiving context applies the change at the start of
/// its next operation on its own thread.
final class ContextInbox: Sendable {
    enum Change: Sendable {
        /// Models saved elsewhere: refresh unchanged registered copies, forget deleted ones.
        case saved(updated: [DefaultSnapshot], deleted: [PersistentIdentifier])
        /// Every store was erased.
        case invalidateAll
        /// Another process (or container) committed to the store of these entities.
        case changedElsewhere(entityNames: Set<String>)
    }

    private let changes = Locked<[Change]>([])
    /// Whether `changes` holds any, set and cleared under its lock and read without it: a
    /// context looks here at the start of every operation, mostly to find nothing, and the
    /// lock cost about 200 instructions per look.
    private let hasChanges = Atomic<Bool>(false)

    func post(_ change: Change) {
        changes.withLock {
            $0.append(change)
            hasChanges.store(true, ordering: .sequentiallyConsistent)
        }
    }

    /// Whether changes wait to be taken, read without the lock.
    var isEmpty: Bool { !hasChanges.load(ordering: .sequentiallyConsistent) }

    func take() -> [Change] {
        guard !isEmpty else { return [] }
        return changes.withLock { pending in
            defer {
                pending.removeAll()
                hasChanges.store(false, ordering: .sequentiallyConsistent)
            }
            return pending
        }
    }
}
