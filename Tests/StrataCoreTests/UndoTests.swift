import Foundation
import Strata
import StrataMemory
import Testing

/// The undo manager on its own.
@Suite struct UndoManagerTests {
    final class Counter {
        var value = 0
        func add(_ amount: Int, in manager: UndoManager) {
            value += amount
            manager.registerUndo(withTarget: self) { $0.add(-amount, in: manager) }
        }
    }

    @Test func undoAndRedoAWholeGroupLastActionFirst() {
        let manager = UndoManager()
        let counter = Counter()
        var order: [Int] = []
        manager.beginUndoGrouping()
        counter.add(1, in: manager)
        counter.add(10, in: manager)
        manager.registerUndo(withTarget: counter) { _ in order.append(1) }
        manager.registerUndo(withTarget: counter) { _ in order.append(2) }
        manager.setActionName("Add")
        manager.endUndoGrouping()
        #expect(counter.value == 11 && manager.canUndo && !manager.canRedo)
        #expect(manager.undoActionName == "Add" && manager.undoMenuItemTitle == "Undo Add")
        manager.undo()
        #expect(counter.value == 0 && order == [2, 1])
        #expect(!manager.canUndo && manager.canRedo && manager.redoActionName == "Add")
        manager.redo()
        #expect(counter.value == 11 && manager.canUndo && !manager.canRedo)
        manager.undo()
        #expect(counter.value == 0)
    }

    @Test func aRegistrationOutsideAGroupOpensOneThatUndoCloses() {
        let manager = UndoManager()
        let counter = Counter()
        counter.add(5, in: manager)
        #expect(manager.groupingLevel == 1 && manager.canUndo)
        manager.undo()
        #expect(manager.groupingLevel == 0 && counter.value == 0)

        manager.groupsByEvent = false
        counter.add(5, in: manager)
        #expect(!manager.canUndo, "without groupsByEvent a registration outside a group is dropped")
    }

    @Test func aNewChangeClearsTheRedoStackAndLevelsTrimTheOldest() {
        let manager = UndoManager()
        manager.levelsOfUndo = 2
        let counter = Counter()
        for amount in [1, 2, 3] {
            manager.beginUndoGrouping()
            counter.add(amount, in: manager)
            manager.endUndoGrouping()
        }
        manager.undo()
        manager.undo()
        #expect(counter.value == 1 && !manager.canUndo, "levelsOfUndo kept more than two groups")
        #expect(manager.canRedo)
        manager.beginUndoGrouping()
        counter.add(100, in: manager)
        manager.endUndoGrouping()
        #expect(!manager.canRedo)
    }

    @Test func flagsRegistrationSwitchesAndClearing() {
        let manager = UndoManager()
        let counter = Counter()
        var seen: [(Bool, Bool)] = []
        manager.beginUndoGrouping()
        manager.registerUndo(withTarget: counter) { _ in seen.append((manager.isUndoing, manager.isRedoing)) }
        manager.endUndoGrouping()
        manager.undo()
        #expect(seen.count == 1 && seen[0] == (true, false))
        #expect(!manager.isUndoing)

        manager.disableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        counter.add(1, in: manager)
        manager.enableUndoRegistration()
        #expect(!manager.canUndo)

        manager.beginUndoGrouping()
        counter.add(1, in: manager)
        manager.endUndoGrouping()
        manager.removeAllActions(withTarget: counter)
        #expect(!manager.canUndo)
        manager.beginUndoGrouping()
        counter.add(1, in: manager)
        manager.endUndoGrouping()
        manager.removeAllActions()
        #expect(!manager.canUndo && !manager.canRedo)
    }
}

/// A context recording its changes with an undo manager.
@Suite struct ContextUndoTests {
    let container: ModelContainer
    let context: ModelContext
    let undoManager = UndoManager()
    let day = Date(timeIntervalSince1970: 1_750_000_000)

    init() throws {
        container = try ModelContainer(for: Trip.self, configurations: MemoryStoreConfiguration(name: "undo"))
        context = ModelContext(container)
        context.undoManager = undoManager
    }

    func trip(_ name: String) -> Trip {
        Trip(name: name, destination: "Norway", startDate: day, endDate: day.addingTimeInterval(86_400))
    }

    func item(_ title: String) -> BucketListItem {
        BucketListItem(title: title, details: "", hasReservation: false, isInPlan: false)
    }

