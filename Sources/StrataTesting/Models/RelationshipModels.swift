import Foundation
import StrataCore

// The relationship models of the conformance suite: one-to-one, one-to-many, many-to-many
// (with an optional to-many side) and a self-referential one-to-many.

/// An author with a to-many relationship to books and a one-to-one relationship to a portrait.
@Model final class Author {
    var name: String
    @Relationship(inverse: \Book.author) var books: [Book] = []
    @Relationship(inverse: \Portrait.subject) var portrait: Portrait?

    init(name: String) { self.name = name }
}

/// A book with a to-one author and many-to-many labels.
@Model final class Book {
    var name: String
    var author: Author?
    @Relationship(inverse: \Label.books) var labels: [Label] = []

    init(name: String) { self.name = name }
}

/// The other side of a one-to-one relationship.
@Model final class Portrait {
    var name: String
    var subject: Author?

    init(name: String) { self.name = name }
}

/// The other side of a many-to-many relationship, declared as an optional to-many.
@Model final class Label {
    var name: String
    var books: [Book]? = []

    init(name: String) { self.name = name }
}

/// A person who may report to another person: a self-referential one-to-many.
@Model final class Colleague {
    var name: String
    var manager: Colleague?
    @Relationship(inverse: \Colleague.manager) var reports: [Colleague] = []

    init(name: String) { self.name = name }
}
