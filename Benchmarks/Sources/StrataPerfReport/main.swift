import BenchWorkloads
import Foundation

// Runs every workload for every backend K times, one process per run (so peak RSS is the
// workload's own), interleaving the backends inside each repetition, and prints the median
// wall-clock times, the peak RSS and the Strata/raw and GRDB/raw ratios.
//
//   StrataPerfReport [--n 100000] [--k 3] [--workloads insert,fetch] [--backends raw,strata]
//   StrataPerfReport --one <backend> <workload> [--n 100000]      (one run; prints a RESULT line)
//   StrataPerfReport --seed [--n 100000]                           (only build the seed files)

struct Options {
    var count = 100_000
    var repetitions = 3
    var workloads = Workload.allCases
    var backends = Backend.allCases
    var one: (Backend, Workload)?
    var seedOnly = false

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func next(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw ReportError.usage("\(flag) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--n": count = try Int(next(argument)).orThrow("--n takes a number")
            case "--k": repetitions = try Int(next(argument)).orThrow("--k takes a number")
            case "--workloads":
                workloads = try next(argument).split(separator: ",").map { try Workload(rawValue: String($0)).orThrow("unknown workload \($0)") }
            case "--backends":
                backends = try next(argument).split(separator: ",").map { try Backend(rawValue: String($0)).orThrow("unknown backend \($0)") }
            case "--seed": seedOnly = true
            case "--one":
                let backend = try Backend(rawValue: next(argument)).orThrow("unknown backend")
                let workload = try Workload(rawValue: next(argument)).orThrow("unknown workload")
                one = (backend, workload)
            default: throw ReportError.usage("unknown argument \(argument)")
            }
        }
    }
}

enum ReportError: Error, CustomStringConvertible {
    case usage(String)
    case child(String)
    var description: String {
        switch self {
        case .usage(let message): return "usage: \(message)"
        case .child(let message): return message
        }
    }
}

extension Optional {
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw ReportError.usage(message) }
        return self
    }
}

/// One measured run.
struct Sample {
    let milliseconds: Double
    /// The process's peak resident set, setup included.
    let peakKiB: Int
    /// The resident set when the timed part started.
    let beforeKiB: Int
    /// The peak resident set during the timed part, less ``beforeKiB``.
    let growthKiB: Int
}

/// Child mode: prepare untimed, time the workload with `ContinuousClock`, check it, print one
/// RESULT line (or a SKIPPED line when the backend does not run the workload).
func runOne(_ backend: Backend, _ workload: Workload, count: Int) throws {
    guard backend.runs(workload) else {
        print("SKIPPED backend=\(backend.rawValue) workload=\(workload.rawValue)")
        return
    }
    let fixtures = Fixtures(count: count)
    let run = try WorkloadRuns.make(backend, workload, fixtures: fixtures)
    let setupPeak = ProcessMemory.peakResidentKiB()
    ProcessMemory.resetPeak()
    let before = ProcessMemory.currentResidentKiB()
    let clock = ContinuousClock()
    let start = clock.now
    let checksum = try run.run()
    let elapsed = start.duration(to: clock.now)
    let timedPeak = ProcessMemory.peakResidentKiB()
    try run.verify()
    let expected = WorkloadRuns.expectedChecksum(workload, count: count)
    guard checksum == expected else {
        throw ReportError.child("\(backend.rawValue) \(workload.rawValue): checksum \(checksum), expected \(expected)")
    }
    let ms = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    print(
        "RESULT backend=\(backend.rawValue) workload=\(workload.rawValue) ms=\(ms) peak_rss_kib=\(max(setupPeak, timedPeak))"
            + " rss_before_kib=\(before) rss_growth_kib=\(max(timedPeak - before, 0)) checksum=\(checksum)")
}

