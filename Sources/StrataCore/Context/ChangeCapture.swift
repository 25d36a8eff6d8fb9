import Foundation

/// Builds the snapshots a save sends from what a context holds, without loading anything:
/// loaded values as they are, relationships that were never read as the identifiers they
/// were fetched with.
enum ChangeCapture {
    /// Which properties a snapshot lists.
    enum Properties {
        /// Every property; each must be loaded (see ``ModelContext/loadUnloadedProperties(of:)``).
        case all
        /// Every loaded property: what the context holds of a deleted model.
        case loaded
        /// The properties set since the model was fetched or last saved.
        case changed
    }

    /// A snapshot of `data` listing `properties`.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when `.all` meets a property that
    ///   was not fetched.
    static func snapshot(of data: ManagedData, layout: ModelLayout, properties: Properties) throws -> DefaultSnapshot {
        let identifier = data.identifier ?? PersistentIdentifier.temporary(in: layout.temporaryScope)
        let storage = data.storage
        if properties != .changed, storage.others == nil, layout.ephemeralValues.isEmpty,
            storage.count == layout.propertyNames.count
        {
            // Every slot is a stored attribute value: the snapshot shares the model's array.
            return DefaultSnapshot(persistentIdentifier: identifier, propertyNames: layout.propertyNames, values: storage.values)
        }
        var names: [String] = []
        var values: [PersistentValue] = []
        let slots: [Int] = properties == .changed ? Array(data.changedSlots) : Array(0..<data.slotCount)
        names.reserveCapacity(slots.count)
        values.reserveCapacity(slots.count)
        var unused: [PersistentIdentifier: any BackingData] = [:]
        let hasEphemeral = !layout.ephemeralValues.isEmpty
        for slot in slots where slot < layout.propertyNames.count {
            let value: PersistentValue
            switch data[slot: slot] {
            case .loaded(let backing):
                if hasEphemeral, let stored = layout.ephemeralValues[slot] {
                    value = stored
                } else {
                    value = SnapshotCapture.persistentValue(of: backing, slot: slot, layout: layout, related: &unused)
                }
            case .toOneFault(let id):
                value = .identifier(id)
            case .toManyFault(let ids):
                value = .identifiers(ids)
            case .unloaded:
                guard properties == .loaded else {
                    throw SwiftDataError.modelValidationFailure.with(
                        details: "\(layout.entityName).\(layout.propertyNames[slot]) of \(identifier) was not fetched and cannot be saved")
                }
                continue
            }
            names.append(layout.propertyNames[slot])
            values.append(value)
        }
        if names.count == layout.propertyNames.count {
            names = layout.propertyNames  // share the entity's name list
        }
        return DefaultSnapshot(persistentIdentifier: identifier, propertyNames: names, values: values)
    }
}
