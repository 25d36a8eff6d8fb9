import Foundation
import StrataCore

/// One model a crash-loop save inserts; its `sequence` counts the saves before it.
@Model public final class CrashEntry {
    /// The number of saves that came before the one that inserted this entry.
    public var sequence: Int
    /// Text whose length varies from save to save, so pages split at different points.
    public var payload: String

    /// An entry for save number `sequence`.
    public init(sequence: Int) {
        self.sequence = sequence
        payload = String(repeating: "payload ", count: sequence % 97)
    }
}

/// The one model every crash-loop save updates: the number of entries saved so far.
@Model public final class CrashCounter {
    /// How many entries the saves so far inserted.
    public var count: Int

    /// A counter at zero.
    public init() { count = 0 }
}

/// Crash safety: a process saves in a loop until it is killed with `SIGKILL` at a random
/// moment; afterwards the store must open, be intact, and hold exactly the state of some
/// complete save, history included.
///
/// Each save inserts one ``CrashEntry`` and updates the ``CrashCounter``, so after any
/// number `n` of complete saves the store holds the entries `0..<n`, a counter of `n`, and
/// `n` history transactions. Run ``saveUntilKilled(_:)`` in a child process (a Swift Testing
/// exit test), then check the store with ``problems(in:)``:
/// ```swift
/// await #expect(processExitsWith: .signal(SIGKILL)) { [path] in
///     try CrashLoop.saveUntilKilled { try ModelContainer(for: CrashLoop.schema, configurations: ...) }
/// }
/// #expect(try CrashLoop.problems(in: ModelContainer(for: CrashLoop.schema, configurations: ...)) == [])
/// ```
public enum CrashLoop {
    /// The models a crash loop saves.
    public static let schema = Schema([CrashEntry.self, CrashCounter.self])

    /// Opens the store `makeContainer` makes and saves in a loop; another thread kills the
    /// process with `SIGKILL` after a random delay of up to `maximumDelay`, which may fall
    /// while the store is opened, in a save, or between saves.
    ///
    /// One run in four counts the delay from the start, so the kill may fall while the store
    /// opens; the others count it from the start of the loop. Counted from the start alone,
    /// on a loaded machine (tests running in parallel) the store took longer to open than
    /// the longest delay, no save ever completed, and the kills tested only the opening.
    public static func saveUntilKilled(
        maximumDelay: Duration = .milliseconds(60), _ makeContainer: () throws -> ModelContainer
    ) throws -> Never {
        let microseconds = maximumDelay.components.seconds * 1_000_000 + maximumDelay.components.attoseconds / 1_000_000_000_000
        let delay = UInt32(clamping: Int64.random(in: 0...max(microseconds, 0)))
        func startTheKill() {
            Thread.detachNewThread {
                usleep(delay)
                kill(getpid(), SIGKILL)
            }
        }
        let killDuringOpening = Int.random(in: 0..<4) == 0
        if killDuringOpening { startTheKill() }
        let context = ModelContext(try makeContainer())
        let counter = try context.fetch(FetchDescriptor<CrashCounter>()).first ?? {
            let counter = CrashCounter()
            context.insert(counter)
            return counter
        }()
        if !killDuringOpening { startTheKill() }
        while true {
            context.insert(CrashEntry(sequence: counter.count))
            counter.count += 1
            try context.save()
        }
    }

    /// What is wrong with the store after a kill; empty when it holds exactly the state of
    /// some complete save: entries `0..<n`, a counter of `n` and `n` history transactions.
    ///
    /// - Throws: What fetching from the store throws (a store that cannot be read fails the check).
    public static func problems(in container: ModelContainer) throws -> [String] {
        let context = ModelContext(container)
        let sequences = try context.fetch(FetchDescriptor<CrashEntry>()).map(\.sequence).sorted()
        let counters = try context.fetch(FetchDescriptor<CrashCounter>())
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        var problems: [String] = []
        if sequences != Array(0..<sequences.count) {
            problems.append("the entries \(sequences.prefix(20))… are not those of whole saves")
        }
        if counters.count > 1 { problems.append("\(counters.count) counters") }
        let count = counters.first?.count ?? 0
        if count != sequences.count { problems.append("the counter says \(count), but \(sequences.count) entries are stored") }
        if transactions.count != sequences.count {
            problems.append("\(transactions.count) history transactions for \(sequences.count) saves")
        }
        return problems
    }

    /// How many kills a test runs: 20, or `STRATA_CRASH_KILLS` (`make soak` sets 200).
    public static var kills: Int {
        ProcessInfo.processInfo.environment["STRATA_CRASH_KILLS"].flatMap(Int.init) ?? 20
    }
}