    func storedNames() throws -> [String] {
        try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    @Test func undoAndRedoAnAttributeEditAcrossGroups() throws {
        let oslo = trip("Oslo")
        context.insert(oslo)
        try context.save()

        oslo.name = "Bergen"
        context.processPendingChanges()
        oslo.name = "Tromsø"
        oslo.destination = "Arctic"
        context.processPendingChanges()
        undoManager.undo()
        #expect(oslo.name == "Bergen" && oslo.destination == "Norway")
        undoManager.undo()
        #expect(oslo.name == "Oslo")
        undoManager.redo()
        #expect(oslo.name == "Bergen")
        try context.save()
        #expect(try storedNames() == ["Bergen"])
        undoManager.redo()
        #expect(oslo.name == "Tromsø" && oslo.destination == "Arctic")
        try context.save()
        #expect(try storedNames() == ["Tromsø"])
    }

    @Test func anUnsavedInsertUndoneNeverReachesTheStore() throws {
        let oslo = trip("Oslo")
        oslo.bucketList = [item("Fjord")]
        context.insert(oslo)
        context.processPendingChanges()
        #expect(context.insertedModelsArray.count == 2)
        undoManager.undo()
        #expect(context.insertedModelsArray.isEmpty && !context.hasChanges)
        #expect(oslo.name == "Oslo" && oslo.bucketList.map(\.title) == ["Fjord"], "the undone insert lost its values")
        try context.save()
        #expect(try storedNames() == [])

        undoManager.redo()
        #expect(context.insertedModelsArray.count == 2)
        try context.save()
        #expect(try storedNames() == ["Oslo"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BucketListItem>()) == 1)
    }

    @Test func anInsertUndoneAfterItsSaveIsADeleteAtTheNextSave() throws {
        let oslo = trip("Oslo")
        context.insert(oslo)
        try context.save()
        undoManager.undo()
        #expect(context.deletedModelsArray.count == 1)
        try context.save()
        #expect(try storedNames() == [])
    }

    @Test func undoingADeleteBeforeAndAfterTheSave() throws {
        let oslo = trip("Oslo")
        oslo.bucketList = [item("Fjord"), item("Ferry")]
        context.insert(oslo)
        try context.save()

        context.delete(oslo)
        context.processPendingChanges()
        undoManager.undo()
        #expect(!oslo.isDeleted && !context.hasChanges)
        try context.save()
        #expect(try storedNames() == ["Oslo"])

        let items = oslo.bucketList
        context.delete(oslo)
        try context.save()
        #expect(try storedNames() == [])
        #expect(items.allSatisfy { $0.trip == nil }, "the delete left the items' inverse")
        undoManager.undo()
        #expect(!oslo.isDeleted && context.insertedModelsArray.count == 1)
        #expect(oslo.bucketList.map(\.title).sorted() == ["Ferry", "Fjord"], "the re-inserted trip lost its items")
        #expect(items.allSatisfy { $0.trip === oslo })
        try context.save()
        let reader = ModelContext(container)
        let stored = try reader.fetch(FetchDescriptor<Trip>())
        #expect(stored.map(\.name) == ["Oslo"])
        #expect(stored.first?.bucketList.count == 2)
    }

    @Test func undoAndRedoARelationshipEditWithItsInverses() throws {
        let oslo = trip("Oslo")
        let bergen = trip("Bergen")
        let fjord = item("Fjord")
        oslo.bucketList = [fjord]
        context.insert(oslo)
        context.insert(bergen)
        try context.save()

        fjord.trip = bergen
        #expect(oslo.bucketList.isEmpty && bergen.bucketList.map(\.title) == ["Fjord"])
        context.processPendingChanges()
        undoManager.undo()
        #expect(fjord.trip === oslo)
        #expect(oslo.bucketList.map(\.title) == ["Fjord"] && bergen.bucketList.isEmpty)
        undoManager.redo()
        #expect(fjord.trip === bergen && oslo.bucketList.isEmpty && bergen.bucketList.map(\.title) == ["Fjord"])
        try context.save()
        let reader = ModelContext(container)
        let stored = try reader.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(stored.map { $0.bucketList.map(\.title) } == [["Fjord"], []])

        // Appending a new item to a collection: undo takes the insert and the link back.
        let ferry = item("Ferry")
        oslo.bucketList.append(ferry)
        context.processPendingChanges()
        #expect(ferry.trip === oslo)
        undoManager.undo()
        #expect(oslo.bucketList.isEmpty && context.insertedModelsArray.isEmpty)
    }

    @Test func undoNotifiesObserversOfTheRestoredProperty() throws {
        let oslo = trip("Oslo")
        let bergen = trip("Bergen")
        context.insert(oslo)
        context.insert(bergen)
        try context.save()
        oslo.name = "Bergen"
        context.processPendingChanges()
        let fired = Locked(0)
        withObservationTracking { _ = oslo.name } onChange: { fired.withLock { $0 += 1 } }
        undoManager.undo()
        #expect(fired.withLock { $0 } == 1)

        // The other side of a relationship tells its observers too.
        let inverseFired = Locked(0)
        let fjord = item("Fjord")
        context.insert(fjord)
        withObservationTracking { _ = bergen.bucketList } onChange: { inverseFired.withLock { $0 += 1 } }
        fjord.trip = bergen
        #expect(inverseFired.withLock { $0 } == 1)
    }

    @Test func rollbackEmptiesTheUndoManager() throws {
        context.insert(trip("Oslo"))
        context.processPendingChanges()
        #expect(undoManager.canUndo)
        context.rollback()
        #expect(!undoManager.canUndo && !undoManager.canRedo)
    }

    @Test func aContextWithoutAnUndoManagerRecordsNothing() throws {
        let plain = ModelContext(container)
        let manager = UndoManager()
        plain.insert(trip("Oslo"))
        plain.processPendingChanges()
        #expect(!manager.canUndo && plain.undoManager == nil)
    }

    @MainActor @Test func theContainerOptionGivesTheMainContextAnUndoManager() throws {
        #expect(!container.isUndoEnabled && container.mainContext.undoManager == nil)
        container.isUndoEnabled = true
        let manager = try #require(container.mainContext.undoManager)
        let oslo = trip("Oslo")
        container.mainContext.insert(oslo)
        container.mainContext.processPendingChanges()
        manager.undo()
        #expect(container.mainContext.insertedModelsArray.isEmpty)
        container.isUndoEnabled = false
        #expect(container.mainContext.undoManager == nil)
    }
}
