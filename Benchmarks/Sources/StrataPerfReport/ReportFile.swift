import BenchWorkloads
import Foundation

/// The report as JSON: every run's time, the medians, ratios and memory, the memory per live
/// model and the enumerate sizes, for tools and later comparisons.
struct ReportFile: Encodable {
    /// One backend's results on one workload.
    struct BackendResult: Encodable {
        let runsMs: [Double]
        let medianMs: Double?
        let ratioToRaw: Double?
        let peakRssMiB: Double?
        let rssBeforeMiB: Double?
        let rssGrowthMiB: Double?
        let processorMs: Double?
        let userMs: Double?
        let systemMs: Double?
        let minorFaults: Double?
    }

    /// One workload's results, by backend name.
    struct WorkloadResult: Encodable {
        let workload: String
        let label: String
        let goal: Double?
        let checksum: Int
        let backends: [String: BackendResult]
    }

    /// One backend's memory per live model after `fetch`.
    struct ModelMemory: Encodable {
        let backend: String
        let bytesPerModel: Double?
        let ratioToRaw: Double?
    }

    /// One row of the enumerate sizes table.
    struct EnumerateSize: Encodable {
        let n: Int
        let backend: String
        let runsMs: [Double]
        let medianMs: Double?
        let msPerThousandRows: Double?
        let rssGrowthMiB: Double?
        let peakRssMiB: Double?
    }

    let n: Int
    let repetitions: Int
    /// The SQLite library's version.
    let sqliteVersion: String
    /// Whether the library zeroes the pages a delete frees (`PRAGMA secure_delete`); `nil` when unread.
    let sqliteSecureDelete: Bool?
    let graphTrips: Int
    let date: String
    let backends: [String]
    let workloads: [WorkloadResult]
    let memoryPerLiveModel: [ModelMemory]
    let enumerateSizes: [EnumerateSize]
    let failures: [String]

    /// Gathers the results of a report.
    init(options: Options, measurements: Measurements, sizes: [EnumerateSizes.Row], failures: [String]) {
        n = options.count
        repetitions = options.repetitions
        sqliteVersion = SQLiteLibrary.version
        sqliteSecureDelete = SQLiteLibrary.securesDeletes
        graphTrips = GraphValues.tripCount(options.count)
        date = ISO8601DateFormatter().string(from: Date())
        backends = options.backends.map(\.rawValue)
        workloads = options.workloads.map { workload in
            var results: [String: BackendResult] = [:]
            for backend in options.backends where !measurements.runs(backend, workload).isEmpty {
                let split = measurements.processorSplit(backend, workload)
                results[backend.rawValue] = BackendResult(
                    runsMs: measurements.runs(backend, workload).map(\.milliseconds).filter(\.isFinite),
                    medianMs: finite(measurements.milliseconds(backend, workload)),
                    ratioToRaw: backend == .raw ? nil : finite(measurements.ratio(backend, workload)),
                    peakRssMiB: measurements.peakMiB(backend, workload),
                    rssBeforeMiB: measurements.beforeMiB(backend, workload),
                    rssGrowthMiB: measurements.growthMiB(backend, workload),
                    processorMs: finite(measurements.processorMilliseconds(backend, workload)),
                    userMs: finite(split.user),
                    systemMs: finite(split.system),
                    minorFaults: measurements.minorFaults(backend, workload))
            }
            return WorkloadResult(
                workload: workload.rawValue, label: workload.label(count: options.count), goal: workload.goal,
                checksum: WorkloadRuns.expectedChecksum(workload, count: options.count), backends: results)
        }
        let rawBytes = measurements.bytesPerModel(.raw)
        memoryPerLiveModel = options.backends.filter { !measurements.runs($0, .fetch).isEmpty }.map { backend in
            let bytes = measurements.bytesPerModel(backend)
            return ModelMemory(
                backend: backend.rawValue, bytesPerModel: bytes,
                ratioToRaw: bytes.flatMap { value in rawBytes.flatMap { $0 > 0 ? value / $0 : nil } })
        }
        enumerateSizes = sizes.map { row in
            EnumerateSize(
                n: row.size, backend: row.backend.rawValue, runsMs: row.samples.map(\.milliseconds).filter(\.isFinite),
                medianMs: finite(row.milliseconds), msPerThousandRows: finite(row.millisecondsPerThousand),
                rssGrowthMiB: row.growthMiB, peakRssMiB: row.peakMiB)
        }
        self.failures = failures
    }

    /// The file's bytes: pretty-printed, keys sorted.
    ///
    /// - Throws: An encoding error.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}

/// `value` when it is a finite number (JSON has no NaN), else `nil`.
func finite(_ value: Double?) -> Double? {
    guard let value, value.isFinite else { return nil }
    return value
}
