import Foundation
import StrataCore
import Testing

extension StoreConformance {
    static let uniquenessChecks: [Check] = [
        Check("a unique attribute upserts against a saved model", uniqueAttributeUpsertsAgainstSaved),
        Check("a compound unique constraint upserts against a saved model", compoundUniqueUpsertsAgainstSaved),
        Check("unique constraints merge pending inserts of one save", uniqueConstraintsMergePendingInserts),
        Check("nil values in unique constraints do not collide", nilValuesDoNotCollide),
        Check("uniqueness equates canonically equivalent strings, as Swift's == does", uniquenessIsCanonical),
    ]

    /// `"Caf\u{E9}"` and `"Cafe\u{301}"` are equal in Swift, so they are one key: against a saved
    /// model and among pending inserts. The stored spelling is the one last saved.
    static func uniquenessIsCanonical(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Course.self, Seat.self)
        let writer = harness.context(container)
        writer.insert(Course(code: "Caf\u{E9}", name: "composed"))
        writer.insert(Seat(row: "\u{C5}", number: 1, name: "angstrom"))
        try writer.save()

        let upserter = harness.context(container)
        upserter.insert(Course(code: "Cafe\u{301}", name: "decomposed"))
        upserter.insert(Seat(row: "A\u{30A}", number: 1, name: "ring"))
        upserter.insert(Seat(row: "\u{212B}", number: 2, name: "sign"))
        upserter.insert(Seat(row: "A\u{30A}", number: 2, name: "ring two"))
        try upserter.save()

        let reader = harness.context(container)
        let courses = try reader.fetch(FetchDescriptor<Course>())
        #expect(courses.map(\.name) == ["decomposed"], "a canonically equal code made a second course")
        #expect(courses.first.map { Array($0.code.unicodeScalars) } == Array("Cafe\u{301}".unicodeScalars), "the stored spelling is not the one saved last")
        let seats = try reader.fetch(FetchDescriptor<Seat>(sortBy: [SortDescriptor(\.number)])).map { "\($0.number ?? 0) \($0.name)" }
        #expect(seats == ["1 ring", "2 ring two"], "canonically equal rows made separate seats: \(seats)")
        let matching = try reader.fetchCount(FetchDescriptor<Course>(predicate: #Predicate { $0.code == "Caf\u{E9}" }))
        #expect(matching == 1, "an equality predicate does not find the canonically equal code")
    }

    /// Inserting a course whose code is saved updates the saved course; the identifier stays.
    static func uniqueAttributeUpsertsAgainstSaved(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Course.self)
        let writer = harness.context(container)
        writer.insert(Course(code: "CS101", name: "Intro"))
        writer.insert(Course(code: "CS102", name: "Data"))
        try writer.save()
        let savedID = try writer.one(Course.self, named: "Intro").persistentModelID

        let upserter = harness.context(container)
        let replacement = Course(code: "CS101", name: "Introduction")
        upserter.insert(replacement)
        upserter.insert(Course(code: "CS103", name: "Systems"))
        try upserter.save()
        #expect(replacement.persistentModelID == savedID, "the colliding insert did not take the saved model's identifier")

        let reader = harness.context(container)
        #expect(try reader.fetchCount(FetchDescriptor<Course>()) == 3)
        let courses = try reader.fetch(FetchDescriptor<Course>()).map { "\($0.code) \($0.name)" }.sorted()
        #expect(courses == ["CS101 Introduction", "CS102 Data", "CS103 Systems"])
        #expect(try reader.one(Course.self, named: "Introduction").persistentModelID == savedID)
    }

    /// Inserting a seat whose row and number are saved updates it; a seat matching only one member is new.
    static func compoundUniqueUpsertsAgainstSaved(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Seat.self)
        let writer = harness.context(container)
        writer.insert(Seat(row: "A", number: 1, name: "Ada"))
        writer.insert(Seat(row: "A", number: 2, name: "Alan"))
        try writer.save()

        let upserter = harness.context(container)
        upserter.insert(Seat(row: "A", number: 1, name: "Grace"))
        upserter.insert(Seat(row: "B", number: 1, name: "Edsger"))
        try upserter.save()

        let reader = harness.context(container)
        let seats = try reader.fetch(FetchDescriptor<Seat>()).map { "\($0.row)\($0.number ?? 0) \($0.name)" }.sorted()
        #expect(seats == ["A1 Grace", "A2 Alan", "B1 Edsger"])
    }

    /// Two inserts with the same key in one save become one model, with the later insert's values.
    static func uniqueConstraintsMergePendingInserts(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Course.self, Seat.self)
        let writer = harness.context(container)
        let first = Course(code: "M1", name: "Math draft")
        let second = Course(code: "M1", name: "Math")
        writer.insert(first)
        writer.insert(second)
        writer.insert(Seat(row: "C", number: 3, name: "First"))
        writer.insert(Seat(row: "C", number: 3, name: "Second"))
        writer.insert(Seat(row: "C", number: 4, name: "Other"))
        try writer.save()
        #expect(first.persistentModelID == second.persistentModelID, "the merged inserts have different identifiers")

        let reader = harness.context(container)
        let courses = try reader.fetch(FetchDescriptor<Course>())
        #expect(courses.map(\.name) == ["Math"])
        let seats = try reader.fetch(FetchDescriptor<Seat>()).map { "\($0.row)\($0.number ?? 0) \($0.name)" }.sorted()
        #expect(seats == ["C3 Second", "C4 Other"])
        #expect(try reader.fetchIdentifiers(FetchDescriptor<Course>()).count == 1)
    }

    /// Models whose unique attribute, or one member of a compound constraint, is `nil` are all kept.
    static func nilValuesDoNotCollide(_ harness: ConformanceHarness) throws {
        let container = try harness.container(for: Gadget.self, Seat.self)
        let writer = harness.context(container)
        writer.insert(Gadget(serial: nil, name: "First"))
        writer.insert(Gadget(serial: nil, name: "Second"))
        writer.insert(Gadget(serial: "S1", name: "Serial"))
        writer.insert(Seat(row: "D", number: nil, name: "Standing 1"))
        writer.insert(Seat(row: "D", number: nil, name: "Standing 2"))
        try writer.save()

        let later = harness.context(container)
        later.insert(Gadget(serial: nil, name: "Third"))
        later.insert(Seat(row: "D", number: nil, name: "Standing 3"))
        later.insert(Gadget(serial: "S1", name: "Serial again"))
        try later.save()

        let reader = harness.context(container)
        #expect(try reader.names(Gadget.self) == ["First", "Second", "Serial again", "Third"])
        #expect(try reader.names(Seat.self) == ["Standing 1", "Standing 2", "Standing 3"])
    }
}
