import Foundation
import Strata
import StrataMemory
import Testing

@testable import StrataCore

/// A context's sets of models: order, removal, the storage a save takes as it is, and the
/// classes the sets of inserts and changes note.
@Suite struct ModelSetTests {
    let context: ModelContext

    init() throws {
        let container = try ModelContainer(for: Owner.self, Student.self, configurations: MemoryStoreConfiguration(name: "model-sets"))
        context = ModelContext(container)
    }

    func names(_ set: ModelSet) -> [String] {
        set.models.map { ($0 as? Owner)?.name ?? ($0 as? Student)?.name ?? "?" }
    }

    @Test func membersKeepTheirOrderAcrossARemoval() {
        let owners = (0..<3).map { Owner(name: "owner \($0)") }
        for owner in owners { context.insert(owner) }
        context.insert(Student(name: "student"))
        #expect(context.inserted.storageIfWhole?.count == 4)
        #expect(context.inserted.layouts.map(\.entityName) == ["Owner", "Student"])

        context.inserted.remove(owners[1])
        #expect(context.inserted.count == 3)
        #expect(context.inserted.storageIfWhole == nil, "a removed member's place is not a member")
        #expect(names(context.inserted) == ["owner 0", "owner 2", "student"])
        #expect(Array(context.inserted).map(\.data.entityName) == ["Owner", "Owner", "Student"])
        var inserted = context.inserted
        let (holdsRemoved, holdsKept) = (inserted.contains(owners[1]), inserted.contains(owners[2]))
        #expect(!holdsRemoved && holdsKept)
        #expect(context.inserted.layouts.count == 2, "removing models leaves their classes noted")
    }

    /// A removed member is let go at once, not when the set compacts: the set holds only a
    /// marker in its place.
    @Test func aRemovedMemberIsLetGo() {
        weak var removed: Owner?
        do {
            let owner = Owner(name: "gone")
            removed = owner
            context.insert(owner)
            context.insert(Owner(name: "kept"))
            context.inserted.remove(owner)
            context.registered.remove(owner.persistentModelID)
        }
        #expect(removed == nil)
        #expect(names(context.inserted) == ["kept"])
    }

    /// Past 64 places, a set more than half removed compacts, and what is left stays in order;
    /// below that, removed places stay until the set is emptied.
    @Test func aMostlyRemovedSetCompactsInOrder() {
        let owners = (0..<100).map { Owner(name: "\($0)") }
        for owner in owners { context.insert(owner) }
        for owner in owners.prefix(50) { context.inserted.remove(owner) }
        #expect(context.inserted.storageIfWhole == nil, "half removed: not compacted yet")
        context.inserted.remove(owners[50])
        #expect(context.inserted.storageIfWhole?.count == 49, "compacted: no removed place left")
        #expect(names(context.inserted) == (51..<100).map(String.init))
        var inserted = context.inserted
        let (holdsLast, holdsRemoved) = (inserted.contains(owners[99]), inserted.contains(owners[50]))
        #expect(holdsLast && !holdsRemoved)
        context.inserted.remove(owners[60])
        #expect(context.inserted.count == 48 && context.inserted.storageIfWhole == nil)
        #expect(names(context.inserted) == (51..<100).filter { $0 != 60 }.map(String.init))
    }

    /// The sets of inserts and of changes note classes; deletes do not need them.
    @Test func theSetsOfInsertsAndChangesNoteClasses() throws {
        let owner = Owner(name: "saved")
        context.insert(owner)
        try context.save()
        #expect(context.inserted.isEmpty && context.inserted.layouts.isEmpty, "a save starts a new set of inserts")
        owner.name = "changed"
        context.processPendingChanges()
        #expect(context.changed.count == 1)
        #expect(context.changed.layouts.map(\.entityName) == ["Owner"])
        context.delete(owner)
        #expect(context.deleted.count == 1 && context.deleted.layouts.isEmpty)
    }

    /// A save takes the set of changes whole when there are no deletes, and otherwise copies
    /// the changed models that are not deleted: either way every change reaches the store and
    /// a changed model deleted before the save is deleted, not updated.
    @Test func aSaveUpdatesTheChangedModelsAndDeletesTheDeletedOnes() throws {
        let owners = (0..<3).map { Owner(name: "owner \($0)") }
        for owner in owners { context.insert(owner) }
        try context.save()
        func stored() throws -> Set<String> { Set(try ModelContext(context.container).fetch(FetchDescriptor<Owner>()).map(\.name)) }

        for owner in owners { owner.name += " changed" }
        context.processPendingChanges()
        #expect(context.changed.storageIfWhole?.count == 3)
        try context.save()
        #expect(context.changed.isEmpty)
        #expect(try stored() == ["owner 0 changed", "owner 1 changed", "owner 2 changed"])

        for owner in owners { owner.name += " again" }
        context.delete(owners[1])
        let posted = Box<[String: Any]>()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            posted.value = note.userInfo as? [String: Any]
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.save()
        #expect(context.changed.isEmpty && context.deleted.isEmpty)
        #expect(try stored() == ["owner 0 changed again", "owner 2 changed again"])
        func listed(_ key: ModelContext.NotificationKey) -> Set<PersistentIdentifier>? {
            (posted.value?[key.rawValue] as? [PersistentIdentifier]).map(Set.init)
        }
        #expect(listed(.updatedIdentifiers) == [owners[0].persistentModelID, owners[2].persistentModelID])
        #expect(listed(.deletedIdentifiers) == [owners[1].persistentModelID])
    }
}
