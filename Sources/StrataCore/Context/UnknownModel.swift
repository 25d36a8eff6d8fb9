/// The model `ModelContext.model(for:)` returns for an identifier whose entity the
/// container does not know: it has no properties.
final class UnknownModel: PersistentModel {
    var persistentBackingData: any BackingData<UnknownModel>
    init(backingData: any BackingData<UnknownModel>) { persistentBackingData = backingData }
    static var schemaMetadata: [Schema.PropertyMetadata] { [] }
}