/// Parent mode: spawn one child per run and parse its RESULT line.
func spawn(_ backend: Backend, _ workload: Workload, count: Int) throws -> Sample {
    let process = Process()
    process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--one", backend.rawValue, workload.rawValue, "--n", String(count)]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0, let line = text.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else {
        throw ReportError.child("\(backend.rawValue) \(workload.rawValue) failed (status \(process.terminationStatus)):\n\(text)")
    }
    var fields: [String: String] = [:]
    for pair in line.split(separator: " ").dropFirst() {
        let parts = pair.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    return Sample(
        milliseconds: Double(fields["ms"] ?? "") ?? .nan,
        peakKiB: Int(fields["peak_rss_kib"] ?? "") ?? 0,
        beforeKiB: Int(fields["rss_before_kib"] ?? "") ?? 0,
        growthKiB: Int(fields["rss_growth_kib"] ?? "") ?? 0)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func format(_ value: Double, _ digits: Int = 1) -> String {
    value.isNaN ? "–" : String(format: "%.\(digits)f", value)
}

func report(_ options: Options) throws {
    let fixtures = Fixtures(count: options.count)
    FileHandle.standardError.write(Data("seeding \(options.count) trips in \(fixtures.directory.path) (once)…\n".utf8))
    for workload in options.workloads {
        for backend in options.backends where backend.runs(workload) {
            try fixtures.prepareSeeds(for: backend, workload: workload)
        }
    }

    var samples: [Workload: [Backend: [Sample]]] = [:]
    var failures: [String] = []
    for repetition in 1...options.repetitions {
        for workload in options.workloads {
            for backend in options.backends where backend.runs(workload) {
                do {
                    let sample = try spawn(backend, workload, count: options.count)
                    samples[workload, default: [:]][backend, default: []].append(sample)
                    FileHandle.standardError.write(Data("[\(repetition)/\(options.repetitions)] \(workload.rawValue) \(backend.rawValue): \(format(sample.milliseconds)) ms\n".utf8))
                } catch {
                    failures.append("\(error)")
                    FileHandle.standardError.write(Data("[\(repetition)/\(options.repetitions)] \(error)\n".utf8))
                }
            }
        }
    }

    let backends = options.backends
    print("## Strata vs raw SQLite vs GRDB — N = \(options.count), median of \(options.repetitions) runs, one process per run\n")
    var header = "| workload |"
    var rule = "|---|"
    for backend in backends { header += " \(backend.rawValue) ms |"; rule += "---:|" }
    for backend in backends where backend != .raw { header += " \(backend.rawValue)/raw |"; rule += "---:|" }
    print(header)
    print(rule)
    for workload in options.workloads {
        let perBackend = samples[workload] ?? [:]
        var line = "| \(label(workload, count: options.count)) |"
        for backend in backends { line += " \(format(median((perBackend[backend] ?? []).map(\.milliseconds)))) |" }
        for backend in backends where backend != .raw {
            line += " \(format(pairedRatio(perBackend[backend] ?? [], perBackend[.raw] ?? []), 2))× |"
        }
        print(line)
    }

    print("\nPeak RSS, MiB (RSS when the timed part started; growth during the timed part):\n")
    header = "| workload |"
    rule = "|---|"
    for backend in backends { header += " \(backend.rawValue) |"; rule += "---:|" }
    print(header)
    print(rule)
    for workload in options.workloads {
        let perBackend = samples[workload] ?? [:]
        var line = "| \(label(workload, count: options.count)) |"
        for backend in backends {
            let runs = perBackend[backend] ?? []
            let peak = median(runs.map { Double($0.peakKiB) / 1024 })
            let before = median(runs.map { Double($0.beforeKiB) / 1024 })
            let growth = median(runs.map { Double($0.growthKiB) / 1024 })
            line += " \(format(peak)) (\(format(before)); +\(format(growth))) |"
        }
        print(line)
    }
    print("\nRatios are medians of per-repetition ratios (backend and raw paired in the same repetition).")
    if !failures.isEmpty {
        print("\nFailed runs:")
        for failure in failures { print("- \(failure)") }
    }
}

/// The row label of the tables, for N = `count`.
func label(_ workload: Workload, count: Int) -> String {
    switch workload {
    case .insert: return "insert N + save"
    case .fetch: return "fetch all N"
    case .filter: return "filter ×10 (`instr` + date range)"
    case .lookup: return "1,000 indexed lookups"
    case .update: return "update all N + save"
    case .delete: return "delete all N + save"
    case .graph:
        let trips = GraphValues.tripCount(count)
        return "graph: \(trips) trips + \(trips * GraphValues.itemsPerTrip) items, prefetched"
    case .memfilter: return "memfilter ×10 (MemoryStore; raw = `Array.filter`)"
    case .json: return "json save + reopen + fetch (raw = Codable)"
    case .enumerate: return "enumerate N, batches of 5,000"
    }
}

/// The median of `a[i] / b[i]` over the repetitions both have.
func pairedRatio(_ a: [Sample], _ b: [Sample]) -> Double {
    median(zip(a, b).map { $0.milliseconds / $1.milliseconds })
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    if options.seedOnly {
        let fixtures = Fixtures(count: options.count)
        try fixtures.prepareSeeds()
        try fixtures.prepareGraphSeed(for: .raw)
        try fixtures.prepareGraphSeed(for: .strata)
    } else if let (backend, workload) = options.one {
        try runOne(backend, workload, count: options.count)
    } else {
        try report(options)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
