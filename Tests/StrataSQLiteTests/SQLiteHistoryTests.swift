import Foundation
@testable import StrataCore
@testable import StrataSQLite
import Testing

@Model final class Booking {
    @Attribute(.preserveValueOnDeletion) var reference: String
    var guests: Int

    init(reference: String, guests: Int) {
        self.reference = reference
        self.guests = guests
    }
}

/// History on a SQLite file, beyond the shared conformance checks: it is written in the
/// save's own transaction, other connections' saves appear in it, and predicates on tokens
/// and authors run as SQL.
@Suite struct SQLiteHistoryTests {
    let url: URL
    typealias Transactions = HistoryDescriptor<DefaultHistoryTransaction>

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-history-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("bookings.store")
    }

    func open(_ retention: HistoryRetention = .unlimited) throws -> ModelContainer {
        var configuration = ModelConfiguration(url: url)
        configuration.historyRetention = retention
        return try ModelContainer(for: Booking.self, configurations: configuration)
    }

    @Test func aSaveWhoseHistoryCannotBeWrittenSavesNothing() throws {
        let context = ModelContext(try open())
        context.insert(Booking(reference: "A1", guests: 2))
        try context.save()
        // Make the history insert fail, inside the save's transaction.
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("CREATE TRIGGER refuse BEFORE INSERT ON \"_strata_history\" BEGIN SELECT RAISE(ABORT, 'refused'); END")

        context.insert(Booking(reference: "B2", guests: 3))
        #expect(throws: SQLiteStoreError.self) { try context.save() }
        let other = ModelContext(try open())
        #expect(try other.fetch(FetchDescriptor<Booking>()).map(\.reference) == ["A1"], "the rows were written without their history")
        #expect(try other.fetchHistory(Transactions()).count == 1)

        try connection.execute("DROP TRIGGER refuse")
        try context.save()
        #expect(try other.fetchHistory(Transactions()).count == 2, "the retried save has no history")
    }

    /// A save that updates more models than a statement takes rows (they go 128 to a
    /// statement) records each model's own update, once.
    @Test func updatesInChunksRecordEachModelOnce() throws {
        let context = ModelContext(try open())
        for number in 0..<300 { context.insert(Booking(reference: "R\(number)", guests: 1)) }
        try context.save()
        let token = try #require(try context.fetchHistory(Transactions()).last?.token)
        let bookings = try context.fetch(FetchDescriptor<Booking>())
        for booking in bookings { booking.guests += 1 }
        try context.save()
        let changes = try context.fetchHistory(Transactions(predicate: #Predicate { $0.token > token })).flatMap(\.changes)
        let updated = changes.compactMap { change -> PersistentIdentifier? in
            guard case .update = change else { return nil }
            return change.changedPersistentIdentifier
        }
        #expect(updated.count == 300)
        let missing = Set(bookings.map(\.persistentModelID)).subtracting(updated)
        #expect(missing.isEmpty, "history lacks the updates of \(missing.count) of the 300 bookings")
        #expect(try ModelContext(try open()).fetch(FetchDescriptor<Booking>()).allSatisfy { $0.guests == 2 })
    }

    /// A save that inserts more models than a statement takes rows records each model's
    /// insert once, under the identifier the save gave it.
    @Test func insertsInChunksRecordEachModelOnce() throws {
        let context = ModelContext(try open())
        var bookings: [Booking] = []
        for number in 0..<300 {
            let booking = Booking(reference: "R\(number)", guests: 1)
            context.insert(booking)
            bookings.append(booking)
        }
        try context.save()
        let inserted = try context.fetchHistory(Transactions()).flatMap(\.changes).compactMap { change -> PersistentIdentifier? in
            guard case .insert = change else { return nil }
            return change.changedPersistentIdentifier
        }
        #expect(inserted.count == 300)
        #expect(Set(inserted) == Set(bookings.map(\.persistentModelID)))
    }

    /// Recording a chunk's rows in one step gives the runs that recording them one by one gives.
    @Test func aChunkIsRecordedAsItsRowsOneByOne() {
        var byRow = HistoryRecorder(), byChunk = HistoryRecorder()
        for key in Int64(1)...3 {
            byRow.insert("Booking", key: key)
            byChunk.insert("Booking", key: key)
        }
        for key in Int64(4)..<9 { byRow.insert("Booking", key: key) }
        byChunk.insert("Booking", keys: 4..<9)  // continues the run before it
        for key in Int64(20)..<22 { byRow.insert("Room", key: key) }
        byChunk.insert("Room", keys: 20..<22)  // another entity: a run of its own
        byChunk.insert("Room", keys: 30..<30)  // no rows: nothing
        let keys: [Int64] = [5, 6, 7, 10, 11, 3]
        byRow.update("Booking", key: 4, properties: ["guests"])
        byChunk.update("Booking", key: 4, properties: ["guests"])
        for key in keys { byRow.update("Booking", key: key, properties: ["guests"]) }
        byChunk.update("Booking", keys: keys[...], properties: ["guests"])  // gaps start new runs
        for key in keys { byRow.update("Booking", key: key, properties: ["reference"]) }
        byChunk.update("Booking", keys: keys[...], properties: ["reference"])  // other properties: new runs
        #expect(byChunk.runs == byRow.runs)
        #expect(byRow.runs.map(\.count) == [8, 2, 4, 2, 1, 3, 2, 1])
    }

    @Test func anotherConnectionsSavesAppearInHistory() throws {
        let mine = ModelContext(try open())
        mine.author = "app"
        mine.insert(Booking(reference: "A1", guests: 2))
        try mine.save()
        let token = try #require(try mine.fetchHistory(Transactions()).last?.token)

        // Another container on the same file: its own connections, as another process has.
        let theirs = ModelContext(try open())
        theirs.author = "widget"
        let booking = try #require(try theirs.fetch(FetchDescriptor<Booking>()).first)
        booking.guests = 4
        try theirs.save()
        theirs.delete(booking)
        try theirs.save()

        let since = try mine.fetchHistory(Transactions(predicate: #Predicate { $0.token > token }))
        #expect(since.map(\.author) == ["widget", "widget"])
        guard since.count == 2, case .delete(let delete as DefaultHistoryDelete<Booking>)? = since[1].changes.first else {
            Issue.record("the other connection's delete is missing: \(since)")
            return
        }
        #expect(delete.tombstone[\.reference] as? String == "A1")
        #expect(since.allSatisfy { $0.processIdentifier == String(ProcessInfo.processInfo.processIdentifier) })
    }

    @Test func historyRunsWhoseKeysOrPositionsPassTheLargestAreDamagedData() throws {
        #expect(try HistoryRecord.decodeRuns(#"[["i","Booking",9223372036854775798,10]]"#).first?.count == 10)
        #expect(throws: DecodingError.self) { try HistoryRecord.decodeRuns(#"[["i","Booking",9223372036854775798,11]]"#) }
        #expect(throws: DecodingError.self) {
            try HistoryRecord.decodeRuns(#"[["i","Booking",1,4611686018427387904],["u","Booking",1,4611686018427387904,["guests"]]]"#)
        }
        // A save whose keys run up to the largest records them as one run, without overflow.
        var recorder = HistoryRecorder()
        for key in (Int64.max - 2)...Int64.max { recorder.insert("Booking", key: key) }
        recorder.insert("Booking", key: 1)
        #expect(recorder.runs.map(\.count) == [3, 1])
    }

    @Test func historyOffWritesNoRows() throws {
        let context = ModelContext(try open(.disabled))
        context.insert(Booking(reference: "A1", guests: 2))
        try context.save()
        let connection = try SQLiteConnection(path: url.path)
        #expect(try connection.scalarText("SELECT count(*) FROM \"_strata_history\"") == "0")
    }

    @Test func authorsCompareByCanonicalEquivalenceInSQL() throws {
        let context = ModelContext(try open())
        context.author = "Zo\u{EB}"  // precomposed ë
        context.insert(Booking(reference: "A1", guests: 2))
        try context.save()
        let decomposed = "Zoe\u{308}"
        let found = try context.fetchHistory(Transactions(predicate: #Predicate { $0.author == decomposed }))
        #expect(found.count == 1)
    }

    @Test func tokenAndAuthorPredicatesCompileToSQL() throws {
        let token = DefaultHistoryToken(tokenValue: ["S": 7])
        let translation = HistoryFilter.superset(of: #Predicate<DefaultHistoryTransaction> { $0.token > token && $0.author == "widget" })
        #expect(translation.isExact)
        #expect(translation.lowerBounds == [token])
        var bindings: [SQLiteValue] = []
        let sql = SQLiteHistory.compile(translation.filter.resolved(for: "S"), &bindings)
        #expect(sql == "((\"id\" > ?1) AND (\"author_key\" IS ?2))")
        #expect(bindings == [.integer(7), .text("widget")])

        // What SQL cannot run narrows nothing, and the rest still runs in SQL.
        let mixed = HistoryFilter.superset(of: #Predicate<DefaultHistoryTransaction> { $0.changes.isEmpty && $0.token > token })
        #expect(!mixed.isExact)
        #expect(mixed.filter.resolved(for: "S") == .compare(.transactionIdentifier, .greater, .int(7)))
        // A token that does not name the store selects none of its transactions after it.
        #expect(translation.filter.resolved(for: "T").selectsNothing)
    }

    @Test func aWindowPrunesAsTheStoreSaves() throws {
        let context = ModelContext(try open(.window(transactions: 3)))
        for index in 0..<10 {
            context.insert(Booking(reference: "R\(index)", guests: index))
            try context.save()
        }
        let connection = try SQLiteConnection(path: url.path)
        #expect(try connection.scalarText("SELECT count(*) FROM \"_strata_history\"") == "3")
        #expect(try connection.scalarText("SELECT value FROM \"_strata_metadata\" WHERE key = 'historyHorizon'") == "7")
    }
}
