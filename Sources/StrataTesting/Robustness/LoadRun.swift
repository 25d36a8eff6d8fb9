import Foundation
import StrataCore

/// The row every load writer updates: one counter column per writer, so that a save which
/// wrote more than its own column would undo another writer's increment.
@Model public final class LoadBoard {
    /// The board's name; a run saves one board.
    @Attribute(.unique) public var name: String
    /// Writer 0's saves so far.
    public var w0 = 0
    /// Writer 1's saves so far.
    public var w1 = 0
    /// Writer 2's saves so far.
    public var w2 = 0
    /// Writer 3's saves so far.
    public var w3 = 0
    /// Writer 4's saves so far.
    public var w4 = 0
    /// Writer 5's saves so far.
    public var w5 = 0
    /// Writer 6's saves so far.
    public var w6 = 0
    /// Writer 7's saves so far.
    public var w7 = 0
    /// Writer 8's saves so far.
    public var w8 = 0
    /// Writer 9's saves so far.
    public var w9 = 0

    /// The board named `name`, every counter at zero.
    public init(name: String) { self.name = name }

    /// Writer `writer`'s counter.
    static let counters: [any ReferenceWritableKeyPath<LoadBoard, Int> & Sendable] = [\.w0, \.w1, \.w2, \.w3, \.w4, \.w5, \.w6, \.w7, \.w8, \.w9]
}

/// One of the accounts load entries are booked to.
@Model public final class LoadAccount {
    /// The account's number, `0..<LoadRun.accounts`.
    @Attribute(.unique) public var number: Int
    /// The entries booked to the account.
    @Relationship(deleteRule: .cascade, inverse: \LoadEntry.account) public var entries: [LoadEntry] = []

    /// The account numbered `number`, without entries.
    public init(number: Int) { self.number = number }
}

/// What one save of a load writer adds: the writer's next sequence number, booked to an account.
@Model public final class LoadEntry {
    /// The writer that saved the entry, `0..<10`.
    public var writer: Int
    /// The number of the writer's save that made the entry, from 0.
    public var sequence: Int
    /// The account the entry is booked to.
    public var account: LoadAccount?

    /// Entry `sequence` of writer `writer`.
    public init(writer: Int, sequence: Int) {
        self.writer = writer
        self.sequence = sequence
    }
}

/// Mixed reads and writes from many contexts, actors and processes on one container, and
/// the checks that nothing was lost.
///
/// Each writer, numbered `0..<10`, saves in a loop for a fixed time. A save inserts the
/// writer's next ``LoadEntry``, books it to one of ``accounts`` accounts, and increments the
/// writer's own counter on the shared ``LoadBoard``. Between saves the writer reads: another
/// writer's entries (their sequence numbers must be `0..<n`, as whole saves leave them), the
/// number of entries (it never shrinks), and an account's entries (each points back to it).
/// Afterwards ``problems(in:saves:)`` checks every writer's entries and counter against the
/// saves it reported.
///
/// ```swift
/// try LoadRun.prepare(ModelContext(container))
/// let saves = try LoadRun.write(writer: 0, in: ModelContext(container), for: .seconds(3))
/// #expect(try LoadRun.problems(in: container, saves: [0: saves.saves]) == [])
/// ```
public enum LoadRun {
    /// The models a load run saves.
    public static let schema = Schema([LoadBoard.self, LoadAccount.self, LoadEntry.self])
    /// How many accounts the entries are booked to.
    public static let accounts = 4

    /// What a writer did: the saves that returned, and what its reads found wrong.
    public struct Outcome: Sendable {
        /// How many saves returned without an error.
        public var saves = 0
        /// How many reads ran between the saves.
        public var reads = 0
        /// What the reads found wrong; empty when every read was consistent.
        public var problems: [String] = []
    }

    /// How long each writer runs: 3 seconds, or `STRATA_LOAD_SECONDS`.
    public static var duration: Duration {
        .milliseconds(Int((ProcessInfo.processInfo.environment["STRATA_LOAD_SECONDS"].flatMap(Double.init) ?? 3) * 1000))
    }

