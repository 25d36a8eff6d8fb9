import Foundation
import StrataCore

// The delete-rule models of the conformance suite: a keeper whose relationships carry
// each delete rule, and a cascade two levels deep.

/// A model whose relationships carry `.cascade`, `.deny`, `.nullify` and `.noAction`.
@Model final class Keeper {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Animal.keeper) var animals: [Animal] = []
    @Relationship(deleteRule: .deny, inverse: \Loan.borrower) var loans: [Loan] = []
    @Relationship(deleteRule: .nullify, inverse: \Vehicle.driver) var vehicle: Vehicle?
    @Relationship(deleteRule: .nullify, inverse: \Locker.keepers) var lockers: [Locker] = []
    @Relationship(deleteRule: .noAction, inverse: \Keepsake.keeper) var keepsakes: [Keepsake] = []

    init(name: String) { self.name = name }
}

/// Deleted with its keeper; deletes its toys in turn.
@Model final class Animal {
    var name: String
    var keeper: Keeper?
    @Relationship(deleteRule: .cascade, inverse: \Plaything.animal) var playthings: [Plaything] = []

    init(name: String) { self.name = name }
}

/// The second level of a cascade.
@Model final class Plaything {
    var name: String
    var animal: Animal?

    init(name: String) { self.name = name }
}

/// Blocks its borrower's deletion while it refers to it.
@Model final class Loan {
    var name: String
    var borrower: Keeper?

    init(name: String) { self.name = name }
}

/// Outlives its driver, which is cleared.
@Model final class Vehicle {
    var name: String
    var driver: Keeper?

    init(name: String) { self.name = name }
}

/// Shared by several keepers; a deleted keeper leaves its list.
@Model final class Locker {
    var name: String
    var keepers: [Keeper] = []

    init(name: String) { self.name = name }
}

/// Left untouched when its keeper is deleted.
@Model final class Keepsake {
    var name: String
    var keeper: Keeper?

    init(name: String) { self.name = name }
}
