import BenchWorkloads
import Foundation

// Runs every workload for every backend that runs it K times, one process per run (so peak
// RSS is the workload's own), interleaving the backends inside each repetition, and prints
// the median wall-clock times, the ratios to raw, the peak RSS and the memory per live
// model; writes them as JSON and, when asked, as an SVG bar chart of the ratios.
//
//   StrataPerfReport [--n 100000] [--k 3] [--workloads insert,fetch] [--backends raw,strata]
//                    [--json results/perf-report.json] [--plot results/ratios.svg]
//                    [--enumerate-sizes 10000,100000,1000000]
//   StrataPerfReport --one <backend> <workload> [--n 100000]      (one run; prints a RESULT line)
//   StrataPerfReport --seed [--n 100000]                           (only build the seed files)

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
