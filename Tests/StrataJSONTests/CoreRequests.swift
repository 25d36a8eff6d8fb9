@testable import StrataCore
import StrataTesting

/// The requests the core sends, for the conformance checks that call the store directly:
/// their initialisers are internal to StrataCore.
struct CoreRequests: StoreConformance.StoreRequestFactory {
    func saveRequest(
        inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot]
    ) -> DataStoreSaveChangesRequest<DefaultSnapshot> {
        DataStoreSaveChangesRequest(editingState: EditingState(), inserted: inserted, updated: updated, deleted: deleted)
    }

    /// A fetch with no filter, so a store that ignored `identifiers` would return every model.
    func fetchRequest<T: PersistentModel>(_ type: T.Type, identifiers: [PersistentIdentifier]?) -> DataStoreFetchRequest<T> {
        DataStoreFetchRequest(
            editingState: EditingState(), descriptor: FetchDescriptor<T>(), filter: .success(nil), sort: .success([]),
            identifiers: identifiers)
    }
}
