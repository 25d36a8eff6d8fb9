import Foundation
import Strata

// Models written without @Model, as a store author or a test might, so the schema's own
// validation can be reached: with @Model, inverses named on both sides of two classes are
// a compile-time "circular reference", exactly as in SwiftData.

final class Shelf: PersistentModel {
    var persistentBackingData: any BackingData<Shelf> = Shelf.createBackingData()
    init() {}
    init(backingData: any BackingData<Shelf>) { persistentBackingData = backingData }
    var volumes: [Volume] {
        get { _getValue(at: 0, in: persistentBackingData, as: [Volume].self) }
        set { _setValue(newValue, at: 0, in: persistentBackingData) }
    }
    static var schemaMetadata: [Schema.PropertyMetadata] {
        [Schema.PropertyMetadata(name: "volumes", keypath: \Shelf.volumes, defaultValue: nil, metadata: Schema.Relationship(inverse: \Volume.shelf))]
    }
}

final class Volume: PersistentModel {
    var persistentBackingData: any BackingData<Volume> = Volume.createBackingData()
    init() {}
    init(backingData: any BackingData<Volume>) { persistentBackingData = backingData }
    var shelf: Shelf? {
        get { _getValue(at: 0, in: persistentBackingData, as: Shelf?.self) }
        set { _setValue(newValue, at: 0, in: persistentBackingData) }
    }
    var title: String {
        get { _getValue(at: 1, in: persistentBackingData, as: String.self) }
        set { _setValue(newValue, at: 1, in: persistentBackingData) }
    }
    static var schemaMetadata: [Schema.PropertyMetadata] {
        [
            Schema.PropertyMetadata(name: "shelf", keypath: \Volume.shelf, defaultValue: nil, metadata: Schema.Relationship(inverse: \Shelf.volumes)),
            Schema.PropertyMetadata(name: "title", keypath: \Volume.title, defaultValue: nil, metadata: Schema.Relationship(inverse: \Shelf.volumes)),
        ]
    }
    static var _schemaAnnotations: Schema.ModelAnnotations {
        Schema.ModelAnnotations(uniquenessConstraints: Schema.Unique<Volume>([\.title, \.persistentModelID]))
    }
}
