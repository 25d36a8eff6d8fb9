import Foundation

/// Where the trips live.
public enum Backend: String, CaseIterable, Sendable {
    /// The SQLite C API: prepared statements reused, one transaction, `SQLITE_STATIC` text.
    case raw
    /// Strata's default SQLite store through `ModelContext`, with history on (the default).
    case strata
    /// The same with history off, the fair comparison with GRDB, which keeps none.
    case strataNoHistory = "strata-nohistory"
    /// Strata with an `UndoManager` on the context and history on: what undo registration
    /// costs the writes (insert, update, delete).
    case strataUndo = "strata-undo"
    /// GRDB 7's record API with a Codable record.
    case grdb
    /// Raw's SQLite C code into objects of the shape every SwiftData `@Model` has (an
    /// observation registrar, values behind a backing-data object, one object per key): how
    /// close to raw any SwiftData-shaped API can come; for insert, fetch and graph.
    case modelFloor = "model-floor"
}

/// What is measured; each starts from its own fresh file.
public enum Workload: String, CaseIterable, Sendable {
    /// Insert N trips in one transaction into a new file and save.
    case insert
    /// Fetch all N trips into Swift values, reading one property of each.
    case fetch
    /// Ten fetches of `name contains "ab" AND startDate > 2021-07-01` (no usable index).
    case filter
    /// 1,000 fetches of one trip by `name` equality (indexed).
    case lookup
    /// Change `budget` of all N trips and save.
    case update
    /// Delete all N trips and save.
    case delete
    /// Fetch N/10 trips with their three items each prefetched, reading one property of every item.
    case graph
    /// The filter's ten fetches against N trips held in memory (MemoryStore; `Array.filter` as the floor).
    case memfilter
    /// Save N trips to a JSON file, reopen it and fetch them all (JSONStore; Foundation's Codable as the floor).
    case json
    /// Visit all N trips a batch of 5,000 at a time, reading one property of each.
    case enumerate
    /// Insert N trips into PostgreSQL and save (PostgresStore; hand-written postgres-nio as the floor).
    case pginsert
    /// Fetch all N trips from PostgreSQL, reading one property of each (PostgresStore; a plain
    /// postgres-nio `SELECT` into objects as the floor).
    case pgfetch

    /// Whether the workload needs the PostgreSQL server `STRATA_POSTGRES_URL` names.
    public var needsPostgres: Bool { self == .pginsert || self == .pgfetch }
}

/// One prepared run of a workload: everything untimed happened in ``WorkloadRuns/make(_:_:fixtures:)``;
/// ``run()`` is the timed part.
public protocol WorkloadRun: AnyObject {
    /// Runs the timed part once and returns a checksum (rows touched), the same for every backend.
    ///
    /// - Throws: The backend's error.
    func run() throws -> Int

    /// Checks the run's effect after the clock stopped, such as a delete leaving no row.
    ///
    /// - Throws: ``WorkloadCheckFailed`` when the effect is not there; the backend's error.
    func verify() throws
}

extension WorkloadRun {
    /// Most runs prove themselves by their checksum alone.
    public func verify() throws {}
}

/// A run whose effect, checked after timing, is not what the workload promises.
public struct WorkloadCheckFailed: Error, CustomStringConvertible {
    /// What was found instead.
    public let description: String
}

/// A backend asked to run a workload it has no version of (GRDB has no in-memory or JSON
/// store; the undo backend runs the writes only).
public struct WorkloadNotApplicable: Error, CustomStringConvertible {
    /// The backend asked.
    public let backend: Backend
    /// The workload it does not run.
    public let workload: Workload
    public var description: String { "\(backend.rawValue) does not run \(workload.rawValue)" }
}

/// The factory of workload runs.
public enum WorkloadRuns {
    /// Prepares one run: copies the seed, opens the database, generates or loads the rows it needs.
    ///
    /// - Throws: A SQLite, Strata, GRDB or file error.
    /// - Throws: A SQLite, Strata, GRDB or file error; ``WorkloadNotApplicable`` when the
    ///   backend does not run the workload (see ``Backend/runs(_:)``).
    public static func make(_ backend: Backend, _ workload: Workload, fixtures: Fixtures) throws -> any WorkloadRun {
        guard backend.runs(workload) else { throw WorkloadNotApplicable(backend: backend, workload: workload) }
        if workload.needsPostgres { return try PostgresRuns.make(backend, workload, fixtures: fixtures) }
        switch backend {
        case .raw: return try RawRuns.make(workload, fixtures: fixtures)
        case .strata: return try StrataRuns.make(workload, fixtures: fixtures, history: .unlimited)
        case .strataNoHistory: return try StrataRuns.make(workload, fixtures: fixtures, history: .disabled)
        case .strataUndo: return try StrataRuns.make(workload, fixtures: fixtures, history: .unlimited, undo: true)
        case .grdb: return try GRDBRuns.make(workload, fixtures: fixtures)
        case .modelFloor: return try ModelFloorRuns.make(workload, fixtures: fixtures)
        }
    }

    /// The checksum every backend must return for `workload` over `count` trips.
    public static func expectedChecksum(_ workload: Workload, count: Int) -> Int {
        switch workload {
        case .insert, .fetch, .update, .delete, .json, .enumerate, .pginsert, .pgfetch: return count
        case .lookup: return TripValues.lookupCount
        case .graph: return GraphValues.tripCount(count) * GraphValues.itemsPerTrip
        case .filter, .memfilter:
            let needle = TripValues.filterNeedle
            let matches = (0..<count).lazy.map(TripValues.row).filter {
                $0.name.contains(needle) && $0.startDate > TripValues.filterCutoff
            }.count
            return matches * FilterQuery.repetitions
        }
    }
}

/// The filter workload's shape.
enum FilterQuery {
    /// How many times one run executes the query.
    static let repetitions = 10
}

/// The enumerate workload's shape.
enum EnumerateShape {
    /// How many models Strata loads per batch (`enumerate`'s default).
    static let batchSize = 5_000
}

extension Backend {
    /// Whether the backend reads Strata's seed file rather than the raw one.
    var readsStrataSeed: Bool { self == .strata || self == .strataNoHistory || self == .strataUndo }

    /// Whether the backend has a version of `workload`: GRDB has no in-memory or JSON store,
    /// the undo backend only measures writes, and the model floor stands beside the goals
    /// Strata has not reached (insert, fetch, graph).
    public func runs(_ workload: Workload) -> Bool {
        switch self {
        case .raw, .strata, .strataNoHistory: return true
        case .grdb: return workload != .memfilter && workload != .json && !workload.needsPostgres
        case .strataUndo: return workload == .insert || workload == .update || workload == .delete
        case .modelFloor: return workload == .insert || workload == .fetch || workload == .graph
        }
    }
}
