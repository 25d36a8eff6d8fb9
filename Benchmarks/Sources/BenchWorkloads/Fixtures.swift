import Foundation
import Strata


/// Seed files and fresh copies of them, made outside the timed part.
///
/// Two seeds hold the same N trips: `raw-<N>.sqlite` (the raw baseline's schema, which
/// GRDB's record maps to) and `strata-<N>.store` (written by Strata itself); two more hold
/// the graph workload's trips and items (see `Fixtures+Graph.swift`). Seeds are
/// built once per directory and reused; every read, update or lookup run starts from a
/// fresh copy, so the page cache is hot and no run sees another's writes.
public final class Fixtures: Sendable {
    public let count: Int
    public let directory: URL

    /// The directory is `$STRATA_BENCH_DIR`, or `strata-bench` in the temporary directory.
    public init(count: Int, directory: URL? = nil) {
        self.count = count
        let environment = ProcessInfo.processInfo.environment["STRATA_BENCH_DIR"]
        self.directory = directory
            ?? environment.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench")
    }

    var rawSeed: URL { directory.appendingPathComponent("raw-\(count).sqlite") }
    var strataSeed: URL { directory.appendingPathComponent("strata-\(count).store") }

    /// A path for a run's database, removed with its side files.
    func runFile(_ name: String) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("run-\(name)")
        Self.remove(url)
        return url
    }

    /// A fresh copy of the seed for `backend` (GRDB reads the raw seed).
    func freshCopy(for backend: Backend) throws -> URL {
        try prepareSeeds(for: backend)
        return try copy(raw: rawSeed, strata: strataSeed, named: "copy", for: backend)
    }

    /// A copy of the seed `backend` reads, `strata` or `raw`, as the run file `name` with the
    /// seed's extension.
    func copy(raw: URL, strata: URL, named name: String, for backend: Backend) throws -> URL {
        let url = try runFile(name + (backend.readsStrataSeed ? ".store" : ".sqlite"))
        try FileManager.default.copyItem(at: backend.readsStrataSeed ? strata : raw, to: url)
        return url
    }

    /// Builds the seeds that are missing.
    ///
    /// - Throws: A SQLite, Strata or file error.
    public func prepareSeeds() throws {
        try prepareSeeds(for: .raw)
        try prepareSeeds(for: .strata)
    }

    /// Builds the seed that `backend` reads for `workload`, when it is missing: none for the
    /// workloads that start empty or make their rows (`insert`, `memfilter`, `json`).
    ///
    /// - Throws: A SQLite, Strata or file error.
    public func prepareSeeds(for backend: Backend, workload: Workload) throws {
        switch workload {
        case .insert, .memfilter, .json, .pginsert, .pgfetch: return
        case .graph: try prepareGraphSeed(for: backend)
        case .fetch, .filter, .lookup, .update, .delete, .enumerate: try prepareSeeds(for: backend)
        }
    }

    /// Builds the seed `backend` reads, when it is missing.
    ///
    /// - Throws: A SQLite, Strata or file error.
    public func prepareSeeds(for backend: Backend) throws {
        let seed = backend.readsStrataSeed ? strataSeed : rawSeed
        if FileManager.default.fileExists(atPath: seed.path) {
            if Self.rowCount(seed, table: backend.readsStrataSeed ? "BenchTrip" : "trip") == count { return }
            Self.remove(seed)  // left by an older layout or an interrupted run
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let building = try runFile("seed-\(backend.rawValue)")
        let rows = TripValues.rows(count)
        if backend.readsStrataSeed {
            try StrataInsert.write(rows, to: building)
        } else {
            try RawInsert.write(rows, into: RawDatabase.withEmptyTripTable(at: building))
        }
        try Self.checkpoint(building)
        try FileManager.default.moveItem(at: building, to: seed)
        Self.remove(building)
    }

    /// Folds the WAL into the main file so a plain copy of it is complete.
    static func checkpoint(_ url: URL) throws {
        let database = try RawDatabase(path: url.path)
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// The number of rows of `table`, or `nil` when the file does not have it.
    static func rowCount(_ url: URL, table: String) -> Int? {
        guard let database = try? RawDatabase(path: url.path),
            // NOT INDEXED: Strata's indexes use its `strata_canonical` collation, which this
            // plain connection lacks, and `count(*)` would otherwise read the smallest index.
            let select = try? database.prepare("SELECT count(*) FROM \"\(table)\" NOT INDEXED"),
            (try? select.step()) == true
        else { return nil }
        return Int(select.int64(0))
    }

    /// Removes a database and its `-wal`, `-shm` and `.external` side files.
    static func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal", ".external"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}
