import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let deleteRuleChecks: [Check] = [
        Check("cascade deletes related models recursively", cascadeDeletesRecursively),
        Check("nullify clears the other side", nullifyClearsTheOtherSide),
        Check("deny refuses the save and changes nothing", denyRefusesTheSave),
        Check("no action leaves related models in place", noActionLeavesRelatedModels),
    ]

    /// Deleting a keeper deletes its animals, and their playthings; other keepers' animals stay.
    static func cascadeDeletesRecursively(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Keeper.self)
        let writer = harness.context(container)
        let doomed = Keeper(name: "Doomed")
        let rex = Animal(name: "Rex")
        rex.playthings = [Plaything(name: "Ball"), Plaything(name: "Bone")]
        let tom = Animal(name: "Tom")
        tom.playthings = [Plaything(name: "Yarn")]
        doomed.animals = [rex, tom]
        let survivor = Keeper(name: "Survivor")
        let fido = Animal(name: "Fido")
        fido.playthings = [Plaything(name: "Stick")]
        survivor.animals = [fido]
        writer.insert(doomed)
        writer.insert(survivor)
        writer.insert(Plaything(name: "Loose"))
        try writer.save()

        let deleter = harness.context(container)
        deleter.delete(try deleter.one(Keeper.self, named: "Doomed"))
        try deleter.save()

        let reader = harness.context(container)
        #expect(try reader.names(Keeper.self) == ["Survivor"])
        #expect(try reader.names(Animal.self) == ["Fido"])
        #expect(try reader.names(Plaything.self) == ["Loose", "Stick"])
        #expect(sortedNames(try reader.one(Animal.self, named: "Fido").playthings) == ["Stick"])

        // A cascade from the middle of the chain, with the parent loaded, leaves the parent.
        let middle = harness.context(container)
        let keeper = try middle.one(Keeper.self, named: "Survivor")
        middle.delete(try middle.one(Animal.self, named: "Fido"))
        try middle.save()
        #expect(keeper.animals.isEmpty, "the deleted animal is still in its keeper's list")
        let last = harness.context(container)
        #expect(try last.names(Keeper.self) == ["Survivor"])
        #expect(try last.one(Keeper.self, named: "Survivor").animals.isEmpty)
        #expect(try last.names(Animal.self).isEmpty)
        #expect(try last.names(Plaything.self) == ["Loose"])
    }

    /// Deleting a keeper clears its vehicle's driver and removes it from its lockers' lists.
    static func nullifyClearsTheOtherSide(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Keeper.self)
        let writer = harness.context(container)
        let leaving = Keeper(name: "Leaving")
        let staying = Keeper(name: "Staying")
        leaving.vehicle = Vehicle(name: "Van")
        let shared = Locker(name: "Shared")
        let own = Locker(name: "Own")
        leaving.lockers = [shared, own]
        staying.lockers = [shared]
        writer.insert(leaving)
        writer.insert(staying)
        try writer.save()

        let deleter = harness.context(container)
        deleter.delete(try deleter.one(Keeper.self, named: "Leaving"))
        try deleter.save()

        let reader = harness.context(container)
        #expect(try reader.names(Keeper.self) == ["Staying"])
        #expect(try reader.names(Vehicle.self) == ["Van"])
        #expect(try reader.one(Vehicle.self, named: "Van").driver == nil)
        #expect(try reader.names(Locker.self) == ["Own", "Shared"])
        #expect(sortedNames(try reader.one(Locker.self, named: "Shared").keepers) == ["Staying"])
        #expect(try reader.one(Locker.self, named: "Own").keepers.isEmpty)
        #expect(sortedNames(try reader.one(Keeper.self, named: "Staying").lockers) == ["Shared"])
    }

    /// A keeper with a loan cannot be deleted; the failed save changes nothing, cascades included.
    static func denyRefusesTheSave(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Keeper.self)
        let writer = harness.context(container)
        let debtor = Keeper(name: "Debtor")
        debtor.loans = [Loan(name: "Mortgage")]
        debtor.animals = [Animal(name: "Rex")]
        debtor.vehicle = Vehicle(name: "Van")
        writer.insert(debtor)
        let free = Keeper(name: "Free")
        free.animals = [Animal(name: "Tom")]
        writer.insert(free)
        try writer.save()

        let deleter = harness.context(container)
        deleter.delete(try deleter.one(Keeper.self, named: "Debtor"))
        #expect(throws: SwiftDataError.modelValidationFailure) { try deleter.save() }

        let reader = harness.context(container)
        #expect(try reader.names(Keeper.self) == ["Debtor", "Free"])
        #expect(try reader.names(Animal.self) == ["Rex", "Tom"])
        #expect(try reader.names(Loan.self) == ["Mortgage"])
        #expect(try reader.one(Vehicle.self, named: "Van").driver?.name == "Debtor")
        #expect(try reader.one(Loan.self, named: "Mortgage").borrower?.name == "Debtor")

        // Once the loan is gone, the keeper can be deleted.
        let settler = harness.context(container)
        settler.delete(try settler.one(Loan.self, named: "Mortgage"))
        try settler.save()
        settler.delete(try settler.one(Keeper.self, named: "Debtor"))
        try settler.save()
        let last = harness.context(container)
        #expect(try last.names(Keeper.self) == ["Free"])
        #expect(try last.names(Animal.self) == ["Tom"])

        // Deleting the loan in the same save as its borrower is allowed too.
        let both = harness.context(container)
        let borrower = Keeper(name: "Borrower")
        borrower.loans = [Loan(name: "Car loan")]
        both.insert(borrower)
        try both.save()
        both.delete(try both.one(Loan.self, named: "Car loan"))
        both.delete(borrower)
        try both.save()
        let final = harness.context(container)
        #expect(try final.names(Keeper.self) == ["Free"])
        #expect(try final.names(Loan.self).isEmpty)
    }

    /// Deleting a keeper leaves its keepsakes in the store.
    static func noActionLeavesRelatedModels(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Keeper.self)
        let writer = harness.context(container)
        let keeper = Keeper(name: "Gone")
        keeper.keepsakes = [Keepsake(name: "Photo"), Keepsake(name: "Letter")]
        writer.insert(keeper)
        try writer.save()

        let deleter = harness.context(container)
        deleter.delete(try deleter.one(Keeper.self, named: "Gone"))
        try deleter.save()

        let reader = harness.context(container)
        #expect(try reader.names(Keeper.self).isEmpty)
        #expect(try reader.names(Keepsake.self) == ["Letter", "Photo"])
        #expect(try reader.fetchCount(FetchDescriptor<Keepsake>()) == 2)
    }
}
