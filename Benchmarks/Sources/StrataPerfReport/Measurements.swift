import BenchWorkloads
import Foundation

/// The runs of one report, by workload and backend, and what the tables read from them.
struct Measurements {
    /// The number of trips N.
    let count: Int
    private(set) var samples: [Workload: [Backend: [Sample]]] = [:]

    /// Creates an empty set of measurements for N = `count`.
    init(count: Int) { self.count = count }

    /// Adds one run.
    mutating func add(_ sample: Sample, _ backend: Backend, _ workload: Workload) {
        samples[workload, default: [:]][backend, default: []].append(sample)
    }

    /// The runs of `backend` on `workload`, in repetition order.
    func runs(_ backend: Backend, _ workload: Workload) -> [Sample] {
        samples[workload]?[backend] ?? []
    }

    /// The median time, or `nil` without runs.
    func milliseconds(_ backend: Backend, _ workload: Workload) -> Double? {
        median(runs(backend, workload).map(\.milliseconds))
    }

    /// The median of `backend`'s time over raw's in the same repetition, or `nil` without pairs.
    func ratio(_ backend: Backend, _ workload: Workload) -> Double? {
        median(zip(runs(backend, workload), runs(.raw, workload)).map { $0.milliseconds / $1.milliseconds })
    }

    /// The median peak resident set, MiB.
    func peakMiB(_ backend: Backend, _ workload: Workload) -> Double? {
        median(runs(backend, workload).map { Double($0.peakKiB) / 1024 })
    }

    /// The median resident set when the timed part started, MiB.
    func beforeMiB(_ backend: Backend, _ workload: Workload) -> Double? {
        median(runs(backend, workload).map { Double($0.beforeKiB) / 1024 })
    }

    /// The median growth of the resident set during the timed part, MiB.
    func growthMiB(_ backend: Backend, _ workload: Workload) -> Double? {
        median(runs(backend, workload).map { Double($0.growthKiB) / 1024 })
    }

    /// The median processor time of the timed part, user and kernel mode together, ms.
    func processorMilliseconds(_ backend: Backend, _ workload: Workload) -> Double? {
        median(runs(backend, workload).map { $0.userMilliseconds + $0.systemMilliseconds })
    }

    /// The median processor time of the timed part in user mode and in the kernel, ms, as
    /// the kernel splits it (by sampling; their sum is exact).
    func processorSplit(_ backend: Backend, _ workload: Workload) -> (user: Double?, system: Double?) {
        let runs = runs(backend, workload)
        return (median(runs.map(\.userMilliseconds)), median(runs.map(\.systemMilliseconds)))
    }

    /// The median number of minor page faults in the timed part.
    func minorFaults(_ backend: Backend, _ workload: Workload) -> Double? {
        median(runs(backend, workload).map { Double($0.minorFaults) })
    }

    /// The memory per live model after `fetch`: its resident-set growth over N, in bytes.
    func bytesPerModel(_ backend: Backend) -> Double? {
        median(runs(backend, .fetch).map { Double($0.growthKiB) * 1024 / Double(count) })
    }
}

/// The median, or `nil` for no values.
func median(_ values: [Double]) -> Double? {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return nil }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// `value` with `digits` decimals, or `–` for none.
func format(_ value: Double?, _ digits: Int = 1) -> String {
    guard let value, value.isFinite else { return "–" }
    return String(format: "%.\(digits)f", value)
}

/// "median of 3 runs", or "1 run" for one.
func medianOf(_ repetitions: Int) -> String {
    repetitions == 1 ? "1 run" : "median of \(repetitions) runs"
}

/// A whole number with thousands separators, as the tables write N.
func grouped(_ value: Int) -> String {
    let digits = String(value)
    var result = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(character)
    }
    return result
}

extension Workload {
    /// The goal for Strata's time over raw's, where it sets one (`enumerate`'s goal is
    /// memory and linearity, not a ratio).
    var goal: Double? {
        switch self {
        case .insert: return 1.5
        case .fetch: return 2.0
        case .filter: return 1.3
        case .lookup: return 3.0
        case .update: return 2.0
        case .delete: return 2.0
        case .graph: return 2.0
        case .memfilter: return 1.5
        case .json: return 1.0
        case .enumerate: return nil
        case .pginsert, .pgfetch: return 2.0
        }
    }

    /// The row label of the tables, for N = `count`.
    func label(count: Int) -> String {
        switch self {
        case .insert: return "insert N + save"
        case .fetch: return "fetch all N"
        case .filter: return "filter ×10 (`instr` + date range)"
        case .lookup: return "1,000 indexed lookups"
        case .update: return "update all N + save"
        case .delete: return "delete all N + save"
        case .graph:
            let trips = GraphValues.tripCount(count)
            return "graph: \(grouped(trips)) trips + \(grouped(trips * GraphValues.itemsPerTrip)) items, prefetched"
        case .memfilter: return "memfilter ×10 (MemoryStore; raw = `Array.filter`)"
        case .json: return "json save + reopen + fetch (raw = Codable)"
        case .enumerate: return "enumerate N, batches of 5,000"
        case .pginsert: return "pginsert N + save (PostgresStore; raw = postgres-nio prepared INSERT)"
        case .pgfetch: return "pgfetch all N (PostgresStore; raw = postgres-nio SELECT)"
        }
    }
}
