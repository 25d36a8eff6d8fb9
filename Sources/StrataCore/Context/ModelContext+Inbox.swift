import Foundation

// Changes other contexts saved, and autosave of the main context.
extension ModelContext {
    /// Applies what other contexts saved since this context's last operation.
    func applyInbox() {
        for change in inbox.take() {
            switch change {
            case .saved(let updated, let deletedIDs):
                for snapshot in updated {
                    guard let model = registered[snapshot.persistentIdentifier], let data = managedAny(model),
                        !data.hasChangesPending, let runtime = try? runtime(for: data.entityName)
                    else { continue }
                    do {
                        // Saves may list changed properties only; the rest stay as loaded.
                        try refresh(data, from: snapshot, runtime: runtime, partial: true)
                    } catch {
                        StrataLog.logger.error("a change saved by another context could not be applied to \(snapshot.persistentIdentifier): \(error)")
                    }
                }
                for id in deletedIDs {
                    guard let model = registered.remove(id), let data = managedAny(model) else { continue }
                    data.isDeleted = true
                    changed.remove(model)
                    deleted.remove(model)  // already gone: nothing left to delete
                }
            case .invalidateAll:
                for model in registered.all {
                    guard let data = managedAny(model), !data.isInserted else { continue }
                    data.isDeleted = true
                }
                registered.filter { managedAny($0)?.isInserted ?? false }
                changed = ModelSet()
                deleted = ModelSet()
                knownSnapshots = [:]
            }
        }
    }

    func scheduleAutosave() {
        guard autosaveEnabled, isMainContext, !autosaveScheduled else { return }
        autosaveScheduled = true
        let context = UncheckedContext(self)
        Task { @MainActor in
            let context = context.context
            context.autosaveScheduled = false
            guard context.autosaveEnabled, context.hasChanges else { return }
            do {
                try context.save()
            } catch {
                StrataLog.logger.error("autosave of the main context failed: \(error)")
            }
        }
    }
}

/// Carries the main context into a main-actor task; only the main actor touches it.
struct UncheckedContext: @unchecked Sendable {
    let context: ModelContext
    init(_ context: ModelContext) { self.context = context }
}

