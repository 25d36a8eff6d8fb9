import BenchWorkloads
import Foundation

/// Runs every selected workload for every backend that runs it K times, one process per run
/// (so peak RSS is the workload's own), the backends taking turns inside each repetition;
/// then prints the tables, runs the enumerate sizes when asked, and writes the JSON file and
/// the chart.
///
/// - Throws: A seeding error, or a file error writing the JSON or the chart. A failed run is
///   listed under the tables instead.
func report(_ options: Options) throws {
    let fixtures = Fixtures(count: options.count)
    if !options.workloads.isEmpty { note("seeding \(options.count) trips in \(fixtures.directory.path) (once)…") }
    for workload in options.workloads {
        for backend in options.backends where backend.runs(workload) {
            try fixtures.prepareSeeds(for: backend, workload: workload)
        }
    }

    if options.workloads.contains(where: \.needsPostgres) {
        note("PostgreSQL server: \((try? PostgresSettings.describe()) ?? "unreadable")")
    }
    var measurements = Measurements(count: options.count)
    var failures: [String] = []
    for repetition in 1...options.repetitions {
        for workload in options.workloads {
            for backend in options.backends where backend.runs(workload) {
                do {
                    let sample = try spawn(backend, workload, count: options.count)
                    measurements.add(sample, backend, workload)
                    note("[\(repetition)/\(options.repetitions)] \(workload.rawValue) \(backend.rawValue): \(format(sample.milliseconds)) ms")
                } catch {
                    failures.append("\(error)")
                    note("[\(repetition)/\(options.repetitions)] \(error)")
                }
            }
        }
    }

    let tables = Tables(measurements: measurements, workloads: options.workloads, backends: options.backends, repetitions: options.repetitions)
    if !options.workloads.isEmpty { tables.printAll() }

    var sizes: [EnumerateSizes.Row] = []
    if !options.enumerateSizes.isEmpty {
        let backends = options.backendsGiven ? options.backends.filter { $0.runs(.enumerate) } : [.raw, .strata]
        let run = try EnumerateSizes.run(sizes: options.enumerateSizes, backends: backends, repetitions: options.repetitions)
        sizes = run.rows
        failures += run.failures
        EnumerateSizes.printTable(sizes, repetitions: options.repetitions)
    }

    if !failures.isEmpty {
        print("\nFailed runs:")
        for failure in failures { print("- \(failure)") }
    }

    let file = ReportFile(options: options, measurements: measurements, sizes: sizes, failures: failures)
    try write(file.json(), to: options.jsonPath)
    note("results written to \(options.jsonPath)")
    if let plotPath = options.plotPath {
        let chart = RatioChart(
            title: "Time over raw time, N = \(grouped(options.count)), \(medianOf(options.repetitions))",
            workloads: options.workloads,
            backends: options.backends.filter { $0 != .raw },
            measurements: measurements)
        try write(Data(chart.svg().utf8), to: plotPath)
        note("chart written to \(plotPath)")
    }
}

/// Writes `data` to `path`, creating its folder.
///
/// - Throws: A file error.
func write(_ data: Data, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
}

/// A progress line on standard error.
func note(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
