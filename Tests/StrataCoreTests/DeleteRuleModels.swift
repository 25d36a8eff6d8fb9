import Foundation
import Strata

/// Models whose relationships carry each delete rule.
@Model final class Owner {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Pet.owner) var pets: [Pet] = []
    @Relationship(deleteRule: .deny, inverse: \Debt.debtor) var debts: [Debt] = []
    @Relationship(deleteRule: .nullify, inverse: \Car.driver) var car: Car?
    @Relationship(deleteRule: .noAction) var favouriteBook: Novel?
    init(name: String) { self.name = name }
}

@Model final class Pet {
    var name: String
    var owner: Owner?
    @Relationship(deleteRule: .cascade, inverse: \Toy.pet) var toys: [Toy] = []
    init(name: String) { self.name = name }
}

@Model final class Toy {
    var label: String
    var pet: Pet?
    init(label: String) { self.label = label }
}

@Model final class Debt {
    var amount: Int
    var debtor: Owner?
    init(amount: Int) { self.amount = amount }
}

@Model final class Car {
    var plate: String
    var driver: Owner?
    init(plate: String) { self.plate = plate }
}

@Model final class Novel {
    var title: String
    init(title: String) { self.title = title }
}

/// Many-to-many: students take courses, courses have students.
@Model final class Student {
    var name: String
    @Relationship(inverse: \Course.students) var courses: [Course] = []
    init(name: String) { self.name = name }
}

@Model final class Course {
    @Attribute(.unique) var code: String
    var title: String
    var students: [Student] = []
    init(code: String, title: String) {
        self.code = code
        self.title = title
    }
}
