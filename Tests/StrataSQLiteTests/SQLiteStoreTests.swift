import Foundation
import Strata
@_spi(StoreTesting) @testable import StrataCore
import Testing

@testable import StrataSQLite

/// What is SQLiteStore's own: the file, its tables and columns, the engine settings.
@Suite struct SQLiteStoreTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sqlite-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func storeURL(_ name: String = "trips") -> URL { directory.appendingPathComponent("\(name).store") }

    func container(_ url: URL, allowsSave: Bool = true) throws -> ModelContainer {
        try ModelContainer(for: DiskTrip.self, Sample.self, configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
    }

    let today = Date(timeIntervalSinceReferenceDate: 780_000_000.5)

    func insertTrips(into container: ModelContainer) throws {
        let context = ModelContext(container)
        let zurich = DiskTrip(name: "Lakes", destination: "Zürich", startDate: today - 86_400, endDate: today + 5 * 86_400)
        zurich.bucketList = [DiskItem(title: "Swim", isInPlan: true), DiskItem(title: "Uetliberg", isInPlan: false)]
        zurich.livingAccommodation = DiskStay(placeName: "Hotel Seerose")
        context.insert(zurich)
        context.insert(DiskTrip(name: "Temples", destination: "Kyoto", startDate: today + 30 * 86_400, endDate: today + 40 * 86_400))
        try context.save()
    }

    @Test func seedFlowSurvivesClosingAndReopening() throws {
        let url = storeURL()
        try insertTrips(into: try container(url))
        let reopened = try container(url)
        let context = ModelContext(reopened)
        let searchText = "zür"
        let search = #Predicate<DiskTrip> {
            searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) || $0.destination.localizedStandardContains(searchText)
        }
        #expect(try context.fetch(FetchDescriptor(predicate: search)).map(\.name) == ["Lakes"])
        let hotel = "Hotel Seerose"
        #expect(try context.fetch(FetchDescriptor(predicate: #Predicate<DiskTrip> { $0.livingAccommodation?.placeName == hotel })).map(\.name) == ["Lakes"])
        let now = today
        let unplanned = #Predicate<DiskTrip> { trip in
            trip.startDate < now && now < trip.endDate && trip.bucketList.filter { !$0.isInPlan }.count > 0
        }
        #expect(try context.fetch(FetchDescriptor(predicate: unplanned)).map(\.name) == ["Lakes"])
        let later = today + 20 * 86_400
        let upcoming = #Predicate<DiskTrip> { $0.startDate > later }
        #expect(try context.fetch(FetchDescriptor(predicate: upcoming)).map(\.destination) == ["Kyoto"])
        let lakes = try #require(try context.fetch(FetchDescriptor(predicate: search)).first)
        #expect(Set(lakes.bucketList.map(\.title)) == ["Swim", "Uetliberg"])
        #expect(lakes.livingAccommodation?.trip === lakes)
    }

    @Test func cascadeAndUpsertWorkOnDisk() throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        let context = ModelContext(container)
        let lakes = try #require(try context.fetch(FetchDescriptor<DiskTrip>(predicate: #Predicate { $0.name == "Lakes" })).first)
        context.insert(DiskTrip(name: "Lakes", destination: "Zurich", startDate: lakes.startDate, endDate: lakes.endDate))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<DiskTrip>()) == 2)
        context.delete(lakes)
        try context.save()
        let fresh = ModelContext(try self.container(url))
        #expect(try fresh.fetchCount(FetchDescriptor<DiskTrip>()) == 1)
        #expect(try fresh.fetchCount(FetchDescriptor<DiskItem>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<DiskStay>()) == 0)
    }

    @Test func columnsHoldTheDocumentedRepresentations() throws {
        let url = storeURL()
        let context = ModelContext(try container(url))
        let uuid = UUID(uuidString: "3E1B2B7C-6F6B-4C47-9F43-4D1F2B0B9A10")!
        let sample = Sample(flag: true, when: Date(timeIntervalSinceReferenceDate: 12.25), uuid: uuid, amount: Decimal(string: "12.50")!, tags: ["b", "a"])
        sample.link = URL(string: "https://example.com/x")
        context.insert(sample)
        try context.save()
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        #expect(try connection.scalarText("SELECT typeof(\"flag\") || ':' || \"flag\" FROM \"Sample\"") == "integer:1")
        #expect(try connection.scalarText("SELECT typeof(\"when\") || ':' || \"when\" FROM \"Sample\"") == "real:12.25")
        #expect(try connection.scalarText("SELECT \"uuid\" FROM \"Sample\"") == uuid.uuidString)
        #expect(try connection.scalarText("SELECT typeof(\"amount\") || ':' || \"amount\" FROM \"Sample\"") == "text:12.5")
        #expect(try connection.scalarText("SELECT \"tags\" FROM \"Sample\"") == #"["b","a"]"#)
        #expect(try connection.scalarText("SELECT \"link\" FROM \"Sample\"") == "https://example.com/x")
        #expect(try connection.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try connection.scalarText("SELECT \"key\" FROM \"_strata_metadata\" WHERE \"key\" = 'schema'") == "schema")
        #expect(try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'DiskTrip_unique_%'") == "1")
        #expect(try connection.scalarText("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'DiskTrip_index_%'") == "4")
    }

    @Test func emptyAndNULHoldingStringsAreStoredAsTextNotNULL() throws {
        let url = storeURL()
        let context = ModelContext(try container(url))
        context.insert(DiskTrip(name: "", destination: "a\u{0}b", startDate: today, endDate: today))
        try context.save()
        let connection = try SQLiteConnection(path: url.path, readOnly: true)
        #expect(try connection.scalarText("SELECT typeof(\"name\") || ':' || length(\"name\") FROM \"DiskTrip\"") == "text:0")
        #expect(try connection.scalarText("SELECT typeof(\"destination\") || ':' || length(CAST(\"destination\" AS BLOB)) FROM \"DiskTrip\"") == "text:3")
        let trip = try #require(try ModelContext(try container(url)).fetch(FetchDescriptor<DiskTrip>()).first)
        #expect(trip.name == "" && trip.destination == "a\u{0}b")
    }

    @Test func readOnlyStoreFetchesButRefusesToSave() throws {
        let url = storeURL()
        try insertTrips(into: try container(url))
        let before = try Data(contentsOf: url)
        let readOnly = ModelContext(try container(url, allowsSave: false))
        #expect(try readOnly.fetchCount(FetchDescriptor<DiskTrip>()) == 2)
        readOnly.insert(DiskTrip(name: "New", destination: "X", startDate: today, endDate: today))
        #expect(throws: DataStoreError.unsupportedFeature) { try readOnly.save() }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let url = storeURL()
        let text = Data("name,destination\nLakes,Zürich\n".utf8)
        try text.write(to: url)
        #expect(throws: SwiftDataError.loadIssueModelContainer) { _ = try container(url) }
        #expect(try Data(contentsOf: url) == text)
    }

    @Test func aForeignSQLiteDatabaseIsRefusedAndLeftAlone() throws {
        let url = storeURL()
        do {
            let connection = try SQLiteConnection(path: url.path)
            try connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)")
        }
        let before = try Data(contentsOf: url)
        do {
            _ = try container(url)
            Issue.record("opening a database Strata did not create must fail")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.details.contains("did not create"))
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aStoreWrittenByANewerSchemaIsRefusedAndLeftAlone() throws {
        let url = storeURL("notes")
        let newer = try ModelContainer(for: Schema(versionedSchema: NotesV2.self), configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(newer)
        context.insert(NotesV2.Note(text: "hello"))
        try context.save()
        let before = try Data(contentsOf: url)
        #expect(throws: SwiftDataError.backwardMigration) {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [ModelConfiguration(url: url)])
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func anOlderStoreGainsNewOptionalAndDefaultedColumns() throws {
        let url = storeURL("notes")
        do {
            let older = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(older)
            context.insert(NotesV1.Note(text: "kept"))
            try context.save()
        }
        let newer = try ModelContainer(for: Schema(versionedSchema: NotesV2.self), configurations: [ModelConfiguration(url: url)])
        let notes = try ModelContext(newer).fetch(FetchDescriptor<NotesV2.Note>())
        #expect(notes.map(\.text) == ["kept"])
        #expect(notes.first?.tag == nil)
        #expect(notes.first?.priority == 3)
    }

    @Test func largeDataMarkedExternalLivesBesideTheStoreAndLeavesWithItsRow() throws {
        let url = storeURL()
        let container = try container(url)
        let context = ModelContext(container)
        let sample = Sample(flag: false, when: today, uuid: UUID(), amount: 1, tags: [])
        let photo = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
        sample.photo = photo
        context.insert(sample)
        try context.save()
        let external = URL(fileURLWithPath: url.path + ".external")
        #expect(try FileManager.default.contentsOfDirectory(atPath: external.path).count == 1)
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Sample>()).first
        #expect(fetched?.photo == photo)
        context.delete(sample)
        try context.save()
        #expect(try FileManager.default.contentsOfDirectory(atPath: external.path).isEmpty)
    }

    @Test func readersSeeWholeSavesWhileAWriteIsInProgress() async throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        let writer = Task.detached {
            for round in 0..<5 {
                let context = ModelContext(container)
                for index in 0..<200 {
                    context.insert(DiskTrip(name: "r\(round)-\(index)", destination: "D", startDate: .now, endDate: .now))
                }
                try context.save()
            }
        }
        var counts: [Int] = []
        while !writer.isCancelled {
            let context = ModelContext(container)
            counts.append(try context.fetchCount(FetchDescriptor<DiskTrip>()))
            if counts.last == 1002 { break }
            await Task.yield()
        }
        try await writer.value
        #expect(counts.allSatisfy { ($0 - 2) % 200 == 0 })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<DiskTrip>()) == 1002)
    }

    @Test func defaultConfigurationNamesDefaultStoreInTheDataDirectory() {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        let expected = base.appendingPathComponent(ProcessInfo.processInfo.processName).appendingPathComponent("default.store")
        #expect(ModelConfiguration().url == expected)
        #expect(ModelConfiguration(isStoredInMemoryOnly: true).isStoredInMemoryOnly)
    }

    @Test func explainShowsTheSQLAndQueryPlan() throws {
        let container = try container(storeURL())
        let plan = ModelContext(container).explain(FetchDescriptor<DiskTrip>(predicate: #Predicate { $0.name == "Lakes" }))
        #expect(plan.contains("SQL: SELECT"))
        #expect(plan.contains("plan:"))
        #expect(plan.contains("DiskTrip_"))
        #expect(!plan.contains("Lakes"))
        // A fetch without a predicate is one SQLite runs whole, not one it cannot express.
        let everything = ModelContext(container).explain(FetchDescriptor<DiskTrip>(sortBy: [SortDescriptor(\.name)]))
        #expect(everything.contains("SQL: SELECT") && everything.contains("ORDER BY") && !everything.contains("cannot express"), "\(everything)")
    }
}

extension SQLiteStoreTests {
    @Test func propertiesToFetchSelectsOnlyThoseColumnsAndTheRestFaultIn() throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        var descriptor = FetchDescriptor<DiskTrip>(sortBy: [SortDescriptor(\.name)])
        descriptor.propertiesToFetch = [\.name]
        let context = ModelContext(container)  // faults load through the context, so keep it
        let trips = try context.fetch(descriptor)
        #expect(trips.map(\.name) == ["Lakes", "Temples"])
        #expect(trips.map(\.destination) == ["Zürich", "Kyoto"])
        #expect(trips.first?.bucketList.count == 2)
    }

    @Test func batchDeleteRemovesMatchingRowsInSQL() throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        let store = try SQLiteStore(ModelConfiguration(schema: container.schema, url: url), migrationPlan: nil)
        let predicate = #Predicate<DiskTrip> { $0.destination == "Kyoto" }
        let request = DataStoreBatchDeleteRequest(
            editingState: EditingState(), predicate: predicate, includeSubclasses: true,
            filter: .success(.comparison(.equal, .property(variable: 0, path: ["destination"]), .value(.string("Kyoto")))))
        try store.delete(request)
        let left = try ModelContext(container).fetch(FetchDescriptor<DiskTrip>())
        #expect(left.map(\.destination) == ["Zürich"])
    }

    @Test func aPrefetchedToManyComesBackAsRelatedSnapshotsFromTheSameRead() throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        let store = try SQLiteStore(ModelConfiguration(schema: container.schema, url: url), migrationPlan: nil)
        var descriptor = FetchDescriptor<DiskTrip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.bucketList]
        func request() -> DataStoreFetchRequest<DiskTrip> {
            DataStoreFetchRequest(editingState: EditingState(), descriptor: descriptor, filter: .success(nil), sort: .success([]))
        }
        let result = try store.fetch(request())
        let lakes = try #require(result.fetchedSnapshots.first)
        guard case .identifiers(let items)? = lakes["bucketList"] else {
            Issue.record("the trip's bucket list is \(String(describing: lakes["bucketList"]))")
            return
        }
        #expect(items.count == 2)
        #expect(Set(result.relatedSnapshots.keys) == Set(items), "the prefetched items are not the trip's items")
        let titles = items.compactMap { result.relatedSnapshots[$0]?["title"] }
        #expect(titles == [.string("Swim"), .string("Uetliberg")])
        #expect(result.relatedSnapshots[items[0]]?["trip"] == .identifier(lakes.persistentIdentifier))

        // Without prefetching, only the identifiers come.
        descriptor.relationshipKeyPathsForPrefetching = []
        #expect(try store.fetch(request()).relatedSnapshots.isEmpty)
    }

    /// Members saved in turns for two owners: each owner's list keeps its own members in the
    /// order they were saved, read with and without prefetching.
    @Test func toManyListsOfInterleavedMembersKeepEachOwnersOrder() throws {
        let container = try container(storeURL("interleaved"))
        let context = ModelContext(container)
        let lakes = DiskTrip(name: "Lakes", destination: "Zürich", startDate: today, endDate: today + 86_400)
        let temples = DiskTrip(name: "Temples", destination: "Kyoto", startDate: today, endDate: today + 86_400)
        context.insert(lakes)
        context.insert(temples)
        for index in 1...3 {
            for (trip, prefix) in [(temples, "t"), (lakes, "l")] {
                let item = DiskItem(title: "\(prefix)\(index)", isInPlan: true)
                context.insert(item)
                item.trip = trip
                try context.save()
            }
        }
        for prefetching in [false, true] {
            var descriptor = FetchDescriptor<DiskTrip>(sortBy: [SortDescriptor(\.destination)])
            if prefetching { descriptor.relationshipKeyPathsForPrefetching = [\.bucketList] }
            let reader = ModelContext(container)
            let trips = try reader.fetch(descriptor)
            #expect(trips.map { $0.bucketList.map(\.title) } == [["t1", "t2", "t3"], ["l1", "l2", "l3"]], "prefetching: \(prefetching)")
        }
    }

    /// Inserts trips A, B and C, in that order, each with the bucket-list items `1` and `2`
    /// after its name ("A1", "A2", …); not saved.
    func insertLetteredTrips(into context: ModelContext) {
        for (index, name) in ["A", "B", "C"].enumerated() {
            let trip = DiskTrip(name: name, destination: name, startDate: today, endDate: today + Double(index))
            trip.bucketList = [DiskItem(title: "\(name)1", isInPlan: true), DiskItem(title: "\(name)2", isInPlan: true)]
            context.insert(trip)
        }
    }

    /// The owners of a to-many load bind as the two ends of a range when their keys run
    /// without a gap, and as a JSON list otherwise (a gap, or a span no `Int64` holds); each
    /// key finds its owner's row either way, and a repeated key is damage.
    @Test func ownersWhoseKeysRunWithoutAGapBindAsTheirTwoEnds() throws {
        func form(_ keys: [Int64]) -> String {
            switch SQLiteQueryCompiler.OwnerKeys(keys) {
            case .run(let keys): "\(keys.lowerBound)...\(keys.upperBound)"
            case .list(let json): json
            }
        }
        #expect(form([3, 1, 2]) == "1...3")
        #expect(form([7]) == "7...7")
        #expect(form([1, 3]) == "[1,3]")
        #expect(form([Int64.min, Int64.max]) == "[-9223372036854775808,9223372036854775807]")

        let run = try OwnerRows([12, 10, 11])
        #expect([9, 10, 11, 12, 13].map(run.row(of:)) == [nil, 1, 2, 0, nil])
        let list = try OwnerRows([20, 10])
        #expect([10, 15, 20].map(list.row(of:)) == [1, nil, 0])
        // [1, 1, 3] spans as many keys as it holds, like a run.
        for keys: [Int64] in [[1, 1, 3], [1, 5, 1]] {
            #expect(throws: OwnerRows.RepeatedKey.self) { try OwnerRows(keys) }
        }
    }

    /// Three trips' lists read the same whether the owners' keys run without a gap (every
    /// trip) or not (the first and the last), with and without prefetching; a member whose
    /// owner column holds a real number inside the run (damage) belongs to no list, as it
    /// matches no key of a list.
    @Test func toManyListsReadTheSameWhetherTheOwnersKeysRunOrNot() throws {
        let url = storeURL("runs")
        let container = try container(url)
        let context = ModelContext(container)
        insertLetteredTrips(into: context)
        let stray = DiskItem(title: "stray", isInPlan: false)
        context.insert(stray)
        try context.save()
        func lists(prefetching: Bool, every: Bool) throws -> [[String]] {
            var descriptor = FetchDescriptor<DiskTrip>(predicate: every ? nil : #Predicate { $0.name != "B" }, sortBy: [SortDescriptor(\.name)])
            if prefetching { descriptor.relationshipKeyPathsForPrefetching = [\.bucketList] }
            let reader = ModelContext(container)  // faults load through the context, so keep it
            return try reader.fetch(descriptor).map { $0.bucketList.map(\.title).sorted() }
        }
        for prefetching in [false, true] {
            #expect(try lists(prefetching: prefetching, every: true) == [["A1", "A2"], ["B1", "B2"], ["C1", "C2"]])
            #expect(try lists(prefetching: prefetching, every: false) == [["A1", "A2"], ["C1", "C2"]])
        }
        let keys = try ModelContext(container).fetch(FetchDescriptor<DiskTrip>()).compactMap { $0.persistentModelID.primaryKey(as: Int64.self) }
        #expect(keys.sorted() == [1, 2, 3], "the trips' keys run from 1, so 1.5 lies inside them")
        try SQLiteConnection(path: url.path).execute(#"UPDATE "DiskItem" SET "trip" = 1.5 WHERE "title" = 'stray'"#)
        #expect(try lists(prefetching: false, every: true) == [["A1", "A2"], ["B1", "B2"], ["C1", "C2"]])
        #expect(try lists(prefetching: false, every: false) == [["A1", "A2"], ["C1", "C2"]])
    }

    /// The store lists a prefetch's destinations in the order of their owners' keys, then
    /// their own; the context takes them in that order when its models name them so, and
    /// looks them up by identifier otherwise (another sort, a window the context cuts, some
    /// already registered). Either way every destination of the fetched models is registered
    /// by the fetch itself, and a registered one keeps its object and unsaved change.
    @Test func aPrefetchTakesItsListedDestinationsInOrderOrLooksThemUp() throws {
        let container = try container(storeURL("listed"))
        let writer = ModelContext(container)
        insertLetteredTrips(into: writer)
        try writer.save()
        let itemIDs = Dictionary(
            uniqueKeysWithValues: try ModelContext(container).fetch(FetchDescriptor<DiskItem>()).map { ($0.title, $0.persistentModelID) })

        // The store's own answer: listed in key order, and by identifier through the public protocols.
        let store = try SQLiteStore(ModelConfiguration(schema: container.schema, url: storeURL("listed")), migrationPlan: nil)
        var prefetching = FetchDescriptor<DiskTrip>()
        prefetching.relationshipKeyPathsForPrefetching = [\.bucketList]
        let request = DataStoreFetchRequest(editingState: EditingState(), descriptor: prefetching, filter: .success(nil), sort: .success([]))
        let listed = try store.fetchRelatedInOrder(request) { _ in }.related
        #expect(listed.listed.map { $0["title"] } == ["A1", "A2", "B1", "B2", "C1", "C2"].map { .string($0) })
        #expect(listed.others.isEmpty)
        let byIdentifier = try store.fetchWithExternalChangeCount(request) { _ in }.relatedSnapshots
        #expect(Set(byIdentifier.keys) == Set(itemIDs.values))

        /// Fetches with `descriptor`, prefetching the bucket lists, and checks that the
        /// fetched trips' items are registered before any is read, then returns the lists.
        func fetch(_ descriptor: FetchDescriptor<DiskTrip>, in context: ModelContext) throws -> [[String]] {
            var descriptor = descriptor
            descriptor.relationshipKeyPathsForPrefetching = [\.bucketList]
            let trips = try context.fetch(descriptor)
            for trip in trips {
                for suffix in ["1", "2"] {
                    let id = try #require(itemIDs[trip.name + suffix])
                    #expect((context.registeredModel(for: id) as DiskItem?) != nil, "\(trip.name + suffix) was not registered by the fetch")
                }
            }
            return trips.map { $0.bucketList.map(\.title) }
        }
        // Key order: the listed destinations are taken as they come.
        #expect(try fetch(FetchDescriptor(), in: ModelContext(container)) == [["A1", "A2"], ["B1", "B2"], ["C1", "C2"]])
        // Another order: looked up.
        let descending = FetchDescriptor<DiskTrip>(sortBy: [SortDescriptor(\.name, order: .reverse)])
        #expect(try fetch(descending, in: ModelContext(container)) == [["C1", "C2"], ["B1", "B2"], ["A1", "A2"]])
        // A window the context cuts (it has a pending trip): the middle trip's items are not the first listed.
        let pending = ModelContext(container)
        pending.insert(DiskTrip(name: "Z", destination: "Z", startDate: today, endDate: today))
        var middle = FetchDescriptor<DiskTrip>(sortBy: [SortDescriptor(\.name)])
        middle.fetchOffset = 1
        middle.fetchLimit = 1
        #expect(try fetch(middle, in: pending) == [["B1", "B2"]])
        // An item registered with an unsaved change keeps its object and its change.
        let editing = ModelContext(container)
        let a1ID = try #require(itemIDs["A1"])
        let a1 = try #require(editing.model(for: a1ID) as? DiskItem)
        a1.title = "A1 edited"
        #expect(try fetch(FetchDescriptor(), in: editing) == [["A1 edited", "A2"], ["B1", "B2"], ["C1", "C2"]])
        let registered: DiskItem? = editing.registeredModel(for: a1ID)
        #expect(registered === a1)
    }

    /// A prefetch that takes its listed destinations in order loads each fetched owner's
    /// to-many relationship with them: before any is read, the slot holds the registered
    /// models themselves (an owner without members an empty list), not identifiers to look up.
    @Test func aPrefetchLoadsTheListsItTakesInOrder() throws {
        let container = try container(storeURL("loaded"))
        let writer = ModelContext(container)
        insertLetteredTrips(into: writer)
        writer.insert(DiskTrip(name: "D", destination: "D", startDate: today, endDate: today))
        try writer.save()
        let slot = try #require(ModelLayout.of(DiskTrip.self).slotsByKeyPath[\DiskTrip.bucketList])
        let reader = ModelContext(container)
        var descriptor = FetchDescriptor<DiskTrip>()
        descriptor.relationshipKeyPathsForPrefetching = [\.bucketList]
        let trips = try reader.fetch(descriptor)
        #expect(trips.map(\.name) == ["A", "B", "C", "D"])
        for trip in trips {
            let data = try #require(trip.persistentBackingData as? ManagedData)
            guard case .loaded(.toMany(let collection)) = data[slot: slot] else {
                Issue.record("\(trip.name)'s bucket list is \(data[slot: slot]) after the prefetch")
                continue
            }
            #expect(data.storage.extras == nil, "loading \(trip.name)'s bucket list made change tracking")
            let models = collection._persistentModels
            #expect(models.count == (trip.name == "D" ? 0 : 2))
            for model in models {
                #expect(reader.registeredModel(for: model.persistentModelID) as DiskItem? === model as AnyObject, "a loaded item is not the registered one")
            }
        }
        #expect(trips.map { $0.bucketList.map(\.title) } == [["A1", "A2"], ["B1", "B2"], ["C1", "C2"], []])
    }

    @Test func deleteByPredicateRemovesJoinRowsAndExternalFilesOfTheMatchesOnly() throws {
        let url = storeURL("albums")
        let container = try ModelContainer(for: Album.self, Picture.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for title in ["Summer", "Winter", "Spring"] {
            let album = Album(title: title)
            album.cover = Data(repeating: UInt8(title.count), count: 200_000)
            album.pictures = [Picture(caption: "\(title) 1"), Picture(caption: "\(title) 2")]
            context.insert(album)
        }
        try context.save()
        let external = URL(fileURLWithPath: url.path + ".external")
        #expect(try FileManager.default.contentsOfDirectory(atPath: external.path).count == 3)

        try context.delete(model: Album.self, where: #Predicate { $0.title != "Winter" })
        try context.save()
        let connection = try SQLiteConnection(path: url.path)
        let join = try #require(SQLiteSchemaMapping(schema: container.schema).joinTables.first)
        let statement = try connection.prepare("SELECT COUNT(*) FROM \(SQLIdentifier.quote(join.name))")
        #expect(try statement.step())
        #expect(statement.int64(0) == 2, "the deleted albums' join rows are left behind")
        #expect(try FileManager.default.contentsOfDirectory(atPath: external.path).count == 1, "the deleted albums' covers are left behind")

        // SQLite reuses the keys of deleted rows: a new album must not inherit old pictures.
        try context.delete(model: Album.self)
        try context.save()
        context.insert(Album(title: "Autumn"))
        try context.save()
        let fresh = try ModelContext(container).fetch(FetchDescriptor<Album>())
        #expect(fresh.map(\.title) == ["Autumn"])
        #expect(fresh.first?.pictures.isEmpty == true)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Picture>()) == 6)
        #expect(try FileManager.default.contentsOfDirectory(atPath: external.path).isEmpty)
    }
}

// MARK: Changes made by other processes

extension SQLiteStoreTests {
    @Test func anotherProcessesCommitIsNoticedAtTheNextFetch() throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        let reader = ModelContext(container)
        let temples = try #require(try reader.fetch(FetchDescriptor<DiskTrip>(predicate: #Predicate { $0.name == "Temples" })).first)
        #expect(temples.destination == "Kyoto")
        let fired = Locked(0)
        withObservationTracking { _ = temples.destination } onChange: { fired.withLock { $0 += 1 } }

        try commitInAnotherProcess(#"UPDATE "DiskTrip" SET "destination" = 'Osaka' WHERE "name" = 'Temples'"#, to: url)

        _ = try reader.fetchCount(FetchDescriptor<DiskItem>())
        #expect(temples.destination == "Osaka", "a held model kept the value another process replaced")
        #expect(fired.withLock { $0 } == 1)
        #expect(try reader.fetch(FetchDescriptor<DiskTrip>(predicate: #Predicate { $0.destination == "Osaka" })).count == 1)
    }

    /// Runs `sql` in the sqlite3 shell: another process, with its own connection.
    func commitInAnotherProcess(_ sql: String, to url: URL) throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        shell.arguments = ["sqlite3", url.path, sql]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "the sqlite3 shell failed; make test installs it")
    }

    /// A fetch takes the external change count its own read tells
    /// (`DataStoreStreamingWithChangeCount`), and SQLite asks the writer only when the
    /// reading connection's data version moved. Fetches that saw no commit, and the
    /// container's own saves, must not hide a later commit of another process, nor be
    /// taken for one: for a streamed entity (no to-many) and one read whole first.
    @Test func aFetchNoticesAnotherProcessesCommitAfterFetchesThatSawNone() throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        let changedElsewhere = Locked(0)
        let token = NotificationCenter.default.addObserver(
            forName: ContainerCore.changedElsewhere, object: container.core, queue: nil
        ) { _ in changedElsewhere.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(token) }
        let reader = ModelContext(container)
        let temples = try #require(try reader.fetch(FetchDescriptor<DiskTrip>(predicate: #Predicate { $0.name == "Temples" })).first)
        for _ in 0..<3 { _ = try reader.fetch(FetchDescriptor<DiskItem>()) }

        let own = ModelContext(container)
        own.insert(DiskItem(title: "Ferry", isInPlan: true))
        try own.save()
        #expect(try reader.fetch(FetchDescriptor<DiskItem>()).count == 3)
        #expect(try reader.fetch(FetchDescriptor<DiskTrip>()).count == 2)
        #expect(changedElsewhere.withLock { $0 } == 0, "the container's own save was taken for another process's")

        try commitInAnotherProcess(#"UPDATE "DiskTrip" SET "destination" = 'Osaka' WHERE "name" = 'Temples'"#, to: url)
        #expect(try reader.fetch(FetchDescriptor<DiskItem>()).count == 3)
        #expect(changedElsewhere.withLock { $0 } == 1, "a streamed fetch did not notice another process's commit")
        #expect(temples.destination == "Osaka", "a held model kept the value another process replaced")

        for _ in 0..<2 { _ = try reader.fetch(FetchDescriptor<DiskTrip>()) }
        try commitInAnotherProcess(#"UPDATE "DiskTrip" SET "destination" = 'Nara' WHERE "name" = 'Temples'"#, to: url)
        let lakes = try reader.fetch(FetchDescriptor<DiskTrip>(predicate: #Predicate { $0.name == "Lakes" }))
        #expect(lakes.count == 1)
        #expect(changedElsewhere.withLock { $0 } == 2, "a fetch of an entity read whole did not notice another process's commit")
        #expect(temples.destination == "Nara")
    }

    @Test func anotherContainerOnTheSameFileIsAnotherWriter() throws {
        let url = storeURL()
        let container = try container(url)
        try insertTrips(into: container)
        let reader = ModelContext(container)
        let trips = try reader.fetch(FetchDescriptor<DiskTrip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map(\.name) == ["Lakes", "Temples"])
        let observer = try ResultsObserver<DiskTrip, Never>(sortBy: [SortDescriptor(\.name)], modelContext: reader)
        let fired = Locked(0)
        withObservationTracking { _ = observer.results } onChange: { fired.withLock { $0 += 1 } }

        let other = try self.container(url)
        let writer = ModelContext(other)
        let temples = try #require(try writer.fetch(FetchDescriptor<DiskTrip>(predicate: #Predicate { $0.name == "Temples" })).first)
        writer.delete(temples)
        try writer.save()
        #expect(fired.withLock { $0 } == 0, "nothing can notice before a context of the first container reads")

        #expect(try reader.fetchCount(FetchDescriptor<DiskTrip>()) == 1)
        #expect(trips[1].isDeleted, "a model another container deleted does not read as deleted")
        #expect(!trips[0].isDeleted)
        #expect(fired.withLock { $0 } == 1)
        #expect(observer.results.map(\.name) == ["Lakes"])

        // The container's own saves reach the observer as saves.
        withObservationTracking { _ = observer.results } onChange: { fired.withLock { $0 += 1 } }
        let own = ModelContext(container)
        own.insert(DiskTrip(name: "Fjords", destination: "Bergen", startDate: today, endDate: today))
        try own.save()
        #expect(fired.withLock { $0 } == 2)
        #expect(observer.results.map(\.name) == ["Fjords", "Lakes"])
    }

    /// `enumerate` pages through an unsorted fetch by identifier; when the store refuses the
    /// filter (it does not compare stored arrays), the rest is read by identifier
    /// from where paging stopped, and each match is still visited once.
    @Test func enumerateVisitsEachMatchOnceWhenTheStoreRefusesTheFilter() throws {
        let container = try ModelContainer(
            for: Specimen.self, configurations: ModelConfiguration(url: storeURL("specimens")))
        let context = ModelContext(container)
        for index in 0..<40 {
            let specimen = Specimen(label: "s\(index)")
            specimen.double = Double(index)
            specimen.tags = index % 2 == 0 ? ["even"] : ["odd"]
            context.insert(specimen)
        }
        try context.save()
        let even = FetchDescriptor<Specimen>(predicate: #Predicate { $0.tags == ["even"] })
        #expect(try context.explain(even).contains("cannot express"), "the test needs a filter the store refuses: \(context.explain(even))")
        for batchSize in [1, 3, 7, 20, 50] {
            var visited: [Double] = []
            try ModelContext(container).enumerate(even, batchSize: batchSize) { visited.append($0.double) }
            #expect(visited.sorted() == stride(from: 0, to: 40, by: 2).map(Double.init), "batches of \(batchSize)")
        }
    }

    @Test(arguments: [nil, StoreFilePermissions(fileMode: 0o640), StoreFilePermissions(fileMode: 0o604)])
    func newStoreFilesAndFoldersAreTheOwnersOnlyUnlessConfigured(_ permissions: StoreFilePermissions?) throws {
        let url = directory.appendingPathComponent("nested/private.store")
        var configuration = ModelConfiguration(url: url)
        if let permissions { configuration.filePermissions = permissions }
        let container = try ModelContainer(for: DiskTrip.self, Sample.self, configurations: configuration)
        let context = ModelContext(container)
        let sample = Sample(flag: true, when: today, uuid: UUID(), amount: 1, tags: [])
        sample.photo = Data(repeating: 7, count: ExternalStorage.threshold + 1)
        context.insert(sample)
        try context.save()
        func mode(_ path: String) throws -> Int {
            try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        let externals = SQLiteStore.externalDirectory(of: url)
        let files = try FileManager.default.contentsOfDirectory(atPath: externals.path)
        #expect(files.count == 1)
        for path in [url.path, url.path + "-wal", url.path + "-shm"] + files.map({ externals.appendingPathComponent($0).path }) {
            #expect(try mode(path) == Int(permissions?.fileMode ?? 0o600), "\(path)")
        }
        for folder in [url.deletingLastPathComponent(), externals] {
            #expect(try mode(folder.path) == Int(permissions?.directoryMode ?? 0o700), "\(folder.path)")
        }
        #expect(try ModelContext(container).fetch(FetchDescriptor<Sample>()).first?.photo?.count == ExternalStorage.threshold + 1)
    }
}

