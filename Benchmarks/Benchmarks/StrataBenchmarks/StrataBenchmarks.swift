import BenchWorkloads
import Benchmark
import Foundation

// Every workload × every backend that runs it, over N trips (default 100,000; `STRATA_BENCH_N` overrides).
// Each iteration prepares outside the measurement (fresh seed copy, open, generate or load
// rows) and measures only the workload, between startMeasurement() and stopMeasurement().
let benchmarks: @Sendable () -> Void = {
    let count = ProcessInfo.processInfo.environment["STRATA_BENCH_N"].flatMap(Int.init) ?? 100_000
    let fixtures = Fixtures(count: count)

    for workload in Workload.allCases {
        let expected = WorkloadRuns.expectedChecksum(workload, count: count)
        for backend in Backend.allCases where backend.runs(workload) {
            // Each benchmark runs in its own process. Seeds missing here are built in the setup
            // hook, which inflates this benchmark's peak memory: run.sh builds them beforehand.
            let configuration = Benchmark.Configuration(
                metrics: [.wallClock, .peakMemoryResident, .peakMemoryResidentDelta, .mallocCountTotal],
                timeUnits: .microseconds,
                warmupIterations: 1,
                maxDuration: .seconds(15),
                maxIterations: 5,
                setup: { try fixtures.prepareSeeds(for: backend, workload: workload) }
            )
            Benchmark("\(workload.rawValue) \(backend.rawValue)", configuration: configuration) { benchmark in
                do {
                    let run = try WorkloadRuns.make(backend, workload, fixtures: fixtures)
                    benchmark.startMeasurement()
                    let checksum = try run.run()
                    benchmark.stopMeasurement()
                    try run.verify()
                    blackHole(checksum)
                    if checksum != expected {
                        benchmark.error("\(backend.rawValue) \(workload.rawValue): checksum \(checksum), expected \(expected)")
                    }
                } catch {
                    benchmark.error("\(backend.rawValue) \(workload.rawValue): \(error)")
                }
            }
        }
    }
}
