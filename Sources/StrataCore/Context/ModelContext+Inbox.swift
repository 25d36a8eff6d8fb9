import Foundation

// Changes other contexts saved.
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
                        let slots = try refresh(data, from: snapshot, runtime: runtime, partial: true)
                        for slot in slots { notifyObservers(of: model, slot: slot) }
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
                let invalidated = registered.all.compactMap { managedAny($0)?.isInserted == false ? $0.persistentModelID : nil }
                for model in registered.all {
                    guard let data = managedAny(model), !data.isInserted else { continue }
                    data.isDeleted = true
                }
                registered.filter { managedAny($0)?.isInserted ?? false }
                changed = ModelSet()
                deleted = ModelSet()
                knownSnapshots = [:]
                NotificationCenter.default.post(
                    name: ModelContext.didSave, object: self,
                    userInfo: [NotificationKey.invalidatedAllIdentifiers.rawValue: invalidated])
            }
        }
    }
}

/// Holds the main context in its container's storage; only the main actor uses it.
struct UncheckedContext: @unchecked Sendable {
    let context: ModelContext
    init(_ context: ModelContext) { self.context = context }
}

