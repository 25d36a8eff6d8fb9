import Foundation
import StrataCore
import Testing

// Lookups by identifier, partial updates, and the errors every store reports alike. Checks
// that call the store directly need the harness's request factory; the partial-update
// checks apply only to stores that adopt DataStorePartialUpdating.
extension StoreConformance {
    static let updateChecks: [Check] = [
        Check("an update of a model the store does not hold fails the whole save", updateOfMissingModelFails),
        Check("a delete of a model the store does not hold fails the whole save", deleteOfMissingModelFails),
        Check("a read-only store fetches but refuses every change", readOnlyStoreRefusesChanges),
        Check("a fetch of an entity the store does not hold is refused", fetchOfForeignEntityIsRefused),
        Check("a lookup by identifier returns the held models in the requested order", lookupByIdentifierKeepsOrder),
        Check("a partial update writes only the properties it lists", partialUpdateWritesListedProperties),
        Check("a partial update of a model the store does not hold fails the whole save", partialUpdateOfMissingModelFails),
        Check("a streamed fetch hands over what a fetch returns", streamedFetchMatchesFetch),
    ]

    // MARK: Errors, through a context

    /// A saved entry and a context holding a model whose identifier this store never gave out.
    private static func ghostSetup(_ harness: ConformanceHarness) throws -> (ModelContainer, ModelContext, Entry, Entry) {
        let container = try harness.container(for: Entry.self)
        let writer = harness.context(container)
        writer.insert(Entry(writer: 1, batch: 1, sequence: 1))
        try writer.save()
        let context = harness.context(container)
        let kept = try #require(try context.fetch(FetchDescriptor<Entry>()).first)
        let storeIdentifier = try #require(kept.persistentModelID.storeIdentifier)
        let unknown = try PersistentIdentifier.identifier(
            for: storeIdentifier, entityName: Schema.entityName(for: Entry.self), primaryKey: Int64(987_654_321))
        let ghost = try #require(context.model(for: unknown) as? Entry)
        return (container, context, kept, ghost)
    }

    /// Expects the store to hold just the entry the ghost setup saved, unchanged.
    private static func expectOnlyTheKeptEntry(in harness: ConformanceHarness, _ container: ModelContainer) throws {
        let entries = try harness.context(container).fetch(FetchDescriptor<Entry>())
        #expect(entries.map(\.sequence) == [1], "a failed save left changes behind")
        #expect(entries.first?.batch == 1, "a failed save changed a stored model")
    }

    static func updateOfMissingModelFails(_ harness: ConformanceHarness) throws {
        let (container, context, kept, ghost) = try ghostSetup(harness)
        ghost.sequence = 2
        kept.batch = 100
        context.insert(Entry(writer: 1, batch: 1, sequence: 3))
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        try expectOnlyTheKeptEntry(in: harness, container)
    }

    static func deleteOfMissingModelFails(_ harness: ConformanceHarness) throws {
        let (container, context, kept, ghost) = try ghostSetup(harness)
        context.delete(ghost)
        kept.batch = 100
        context.insert(Entry(writer: 1, batch: 1, sequence: 3))
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        try expectOnlyTheKeptEntry(in: harness, container)
    }

    static func readOnlyStoreRefusesChanges(_ harness: ConformanceHarness) throws {
        guard harness.makeReadOnlyConfiguration != nil else { return }
        let name = ConformanceHarness.uniqueName(for: harness.check)
        let writable = try harness.container(for: [Entry.self], named: name, readOnly: false)
        let writer = harness.context(writable)
        writer.insert(Entry(writer: 1, batch: 1, sequence: 1))
        try writer.save()

        let readOnly = try harness.container(for: [Entry.self], named: name, readOnly: true)
        let context = harness.context(readOnly)
        let held = try context.fetch(FetchDescriptor<Entry>())
        context.insert(Entry(writer: 2, batch: 2, sequence: 2))
        #expect(throws: DataStoreError.unsupportedFeature) { try context.save() }
        context.rollback()
        if let entry = held.first {
            entry.batch = 100
            #expect(throws: DataStoreError.unsupportedFeature) { try context.save() }
            context.rollback()
            context.delete(entry)
            #expect(throws: DataStoreError.unsupportedFeature) { try context.save() }
            context.rollback()
        }
        #expect(throws: DataStoreError.unsupportedFeature) { try readOnly.erase() }
        let entries = try harness.context(writable).fetch(FetchDescriptor<Entry>())
        #expect(entries.map(\.sequence) == [1] && entries.first?.batch == 1, "a read-only store changed what it holds")
    }

    // MARK: Requests made directly

