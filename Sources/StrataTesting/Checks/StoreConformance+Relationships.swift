import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let relationshipChecks: [Check] = [
        Check("to-one and to-many relationships read back with their inverses", toOneAndToManyReadBack),
        Check("many-to-many relationships read back from both sides", manyToManyReadsBack),
        Check("moving a child between parents updates both sides", movingAChildUpdatesBothSides),
        Check("removing from a to-many relationship persists", removingFromAToManyPersists),
        Check("self-referential relationships round-trip", selfReferentialRelationshipsRoundTrip),
        Check("relationships between models of separate saves resolve", relationshipsAcrossSavesResolve),
    ]

    /// An author with two books and a portrait, saved as one graph.
    static func toOneAndToManyReadBack(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let writer = harness.context(container)
        let ada = Author(name: "Ada")
        ada.books = [Book(name: "Notes"), Book(name: "Sketches")]
        ada.portrait = Portrait(name: "Oil")
        writer.insert(ada)
        writer.insert(Author(name: "Alone"))
        writer.insert(Book(name: "Orphan"))
        try writer.save()

        let reader = harness.context(container)
        let authors = try reader.all(Author.self)
        let books = try reader.all(Book.self)
        let portraits = try reader.all(Portrait.self)
        #expect(authors.keys.sorted() == ["Ada", "Alone"])
        #expect(books.keys.sorted() == ["Notes", "Orphan", "Sketches"])
        #expect(portraits.keys.sorted() == ["Oil"])
        let readAda = try #require(authors["Ada"])
        #expect(sortedNames(readAda.books) == ["Notes", "Sketches"])
        #expect(readAda.books.allSatisfy { $0.author === readAda }, "a book does not point back at its author")
        #expect(readAda.portrait?.name == "Oil")
        #expect(readAda.portrait?.subject === readAda, "the portrait does not point back at its subject")
        #expect(authors["Alone"]?.books.isEmpty == true)
        #expect(authors["Alone"]?.portrait == nil)
        #expect(books["Orphan"]?.author == nil)

        // Reading from the child side first resolves the parent too.
        let childFirst = harness.context(container)
        let notes = try childFirst.one(Book.self, named: "Notes")
        #expect(notes.author?.name == "Ada")
        #expect(sortedNames(notes.author?.books ?? []) == ["Notes", "Sketches"])
        #expect(notes.author?.portrait?.name == "Oil")
    }

    /// Books and labels linked many-to-many, one side declared `[Label]`, the other `[Book]?`.
    static func manyToManyReadsBack(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Book.self)
        let writer = harness.context(container)
        let fiction = Label(name: "fiction")
        let classic = Label(name: "classic")
        let unused = Label(name: "unused")
        let first = Book(name: "First")
        let second = Book(name: "Second")
        let third = Book(name: "Third")
        first.labels = [fiction, classic]
        second.labels = [fiction]
        writer.insert(first)
        writer.insert(second)
        writer.insert(third)
        writer.insert(unused)
        #expect(sortedNames(fiction.books ?? []) == ["First", "Second"], "the inverse was not maintained before the save")
        try writer.save()

        let reader = harness.context(container)
        let books = try reader.all(Book.self)
        let labels = try reader.all(Label.self)
        #expect(sortedNames(books["First"]?.labels ?? []) == ["classic", "fiction"])
        #expect(sortedNames(books["Second"]?.labels ?? []) == ["fiction"])
        #expect(books["Third"]?.labels.isEmpty == true)
        let fictionBooks = labels["fiction"]?.books ?? []
        let classicBooks = labels["classic"]?.books ?? []
        let unusedBooks = labels["unused"]?.books ?? []
        #expect(sortedNames(fictionBooks) == ["First", "Second"])
        #expect(sortedNames(classicBooks) == ["First"])
        #expect(unusedBooks.isEmpty)

        // Linking from the other side, in a later save, shows on both sides.
        let third2 = try #require(books["Third"])
        let classic2 = try #require(labels["classic"])
        classic2.books?.append(third2)
        #expect(third2.labels.contains { $0 === classic2 }, "the inverse was not maintained before the save")
        try reader.save()
        let again = harness.context(container)
        #expect(sortedNames(try again.one(Book.self, named: "Third").labels) == ["classic"])
        #expect(sortedNames(try again.one(Label.self, named: "classic").books ?? []) == ["First", "Third"])
    }

    /// A book moves from one author to another, in the same context and in a later one.
    static func movingAChildUpdatesBothSides(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let writer = harness.context(container)
        let ada = Author(name: "Ada")
        let grace = Author(name: "Grace")
        let notes = Book(name: "Notes")
        let manual = Book(name: "Manual")
        ada.books = [notes, manual]
        writer.insert(ada)
        writer.insert(grace)
        try writer.save()

        // Move by setting the to-one side.
        let editor = harness.context(container)
        let notesToMove = try editor.one(Book.self, named: "Notes")
        let graceToReceive = try editor.one(Author.self, named: "Grace")
        notesToMove.author = graceToReceive
        try editor.save()

        let reader = harness.context(container)
        #expect(sortedNames(try reader.one(Author.self, named: "Ada").books) == ["Manual"])
        #expect(sortedNames(try reader.one(Author.self, named: "Grace").books) == ["Notes"])
        #expect(try reader.one(Book.self, named: "Notes").author?.name == "Grace")

        // Move by appending to the other parent's to-many side.
        let mover = harness.context(container)
        let manualToMove = try mover.one(Book.self, named: "Manual")
        let graceToAppend = try mover.one(Author.self, named: "Grace")
        graceToAppend.books.append(manualToMove)
        #expect(manualToMove.author === graceToAppend, "the inverse was not maintained before the save")
        try mover.save()

        let last = harness.context(container)
        #expect(try last.one(Author.self, named: "Ada").books.isEmpty)
        #expect(sortedNames(try last.one(Author.self, named: "Grace").books) == ["Manual", "Notes"])
        #expect(try last.one(Book.self, named: "Manual").author?.name == "Grace")
        #expect(try last.fetchCount(FetchDescriptor<Book>()) == 2, "moving a book created or lost a book")
    }

    /// Removing a book from an author's list clears the book's author; the book stays.
    static func removingFromAToManyPersists(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let writer = harness.context(container)
        let ada = Author(name: "Ada")
        ada.books = [Book(name: "Keep"), Book(name: "Drop"), Book(name: "Clear")]
        writer.insert(ada)
        try writer.save()

        let editor = harness.context(container)
        let author = try editor.one(Author.self, named: "Ada")
        author.books.removeAll { $0.name == "Drop" }
        let cleared = try editor.one(Book.self, named: "Clear")
        cleared.author = nil
        try editor.save()

        let reader = harness.context(container)
        #expect(sortedNames(try reader.one(Author.self, named: "Ada").books) == ["Keep"])
        #expect(try reader.one(Book.self, named: "Drop").author == nil)
        #expect(try reader.one(Book.self, named: "Clear").author == nil)
        #expect(try reader.one(Book.self, named: "Keep").author?.name == "Ada")

        let emptier = harness.context(container)
        emptier.insert(Book(name: "Unrelated"))
        try emptier.one(Author.self, named: "Ada").books = []
        try emptier.save()
        let last = harness.context(container)
        #expect(try last.one(Author.self, named: "Ada").books.isEmpty)
        #expect(try last.names(Book.self) == ["Clear", "Drop", "Keep", "Unrelated"])
        #expect(try last.all(Book.self).values.allSatisfy { $0.author == nil })
    }

    /// A manager with reports, two levels deep, in one entity.
    static func selfReferentialRelationshipsRoundTrip(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Colleague.self)
        let writer = harness.context(container)
        let boss = Colleague(name: "Boss")
        let lead = Colleague(name: "Lead")
        let dev = Colleague(name: "Dev")
        let ops = Colleague(name: "Ops")
        boss.reports = [lead, ops]
        lead.reports = [dev]
        writer.insert(boss)
        try writer.save()

        let reader = harness.context(container)
        let people = try reader.all(Colleague.self)
        #expect(people.keys.sorted() == ["Boss", "Dev", "Lead", "Ops"])
        #expect(people["Boss"]?.manager == nil)
        #expect(sortedNames(people["Boss"]?.reports ?? []) == ["Lead", "Ops"])
        #expect(people["Lead"]?.manager?.name == "Boss")
        #expect(sortedNames(people["Lead"]?.reports ?? []) == ["Dev"])
        #expect(people["Dev"]?.manager?.manager?.name == "Boss")
        #expect(people["Ops"]?.reports.isEmpty == true)

        // Promote Dev to report to Boss directly.
        let dev2 = try #require(people["Dev"])
        dev2.manager = people["Boss"]
        try reader.save()
        let again = harness.context(container)
        #expect(sortedNames(try again.one(Colleague.self, named: "Boss").reports) == ["Dev", "Lead", "Ops"])
        #expect(try again.one(Colleague.self, named: "Lead").reports.isEmpty)
        #expect(try again.one(Colleague.self, named: "Dev").manager?.name == "Boss")
    }

    /// A saved author gains a book inserted in a later save, and a saved book gains a new author.
    static func relationshipsAcrossSavesResolve(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Author.self)
        let first = harness.context(container)
        first.insert(Author(name: "Ada"))
        first.insert(Book(name: "Loose"))
        try first.save()

        let second = harness.context(container)
        let ada = try second.one(Author.self, named: "Ada")
        ada.books.append(Book(name: "New"))
        let loose = try second.one(Book.self, named: "Loose")
        loose.author = Author(name: "Newcomer")
        try second.save()

        let reader = harness.context(container)
        #expect(try reader.names(Author.self) == ["Ada", "Newcomer"])
        #expect(sortedNames(try reader.one(Author.self, named: "Ada").books) == ["New"])
        #expect(sortedNames(try reader.one(Author.self, named: "Newcomer").books) == ["Loose"])
        #expect(try reader.one(Book.self, named: "New").author?.name == "Ada")
    }
}