    /// Saves the board and the accounts, which every writer then shares.
    ///
    /// - Throws: What saving throws.
    public static func prepare(_ context: ModelContext) throws {
        context.insert(LoadBoard(name: "board"))
        for number in 0..<accounts { context.insert(LoadAccount(number: number)) }
        try context.save()
    }

    /// Writes and reads as writer `writer` through `context` for `duration`.
    ///
    /// - Throws: What a save or fetch throws; a writer stops at its first error.
    public static func write(writer: Int, in context: ModelContext, for duration: Duration) throws -> Outcome {
        let board = try context.fetch(FetchDescriptor<LoadBoard>()).first
        guard let board else { return Outcome(problems: ["writer \(writer) found no board"]) }
        let accounts = try context.fetch(FetchDescriptor<LoadAccount>(sortBy: [SortDescriptor(\.number)]))
        guard accounts.count == Self.accounts else { return Outcome(problems: ["writer \(writer) found \(accounts.count) accounts"]) }
        var outcome = Outcome()
        var lastCount = 0
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end {
            let entry = LoadEntry(writer: writer, sequence: outcome.saves)
            context.insert(entry)
            entry.account = accounts[(writer + outcome.saves) % accounts.count]
            board[keyPath: LoadBoard.counters[writer]] += 1
            try context.save()
            outcome.saves += 1

            let other = (writer + 1 + outcome.saves) % LoadBoard.counters.count
            let sequences = try context.fetch(FetchDescriptor<LoadEntry>(predicate: #Predicate { $0.writer == other })).map(\.sequence).sorted()
            if sequences != Array(0..<sequences.count) {
                outcome.problems.append("writer \(writer) read writer \(other)'s entries \(sequences.prefix(12))…, not those of whole saves")
            }
            let count = try context.fetchCount(FetchDescriptor<LoadEntry>())
            if count < lastCount { outcome.problems.append("writer \(writer) read \(count) entries after \(lastCount)") }
            lastCount = count
            let account = accounts[outcome.saves % accounts.count]
            if let stray = account.entries.first(where: { $0.account?.persistentModelID != account.persistentModelID }) {
                outcome.problems.append("account \(account.number) lists entry \(stray.writer)/\(stray.sequence), which points elsewhere")
            }
            outcome.reads += 3
        }
        return outcome
    }

    /// Writes as writer `writer` into the store `makeContainer` opens, then records the saves
    /// that returned in the file at `report`: the body of another process in a load test.
    ///
    /// - Throws: What opening, writing or recording throws; the process then fails.
    public static func writeInProcess(writer: Int, report: String, _ makeContainer: () throws -> ModelContainer) throws {
        let outcome = try write(writer: writer, in: ModelContext(try makeContainer()), for: duration)
        let text = ([String(outcome.saves), String(outcome.reads)] + outcome.problems).joined(separator: "\n")
        try Data(text.utf8).write(to: URL(fileURLWithPath: report))
    }

    /// The outcome another process recorded with ``writeInProcess(writer:report:_:)``.
    ///
    /// - Throws: What reading the file throws; a report that is not one is a problem of the outcome.
    public static func outcome(reportedAt report: String) throws -> Outcome {
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 2, let saves = Int(lines[0]), let reads = Int(lines[1]) else {
            return Outcome(problems: ["the report at \(report) is not one: \(lines.prefix(3))"])
        }
        return Outcome(saves: saves, reads: reads, problems: Array(lines.dropFirst(2)))
    }

    /// How many writers ``runTogether(on:for:otherProcess:)`` runs: four actors, four threads, two processes.
    public static let writers = 10

    /// Runs the load test's writers together for `duration`: 0–3 as ``LoadWriter`` actors and
    /// 4–7 as plain contexts on threads of their own, all on `container`, and 8–9 through
    /// `otherProcess`, which starts another process writing as that writer (with
    /// ``writeInProcess(writer:report:_:)``) and returns the outcome it reported.
    ///
    /// - Returns: Each writer's outcome.
    /// - Throws: What a writer throws.
    public static func runTogether(
        on container: ModelContainer, for duration: Duration, otherProcess: @escaping @Sendable (Int) async throws -> Outcome
    ) async throws -> [Int: Outcome] {
        try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            for writer in 0..<4 {
                group.addTask { (writer, try await LoadWriter(modelContainer: container).run(writer: writer, for: duration)) }
            }
            for writer in 4..<8 {
                group.addTask { (writer, try await onThread { try write(writer: writer, in: ModelContext(container), for: duration) }) }
            }
            for writer in 8..<writers {
                group.addTask { (writer, try await otherProcess(writer)) }
            }
            return try await group.reduce(into: [Int: Outcome]()) { $0[$1.0] = $1.1 }
        }
    }

    /// Runs `body` on a thread of its own, as app code uses a plain context off the main actor.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// What is wrong after ``runTogether(on:for:otherProcess:)``: a writer that did not report,
    /// saved nothing or met a problem, and what ``problems(in:saves:)`` finds in each of
    /// `containers` (the one written, and one opened afterwards as another launch would).
    ///
    /// - Throws: What fetching throws.
    public static func problems(after outcomes: [Int: Outcome], in containers: [ModelContainer]) throws -> [String] {
        var problems: [String] = []
        for writer in 0..<writers {
            guard let outcome = outcomes[writer] else {
                problems.append("writer \(writer) reported nothing")
                continue
            }
            if outcome.saves == 0 { problems.append("writer \(writer) saved nothing") }
            problems += outcome.problems.map { "writer \(writer): \($0)" }
        }
        let saves = outcomes.mapValues(\.saves)
        for container in containers { problems += try self.problems(in: container, saves: saves) }
        return problems
    }

    /// What is wrong with the store after writers ran; empty when, for each writer of `saves`,
    /// its entries are exactly `0..<saves` and its counter says `saves`, every entry is booked
    /// to an account that lists it, and the accounts list every entry once.
    ///
    /// - Throws: What fetching throws.
    public static func problems(in container: ModelContainer, saves: [Int: Int]) throws -> [String] {
        let context = ModelContext(container)
        var problems: [String] = []
        let boards = try context.fetch(FetchDescriptor<LoadBoard>())
        guard boards.count == 1, let board = boards.first else { return ["\(boards.count) boards"] }
        let entries = try context.fetch(FetchDescriptor<LoadEntry>())
        let byWriter = Dictionary(grouping: entries, by: \.writer)
        for (writer, count) in saves.sorted(by: { $0.key < $1.key }) {
            let sequences = (byWriter[writer] ?? []).map(\.sequence).sorted()
            if sequences != Array(0..<count) {
                problems.append("writer \(writer) reported \(count) saves; the store holds its entries \(sequences.prefix(12))… (\(sequences.count))")
            }
            let counter = board[keyPath: LoadBoard.counters[writer]]
            if counter != count { problems.append("writer \(writer)'s counter says \(counter) after \(count) saves: an update was lost") }
        }
        if let writer = Set(byWriter.keys).subtracting(saves.keys).first { problems.append("entries of writer \(writer), who did not run") }
        let accounts = try context.fetch(FetchDescriptor<LoadAccount>())
        if accounts.count != Self.accounts { problems.append("\(accounts.count) accounts") }
        let listed = accounts.flatMap { account in account.entries.map { ($0.persistentModelID, account.persistentModelID) } }
        if listed.count != entries.count { problems.append("the accounts list \(listed.count) entries; the store holds \(entries.count)") }
        if Set(listed.map(\.0)).count != listed.count { problems.append("an entry is listed by two accounts") }
        let bookedTo = Dictionary(uniqueKeysWithValues: entries.map { ($0.persistentModelID, $0.account?.persistentModelID) })
        if listed.contains(where: { bookedTo[$0.0] != $0.1 }) { problems.append("an entry listed by an account points elsewhere") }
        return problems
    }
}

/// A load writer on its own actor, as app code writes in the background with `@ModelActor`.
@ModelActor public actor LoadWriter {
    /// Writes and reads as writer `writer` for `duration` (``LoadRun/write(writer:in:for:)``).
    ///
    /// - Throws: What a save or fetch throws.
    public func run(writer: Int, for duration: Duration) throws -> LoadRun.Outcome {
        try LoadRun.write(writer: writer, in: modelContext, for: duration)
    }
}