    static func fetchOfForeignEntityIsRefused(_ harness: ConformanceHarness) throws {
        let requests = harness.requests
        let store = try harness.store(for: Entry.self)
        func refuses<S: DataStore>(_ store: S) {
            let request = requests.fetchRequest(Ranked.self, identifiers: nil)
            #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) { _ = try store.fetch(request) }
            #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) { _ = try store.fetchCount(request) }
            #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) { _ = try store.fetchIdentifiers(request) }
            let lookup = requests.fetchRequest(Ranked.self, identifiers: [])
            #expect(throws: SwiftDataError.configurationSchemaNotFoundInContainerSchema) { _ = try store.fetch(lookup) }
        }
        refuses(store)
    }

    static func lookupByIdentifierKeepsOrder(_ harness: ConformanceHarness) throws {
        let requests = harness.requests
        guard let store = harness.defaultSnapshotStore(try harness.store(for: Entry.self)) else { return }
        let entries = (1...3).map { Entry(writer: 1, batch: 1, sequence: $0) }
        let remapped = try store.save(requests.saveRequest(inserted: entries.map(newSnapshot), updated: [], deleted: []))
        let ids = try entries.map { try #require(remapped[$0.persistentModelID]) }
        let storeIdentifier = try #require(ids[0].storeIdentifier)
        let missing = try PersistentIdentifier.identifier(for: storeIdentifier, entityName: ids[0].entityName, primaryKey: Int64(987_654_321))
        let otherEntity = try PersistentIdentifier.identifier(
            for: storeIdentifier, entityName: Schema.entityName(for: Ranked.self), primaryKey: ids[0].primaryKey(as: Int64.self)!)
        let asked = [ids[2], missing, ids[0], ids[2], otherEntity]

        let found = try store.fetchIdentifiers(requests.fetchRequest(Entry.self, identifiers: asked), snapshots: true)
        #expect(found == [ids[2], ids[0]], "a lookup returned other models, another order, or a model twice")
        #expect(try store.fetchIdentifiers(requests.fetchRequest(Entry.self, identifiers: asked), snapshots: false) == [ids[2], ids[0]])
        #expect(try store.fetchCount(requests.fetchRequest(Entry.self, identifiers: asked)) == 2)
        #expect(try store.fetchIdentifiers(requests.fetchRequest(Entry.self, identifiers: []), snapshots: true).isEmpty)
    }

    static func partialUpdateWritesListedProperties(_ harness: ConformanceHarness) throws {
        let requests = harness.requests
        guard let store = harness.partialUpdatingStore(try harness.store(for: Author.self)) else { return }
        let (ada, grace, notes, label, library) = librarySnapshots()
        let remapped = try store.save(requests.saveRequest(inserted: library, updated: [], deleted: []))
        let adaID = try #require(remapped[ada.persistentModelID])
        let graceID = try #require(remapped[grace.persistentModelID])
        let bookID = try #require(remapped[notes.persistentModelID])
        let labelID = try #require(remapped[label.persistentModelID])

        func stored() throws -> DefaultSnapshot {
            try #require(try store.fetch(requests.fetchRequest(Book.self, identifiers: [bookID])).fetchedSnapshots.first)
        }
        func update(_ names: [String], _ values: [PersistentValue]) throws {
            let change = DefaultSnapshot(persistentIdentifier: bookID, propertyNames: names, values: values)
            _ = try store.save(requests.saveRequest(inserted: [], updated: [change], deleted: []))
        }

        try update(["name"], [.string("Notes, revised")])
        var book1 = try stored()
        #expect(book1["name"] == .string("Notes, revised"))
        #expect(book1["author"] == .identifier(adaID), "a partial update of an attribute changed a to-one relationship")
        #expect(book1["labels"] == .identifiers([labelID]), "a partial update of an attribute changed a to-many relationship")

        try update(["author"], [.identifier(graceID)])
        book1 = try stored()
        #expect(book1["author"] == .identifier(graceID))
        #expect(book1["name"] == .string("Notes, revised"), "a partial update of a relationship changed an attribute")
        #expect(book1["labels"] == .identifiers([labelID]))

        try update(["labels", "name"], [.identifiers([]), .string("Notes, final")])
        book1 = try stored()
        #expect(book1["labels"] == .identifiers([]))
        #expect(book1["name"] == .string("Notes, final"))
        #expect(book1["author"] == .identifier(graceID), "a partial update changed a property it did not list")

        try update([], [])
        #expect(try stored() == book1, "an update that lists nothing changed the model")
    }

    static func partialUpdateOfMissingModelFails(_ harness: ConformanceHarness) throws {
        let requests = harness.requests
        guard let store = harness.partialUpdatingStore(try harness.store(for: Entry.self)) else { return }
        let entry = Entry(writer: 1, batch: 1, sequence: 1)
        let remapped = try store.save(requests.saveRequest(inserted: [newSnapshot(entry)], updated: [], deleted: []))
        let id = try #require(remapped[entry.persistentModelID])
        let missing = try PersistentIdentifier.identifier(
            for: try #require(id.storeIdentifier), entityName: id.entityName, primaryKey: Int64(987_654_321))
        let changes = [
            DefaultSnapshot(persistentIdentifier: id, propertyNames: ["batch"], values: [.int(100)]),
            DefaultSnapshot(persistentIdentifier: missing, propertyNames: ["batch"], values: [.int(200)]),
        ]
        #expect(throws: SwiftDataError.modelValidationFailure) {
            _ = try store.save(requests.saveRequest(inserted: [], updated: changes, deleted: []))
        }
        let held = try store.fetch(requests.fetchRequest(Entry.self, identifiers: [id, missing])).fetchedSnapshots
        #expect(held.map(\.persistentIdentifier) == [id])
        #expect(held.first?["batch"] == .int(1), "a failed save changed a stored model")
    }

    /// The full snapshot of a model that was never inserted, under a temporary identifier.
    /// A store that streams (``DataStoreStreaming``) hands over, one at a time and in the
    /// same order, the snapshots its whole fetch returns, with the same related snapshots:
    /// for entities with and without to-many relationships, and for lookups. An error of the
    /// receiver stops the stream and comes back out. A store that also tells the external
    /// change count (``DataStoreStreamingWithChangeCount``) hands over the same with it, and
    /// the count is the store's own while nobody else commits.
    static func streamedFetchMatchesFetch(_ harness: ConformanceHarness) throws {
        let requests = harness.requests
        guard let store = try harness.store(for: Author.self, Entry.self) as? any DataStoreStreaming else { return }
        func check<S: DataStoreStreaming>(_ store: S) throws {
            let (ada, grace, _, _, library) = librarySnapshots()
            let entries = (1...3).map { Entry(writer: 1, batch: 1, sequence: $0) }
            let remapped = try store.save(requests.saveRequest(inserted: library + entries.map(newSnapshot), updated: [], deleted: []))
                .remappedIdentifiers
            let entryIDs = try entries.map { try #require(remapped[$0.persistentModelID]) }
            let authorIDs = try [ada, grace].map { try #require(remapped[$0.persistentModelID]) }

            func expectSame<T: PersistentModel>(_ request: DataStoreFetchRequest<T>, _ what: String) throws {
                var streamed: [DefaultSnapshot] = []
                let related = try store.fetch(request) { streamed.append($0) }
                let whole = try store.fetch(request)
                #expect(streamed == whole.fetchedSnapshots, "\(what): the stream handed over other snapshots or another order")
                #expect(related == whole.relatedSnapshots, "\(what): the stream returned other related snapshots")
                #expect(!streamed.isEmpty, "\(what): nothing was fetched")
                guard let counting = store as? any DataStoreStreamingWithChangeCount else { return }
                var counted: [DefaultSnapshot] = []
                let result = try counting.fetchWithExternalChangeCount(request) { counted.append($0) }
                #expect(counted == whole.fetchedSnapshots, "\(what): the stream with a change count handed over other snapshots or another order")
                #expect(result.relatedSnapshots == whole.relatedSnapshots, "\(what): the stream with a change count returned other related snapshots")
                if let count = result.externalChangeCount {
                    #expect(count == (try counting.externalChangeCount()), "\(what): the fetch's change count is not the store's, with nobody else committing")
                }
            }
            try expectSame(requests.fetchRequest(Entry.self, identifiers: nil), "every entry")
            try expectSame(requests.fetchRequest(Entry.self, identifiers: [entryIDs[2], entryIDs[0]]), "a lookup of entries")
            try expectSame(requests.fetchRequest(Author.self, identifiers: nil), "every author (a to-many relationship)")
            try expectSame(requests.fetchRequest(Author.self, identifiers: authorIDs.reversed()), "a lookup of authors")
            try expectSame(requests.fetchRequest(Book.self, identifiers: nil), "every book (to-one and many-to-many)")
            try expectSame(requests.fetchRequest(Label.self, identifiers: nil), "every label")

            for request in [requests.fetchRequest(Entry.self, identifiers: nil), requests.fetchRequest(Entry.self, identifiers: entryIDs)] {
                var received = 0
                #expect(throws: StreamStop.self, "the receiver's error did not come back out") {
                    _ = try store.fetch(request) { _ in
                        received += 1
                        throw StreamStop()
                    }
                }
                #expect(received == 1, "the stream went on after the receiver's error")
            }
        }
        try check(store)
    }

    /// Two authors, a book by the first with one label, and the label, with the snapshots a
    /// save inserts them with: the book's to-one and many-to-many relationships and the
    /// label's inverse set.
    private static func librarySnapshots() -> (ada: Author, grace: Author, notes: Book, label: Label, snapshots: [DefaultSnapshot]) {
        let ada = Author(name: "Ada")
        let grace = Author(name: "Grace")
        let notes = Book(name: "Notes")
        let label = Label(name: "Label")
        var book = newSnapshot(notes)
        book.set("author", .identifier(ada.persistentModelID))
        book.set("labels", .identifiers([label.persistentModelID]))
        var labelSnapshot = newSnapshot(label)
        labelSnapshot.set("books", .identifiers([notes.persistentModelID]))
        return (ada, grace, notes, label, [newSnapshot(ada), newSnapshot(grace), book, labelSnapshot])
    }

    /// The error a check's receiver of streamed snapshots throws to stop the stream.
    private struct StreamStop: Error {}

    private static func newSnapshot<T: PersistentModel>(_ model: T) -> DefaultSnapshot {
        var related: [PersistentIdentifier: any BackingData] = [:]
        return DefaultSnapshot(from: model.persistentBackingData, relatedBackingDatas: &related)
    }
}

extension DefaultSnapshot {
    /// Sets the value of the property `name`, which the snapshot lists.
    fileprivate mutating func set(_ name: String, _ value: PersistentValue) {
        guard let index = propertyNames.firstIndex(of: name) else {
            Issue.record("the snapshot has no property \(name)")
            return
        }
        self[index: index] = value
    }
}

/// A store whose snapshots are ``DefaultSnapshot``s, with its requests typed for them.
struct DefaultSnapshotStore {
    let save: (DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> [PersistentIdentifier: PersistentIdentifier]
    let fetchEntries: (DataStoreFetchRequest<Entry>, Bool) throws -> [PersistentIdentifier]
    let countEntries: (DataStoreFetchRequest<Entry>) throws -> Int

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> [PersistentIdentifier: PersistentIdentifier] {
        try save(request)
    }

    /// The identifiers a lookup returns, from `fetch` (`snapshots`) or from `fetchIdentifiers`.
    func fetchIdentifiers(_ request: DataStoreFetchRequest<Entry>, snapshots: Bool) throws -> [PersistentIdentifier] {
        try fetchEntries(request, snapshots)
    }

    func fetchCount(_ request: DataStoreFetchRequest<Entry>) throws -> Int { try countEntries(request) }
}

/// A store that adopts ``DataStorePartialUpdating``, with the calls the checks make.
struct PartialUpdatingStore {
    let saveChanges: (DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> [PersistentIdentifier: PersistentIdentifier]
    let fetchBooks: (DataStoreFetchRequest<Book>) throws -> DataStoreFetchResult<Book, DefaultSnapshot>
    let fetchEntries: (DataStoreFetchRequest<Entry>) throws -> DataStoreFetchResult<Entry, DefaultSnapshot>

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> [PersistentIdentifier: PersistentIdentifier] {
        try saveChanges(request)
    }

    func fetch(_ request: DataStoreFetchRequest<Book>) throws -> DataStoreFetchResult<Book, DefaultSnapshot> { try fetchBooks(request) }
    func fetch(_ request: DataStoreFetchRequest<Entry>) throws -> DataStoreFetchResult<Entry, DefaultSnapshot> { try fetchEntries(request) }
}

extension ConformanceHarness {
    /// `store` with typed calls when its snapshots are ``DefaultSnapshot``s, else `nil`.
    func defaultSnapshotStore(_ store: any DataStore) -> DefaultSnapshotStore? {
        func typed<S: DataStore>(_ store: S) -> DefaultSnapshotStore? {
            guard S.Snapshot.self == DefaultSnapshot.self else { return nil }
            return DefaultSnapshotStore(
                save: { request in
                    guard let request = request as? DataStoreSaveChangesRequest<S.Snapshot> else { return [:] }
                    return try store.save(request).remappedIdentifiers
                },
                fetchEntries: { request, snapshots in
                    snapshots ? try store.fetch(request).fetchedSnapshots.map(\.persistentIdentifier) : try store.fetchIdentifiers(request)
                },
                countEntries: { try store.fetchCount($0) })
        }
        return typed(store)
    }

    /// `store` with typed calls when it adopts ``DataStorePartialUpdating``, else `nil`.
    func partialUpdatingStore(_ store: any DataStore) -> PartialUpdatingStore? {
        func typed<S: DataStorePartialUpdating>(_ store: S) -> PartialUpdatingStore {
            PartialUpdatingStore(
                saveChanges: { try store.save($0).remappedIdentifiers },
                fetchBooks: { try store.fetch($0) },
                fetchEntries: { try store.fetch($0) })
        }
        guard let partial = store as? any DataStorePartialUpdating else { return nil }
        return typed(partial)
    }
}
