import Foundation

/// Builds ``DefaultSnapshot``s from backing data: attribute values as they are stored,
/// relationships as identifiers, transformable values through their value transformer.
enum SnapshotCapture {
    static func capture(
        _ backingData: any BackingData, related: inout [PersistentIdentifier: any BackingData]
    ) -> DefaultSnapshot {
        capture(opened: backingData, related: &related)
    }

    private static func capture<B: BackingData>(
        opened backingData: B, related: inout [PersistentIdentifier: any BackingData]
    ) -> DefaultSnapshot {
        let layout = ModelLayout.of(B.Model.self)
        let identifier = backingData.persistentModelID
            ?? PersistentIdentifier.temporary(in: layout.temporaryScope)
        var values: [PersistentValue] = []
        values.reserveCapacity(layout.propertyNames.count)
        for slot in layout.propertyNames.indices {
            values.append(persistentValue(of: backingData.value(at: slot), slot: slot, layout: layout, related: &related))
        }
        return DefaultSnapshot(persistentIdentifier: identifier, propertyNames: layout.propertyNames, values: values)
    }

    static func persistentValue(
        of value: BackingValue, slot: Int, layout: ModelLayout, related: inout [PersistentIdentifier: any BackingData]
    ) -> PersistentValue {
        switch value {
        case .unset:
            return .null
        case .attribute(let stored):
            return stored
        case .toOne(let model):
            guard let model else { return .null }
            let id = model.persistentModelID
            related[id] = model.anyBackingData
            return .identifier(id)
        case .toMany(let collection):
            var ids: [PersistentIdentifier] = []
            for model in collection._persistentModels {
                let id = model.persistentModelID
                related[id] = model.anyBackingData
                ids.append(id)
            }
            return .identifiers(ids)
        case .transformable(let any):
            guard let any else { return .null }
            guard let name = layout.transformerNames[slot],
                let transformer = ValueTransformer(forName: NSValueTransformerName(name)),
                let data = transformer.transformedValue(any) as? Data
            else {
                preconditionFailure(
                    "Strata: \(layout.entityName).\(layout.propertyNames[slot]) is transformable, but no registered value transformer turned its value into Data"
                )
            }
            return .data(data)
        }
    }
}
