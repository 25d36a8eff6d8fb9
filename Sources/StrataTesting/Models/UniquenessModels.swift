import Foundation
import StrataCore

// The uniqueness models of the conformance suite.

/// A model with a single unique attribute.
@Model final class Course {
    @Attribute(.unique) var code: String
    var name: String

    init(code: String, name: String) {
        self.code = code
        self.name = name
    }
}

/// A model with a compound unique constraint, one of whose members is optional.
@Model final class Seat {
    #Unique<Seat>([\.row, \.number])

    var row: String
    var number: Int?
    var name: String

    init(row: String, number: Int?, name: String) {
        self.row = row
        self.number = number
        self.name = name
    }
}

/// A model whose unique attribute is optional.
@Model final class Gadget {
    @Attribute(.unique) var serial: String?
    var name: String

    init(serial: String?, name: String) {
        self.serial = serial
        self.name = name
    }
}
