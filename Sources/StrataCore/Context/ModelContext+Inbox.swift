import Foundation

// Changes other contexts saved.
extension ModelContext {
    /// Applies what other contexts saved since this context's last operation.
    func applyInbox() {
        // Mostly there is nothing: looked at first, no empty array is made and dropped per
        // operation (about 25 instructions an insert).
        guard !inbox.isEmpty else { return }
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
            case .changedElsewhere(let entityNames):
                refreshRegistered(of: entityNames)
            case .invalidateAll:
                let invalidated = registered.all.compactMap { managedAny($0)?.isInserted == false ? $0.persistentModelID : nil }
                for model in registered.all {
                    guard let data = managedAny(model), !data.isInserted else { continue }
                    data.isDeleted = true
                }
                registered.filter { managedAny($0)?.isInserted ?? false }
                changed = ModelSet(tracksLayouts: true)
                deleted = ModelSet()
                knownSnapshots = [:]
                NotificationCenter.default.post(
                    name: ModelContext.didSave, object: self,
                    userInfo: [NotificationKey.invalidatedAllIdentifiers.rawValue: invalidated])
            }
        }
    }

    /// Catches up before a read: notices stores another process changed, then applies
    /// what other contexts saved.
    ///
    /// - Parameter deferred: A store not asked now, because the fetch about to read from it
    ///   tells its external change count (see ``catchUp(after:reported:)``).
    func catchUp(except deferred: StoreBox? = nil) {
        core.noticeExternalChanges(except: deferred)
        applyInbox()
    }

    /// Catches up after a fetch read its rows from `store`: notices whether another process
    /// had changed it, and if so refreshes what the context registered.
    ///
    /// Sound after the read as before it: any commit the fetched rows show came before the
    /// count was taken.
    ///
    /// - Parameter reported: The count the fetch returned; when `nil`, the store is asked.
    func catchUp(after store: StoreBox, reported: Int64?) {
        if core.noticeExternalChange(of: store, reported: reported) { applyInbox() }
    }

    /// Reloads the registered, unchanged models of `entityNames` from their stores, telling
    /// their observers; models no store holds any more read as deleted and leave the context.
    private func refreshRegistered(of entityNames: Set<String>) {
        knownSnapshots = [:]
        let models = registered.all.filter { model in
            guard let data = managedAny(model) else { return false }
            return entityNames.contains(data.entityName) && !data.hasChangesPending && !data.isInserted
        }
        for chunk in models.chunks(of: Self.batchDeleteChunk) {
            let ids = chunk.map(\.persistentModelID)
            let snapshots: [DefaultSnapshot]
            do {
                snapshots = try lookupSnapshots(ids)
            } catch {
                StrataLog.logger.error("models changed by another process could not be reloaded: \(error)")
                return
            }
            let found = Dictionary(snapshots.map { ($0.persistentIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
            for model in chunk {
                guard let data = managedAny(model) else { continue }
                guard let snapshot = found[model.persistentModelID] else {
                    registered.remove(model.persistentModelID)
                    data.isDeleted = true
                    changed.remove(model)
                    continue
                }
                do {
                    for slot in try refresh(data, from: snapshot, runtime: try runtime(for: data.entityName), partial: true) {
                        notifyObservers(of: model, slot: slot)
                    }
                } catch {
                    StrataLog.logger.error("\(model.persistentModelID), changed by another process, could not be refreshed: \(error)")
                }
            }
        }
    }
}

/// Holds the main context in its container's storage; only the main actor uses it.
struct UncheckedContext: @unchecked Sendable {
    let context: ModelContext
    init(_ context: ModelContext) { self.context = context }
}

