import Foundation
import Strata
import Testing

/// Observed queries outside a UI.
@Suite struct ResultsObserverTests {
    let controls = StoreControls()
    let container: ModelContainer
    let day = Date(timeIntervalSince1970: 1_750_000_000)

    init() throws {
        container = try ModelContainer(for: Trip.self, configurations: RecordingStoreConfiguration(name: "observed", controls: controls))
    }

    func insert(_ names: [String], destination: String = "Norway") throws {
        let writer = ModelContext(container)
        for name in names {
            writer.insert(Trip(name: name, destination: destination, startDate: day, endDate: day.addingTimeInterval(86_400)))
        }
        try writer.save()
    }

    @Test func resultsFollowRelevantSavesAndKeepTheirOrderAndWindow() throws {
        try insert(["Delta", "Bravo", "Echo"])
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Norway" }, sortBy: [SortDescriptor(\.name)])
        descriptor.fetchLimit = 2
        let observer = try ResultsObserver<Trip, Never>(fetchDescriptor: descriptor, modelContext: context)
        #expect(observer.results.map(\.name) == ["Bravo", "Delta"])

        let fired = Locked(0)
        withObservationTracking { _ = observer.results } onChange: { fired.withLock { $0 += 1 } }
        try insert(["Alpha"])
        #expect(fired.withLock { $0 } == 1, "a save of the observed entity did not tell the observers")
        #expect(observer.results.map(\.name) == ["Alpha", "Bravo"])

        // A matching change is a save of the entity too.
        let editor = ModelContext(container)
        let alpha = try #require(try editor.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Alpha" })).first)
        alpha.destination = "Sweden"
        try editor.save()
        #expect(observer.results.map(\.name) == ["Bravo", "Delta"])
    }

    @Test func anUnrelatedSaveNeitherNotifiesNorRefetches() throws {
        try insert(["Bravo"])
        let context = ModelContext(container)
        let observer = try ResultsObserver<Trip, Never>(filterBy: nil, sortBy: [SortDescriptor(\.name)], modelContext: context)
        #expect(observer.results.count == 1)
        let fired = Locked(0)
        withObservationTracking { _ = observer.results } onChange: { fired.withLock { $0 += 1 } }

        let writer = ModelContext(container)
        writer.insert(BucketListItem(title: "Fjord", details: "", hasReservation: false, isInPlan: false))
        try writer.save()
        controls.resetFetches()
        #expect(observer.results.count == 1)
        #expect(fired.withLock { $0 } == 0, "a save of another entity told the observers")
        #expect(controls.fetches == 0, "a save of another entity made the observer refetch")

        // Another container's save of the same entity names is not this one's either.
        let elsewhere = try ModelContainer(for: Trip.self, configurations: RecordingStoreConfiguration(name: "elsewhere", controls: StoreControls()))
        let stranger = ModelContext(elsewhere)
        stranger.insert(Trip(name: "Zulu", destination: "Norway", startDate: day, endDate: day))
        try stranger.save()
        #expect(fired.withLock { $0 } == 0)
    }

    @Test func changingTheSortOrFilterRefetches() throws {
        try insert(["Bravo", "Alpha", "Charlie"])
        let observer = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: container)
        #expect(observer.results.map(\.name) == ["Alpha", "Bravo", "Charlie"])
        observer.sortBy = [SortDescriptor(\.name, order: .reverse)]
        #expect(observer.results.map(\.name) == ["Charlie", "Bravo", "Alpha"])
        observer.filterBy = #Predicate { $0.name != "Bravo" }
        #expect(observer.results.map(\.name) == ["Charlie", "Alpha"])
        #expect(observer.fetchDescriptor.sortBy.count == 1)
    }

    @MainActor @Test(.timeLimit(.minutes(1))) func updatesIsAnAsyncSequenceOfResults() async throws {
        try insert(["Bravo"])
        let observer = try ResultsObserver<Trip, Never>(sortBy: [SortDescriptor(\.name)], modelContext: ModelContext(container))
        var seen: [[String]] = []
        for await trips in observer.updates {
            seen.append(trips.map(\.name))
            guard seen.count < 2 else { break }
            try insert(["Alpha"])
        }
        #expect(seen == [["Bravo"], ["Alpha", "Bravo"]])

        // A consumer waiting before the save is woken by it.
        let waiting = Task { @MainActor in
            var names: [String]?
            for await trips in observer.updates.dropFirst() {
                names = trips.map(\.name)
                break
            }
            return names
        }
        for _ in 0..<100 { await Task.yield() }
        try insert(["Charlie"])
        #expect(await waiting.value == ["Alpha", "Bravo", "Charlie"])
    }

    @Test func sectionsGroupTheResultsByTheirTitleInSortedOrder() throws {
        try insert(["Delta", "Alpha"], destination: "Sweden")
        try insert(["Charlie", "Bravo"], destination: "Norway")
        let observer = try ResultsObserver<Trip, String>(
            sortBy: [SortDescriptor(\.name, order: .reverse)], sectionBy: \.destination, modelContainer: container)
        #expect(observer.fetchDescriptor.sortBy.count == 2, "the section sort was not put first")
        let sections = try #require(observer.sections)
        #expect(sections.sectionTitles == ["Norway", "Sweden"])
        #expect(sections.map { $0.map(\.name) } == [["Charlie", "Bravo"], ["Delta", "Alpha"]])
        #expect(sections[sectionTitle: "Sweden"]?.count == 2)
        #expect(sections[sectionTitle: "Sweden"]?.id == "Sweden")
        #expect(sections[sectionTitle: "Iceland"] == nil)

        // A new sort keeps the sections together; a save regroups.
        observer.sortBy = [SortDescriptor(\.name)]
        #expect(observer.sections?.map { $0.map(\.name) } == [["Bravo", "Charlie"], ["Alpha", "Delta"]])
        try insert(["Echo"], destination: "Iceland")
        #expect(observer.sections?.sectionTitles == ["Iceland", "Norway", "Sweden"])
        #expect(observer.sectionBy == \Trip.destination)
    }

    @Test func anOptionalSectionTitleGroupsNilUnderTheEmptyTitle() throws {
        let container = try ModelContainer(for: Errand.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (title, place) in [("post", "Town"), ("walk", nil), ("bank", "Town"), ("read", nil)] {
            context.insert(Errand(title: title, place: place))
        }
        try context.save()
        let observer = try ResultsObserver<Errand, String>(sortBy: [SortDescriptor(\.title)], sectionBy: \.place, modelContext: context)
        #expect(observer.sections?.sectionTitles == ["", "Town"])
        #expect(observer.sections?.map { $0.map(\.title) } == [["read", "walk"], ["bank", "post"]])
        let plain = try ResultsObserver<Errand, Never>(modelContext: context)
        #expect(plain.sections == nil)
        #expect(plain.sectionBy == nil)
    }
}

@Model final class Errand {
    var title: String
    var place: String?

    init(title: String, place: String?) {
        self.title = title
        self.place = place
    }
}
