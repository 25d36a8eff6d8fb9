import BenchWorkloads
import Foundation

/// The command line of the report.
struct Options {
    var count = 100_000
    var repetitions = 3
    /// Every workload; the PostgreSQL ones only when `STRATA_POSTGRES_URL` names a server.
    var workloads = Workload.allCases.filter { !$0.needsPostgres || ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil }
    var backends = Backend.allCases
    /// Whether `--backends` was given; the enumerate sizes table then uses those backends.
    var backendsGiven = false
    var one: (Backend, Workload)?
    var seedOnly = false
    /// Where the results go as JSON.
    var jsonPath = "results/perf-report.json"
    /// Where the ratio chart goes as SVG, when asked for.
    var plotPath: String?
    /// The sizes at which `enumerate` runs for the extra table; empty for none.
    var enumerateSizes: [Int] = []

    /// Parses the arguments after the program's name.
    ///
    /// - Throws: ``ReportError/usage(_:)`` for an unknown flag or a bad value.
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
                // `none` runs no workload of the main table (with `--enumerate-sizes`, only that table).
                let list = try next(argument)
                workloads = list == "none" ? [] : try list.split(separator: ",").map { try Workload(rawValue: String($0)).orThrow("unknown workload \($0)") }
            case "--backends":
                backends = try next(argument).split(separator: ",").map { try Backend(rawValue: String($0)).orThrow("unknown backend \($0)") }
                backendsGiven = true
            case "--json": jsonPath = try next(argument)
            case "--plot": plotPath = try next(argument)
            case "--enumerate-sizes":
                enumerateSizes = try next(argument).split(separator: ",").map {
                    try Int($0.replacingOccurrences(of: "_", with: "")).orThrow("--enumerate-sizes takes numbers, such as 10000,100000")
                }
            case "--seed": seedOnly = true
            case "--one":
                let backend = try Backend(rawValue: next(argument)).orThrow("unknown backend")
                let workload = try Workload(rawValue: next(argument)).orThrow("unknown workload")
                one = (backend, workload)
            default: throw ReportError.usage("unknown argument \(argument)")
            }
        }
        if repetitions < 1 { throw ReportError.usage("--k must be at least 1") }
    }
}

/// What stops the report: a bad command line or a failed child.
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
    /// The value, or a usage error saying `message`.
    func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw ReportError.usage(message) }
        return self
    }
}
