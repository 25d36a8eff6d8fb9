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

    /// The property names of the last set of changed slots captured, which the next
    /// snapshot of the same entity with the same changes shares: the updates of one save
    /// mostly change the same properties, and one shared array spares an allocation per
    /// model here and a comparison of names per model in the store.
    struct ChangedNames {
        // Three fields rather than an optional tuple: binding the tuple to compare it copied
        // it, a retain and a release of the layout and of the names per model.
        private var lastLayout: ModelLayout?
        private var lastSlots = SlotSet()
        private var lastNames: [String] = []

        mutating func names(of slots: SlotSet, in layout: ModelLayout) -> [String] {
            if lastLayout === layout, lastSlots == slots { return lastNames }
            let names = slots.filter { $0 < layout.propertyNames.count }.map { layout.propertyNames[$0] }
            let shared = names.count == layout.propertyNames.count ? layout.propertyNames : names
            (lastLayout, lastSlots, lastNames) = (layout, slots, shared)
            return shared
        }
    }

    /// A snapshot of `data` listing `properties`; `changedNames` keeps the names of the last
    /// `.changed` snapshot for the next.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` when `.all` meets a property that
    ///   was not fetched.
    static func snapshot(
        of data: ManagedData, layout: ModelLayout, properties: Properties, changedNames: inout ChangedNames
    ) throws -> DefaultSnapshot {
        let identifier = data.identifier ?? PersistentIdentifier.temporary(in: layout.temporaryScope)
        // The storage read where the backing data keeps it: a copy of it retained and
        // released its three references.
        if properties != .changed, data.storage.others == nil, layout.ephemeralValues.isEmpty,
            data.storage.count == layout.propertyNames.count
        {
            // Every slot is a stored attribute value: the snapshot shares the model's array.
            return DefaultSnapshot(persistentIdentifier: identifier, propertyNames: layout.propertyNames, values: data.storage.values)
        }
        if properties == .changed {
            // Changed slots are loaded: a setter or a merge put their values there.
            let slots = data.changedSlots
            let names = changedNames.names(of: slots, in: layout)
            var values: [PersistentValue] = []
            values.reserveCapacity(names.count)
            for slot in slots where slot < layout.propertyNames.count {
                values.append(try value(of: data, slot: slot, layout: layout, identifier: identifier, properties: properties))
            }
            return DefaultSnapshot(persistentIdentifier: identifier, propertyNames: names, values: values)
        }
        var names: [String] = []
        var values: [PersistentValue] = []
        names.reserveCapacity(data.slotCount)
        values.reserveCapacity(data.slotCount)
        for slot in 0..<data.slotCount where slot < layout.propertyNames.count {
            if case .unloaded = data[slot: slot] {
                guard properties == .loaded else {
                    throw SwiftDataError.modelValidationFailure.with(
                        details: "\(layout.entityName).\(layout.propertyNames[slot]) of \(identifier) was not fetched and cannot be saved")
                }
                continue
            }
            names.append(layout.propertyNames[slot])
            values.append(try value(of: data, slot: slot, layout: layout, identifier: identifier, properties: properties))
        }
        if names.count == layout.propertyNames.count {
            names = layout.propertyNames  // share the entity's name list
        }
        return DefaultSnapshot(persistentIdentifier: identifier, propertyNames: names, values: values)
    }

    /// The value a snapshot lists for `slot`: a fault as the identifiers it was fetched with.
    ///
    /// - Throws: ``SwiftDataError/modelValidationFailure`` for a slot that was not fetched.
    private static func value(
        of data: ManagedData, slot: Int, layout: ModelLayout, identifier: PersistentIdentifier, properties: Properties
    ) throws -> PersistentValue {
        switch data[slot: slot] {
        case .loaded(let backing):
            if !layout.ephemeralValues.isEmpty, let stored = layout.ephemeralValues[slot] { return stored }
            var unused: [PersistentIdentifier: any BackingData] = [:]
            return SnapshotCapture.persistentValue(of: backing, slot: slot, layout: layout, related: &unused)
        case .toOneFault(let id):
            return .identifier(id)
        case .toManyFault(let ids):
            return .identifiers(ids)
        case .unloaded:
            throw SwiftDataError.modelValidationFailure.with(
                details: "\(layout.entityName).\(layout.propertyNames[slot]) of \(identifier) was not fetched and cannot be saved")
        }
    }
}
