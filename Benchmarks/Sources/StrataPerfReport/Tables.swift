import BenchWorkloads
import Foundation

/// The report's Markdown tables: times and ratios, memory, and memory per live model.
struct Tables {
    let measurements: Measurements
    let workloads: [Workload]
    let backends: [Backend]
    let repetitions: Int

    /// Prints every table.
    func printAll() {
        printTimes()
        printMemory()
        printProcessorTime()
        printMemoryPerModel()
        print("\nRatios are medians of per-repetition ratios (backend and raw paired in the same repetition).")
        print("`–`: the backend does not run the workload (GRDB has no in-memory or JSON store; strata-undo measures writes only; model-floor runs insert, fetch and graph).")
        print("SQLite \(SQLiteLibrary.version) for every SQLite backend; \(Self.secureDeleteNote)")
        print(Self.checkpointNote)
    }

    /// Where each SQLite backend copies its write-ahead log back into the database file: a
    /// write whose log passes 1,000 pages (insert, update and delete at N = 100,000) times
    /// that copy for raw and GRDB and not for Strata.
    static let checkpointNote = """
        Checkpoints: raw and GRDB copy the write-ahead log back into the database file inside the commit that \
        brings it to 1,000 pages (SQLite's default), so their timed writes include it; Strata's SQLite store hands \
        that copy to a queue of its own when its save has committed, so its timed part ends before it (the \
        processor time of the whole process is unchanged).
        """

    /// What the library does with the pages a delete frees, which the delete row's three
    /// backends all pay for.
    static var secureDeleteNote: String {
        switch SQLiteLibrary.securesDeletes {
        case true?: "`secure_delete` is on by default in this build: a delete writes every page it frees, zeroed."
        case false?: "`secure_delete` is off by default in this build."
        case nil: "`secure_delete` could not be read."
        }
    }

    /// Median times, the ratios to raw and the goal for each workload.
    func printTimes() {
        let others = backends.filter { $0 != .raw }
        print("## Strata vs raw vs GRDB — N = \(grouped(measurements.count)), \(medianOf(repetitions)), one process per run\n")
        print(row(["workload"] + backends.map { "\($0.rawValue) ms" } + others.map { "\($0.rawValue)/raw" } + ["goal"]))
        print(rule(1 + backends.count + others.count + 1))
        for workload in workloads {
            var cells = [workload.label(count: measurements.count)]
            cells += backends.map { format(measurements.milliseconds($0, workload)) }
            cells += others.map { ratio(measurements.ratio($0, workload)) }
            cells.append(workload.goal.map { "≤ \(format($0, 1))×" } ?? "–")
            print(row(cells))
        }
    }

    /// Median peak RSS, with the RSS at the start of the timed part and its growth during it.
    func printMemory() {
        printPerBackend("Peak RSS, MiB (RSS when the timed part started; growth during the timed part):") { backend, workload in
            guard let peak = measurements.peakMiB(backend, workload) else { return "–" }
            return "\(format(peak)) (\(format(measurements.beforeMiB(backend, workload))); +\(format(measurements.growthMiB(backend, workload))))"
        }
    }

    /// Median processor time and minor page faults of the timed part: where the wall time
    /// went besides waiting for the disk, and how much fresh memory a run touched.
    func printProcessorTime() {
        printPerBackend("Timed part: processor ms, user and kernel together (minor page faults):") { backend, workload in
            guard let time = measurements.processorMilliseconds(backend, workload) else { return "–" }
            return "\(format(time)) (\(format(measurements.minorFaults(backend, workload), 0)))"
        }
        print("\nThe kernel samples how the time splits between user and kernel mode; the JSON has both.")
    }

    /// A table titled `title`: a row per workload, a column per backend, each cell `cell`'s.
    private func printPerBackend(_ title: String, cell: (Backend, Workload) -> String) {
        print("\n\(title)\n")
        print(row(["workload"] + backends.map(\.rawValue)))
        print(rule(1 + backends.count))
        for workload in workloads {
            print(row([workload.label(count: measurements.count)] + backends.map { cell($0, workload) }))
        }
    }

    /// The RSS growth of `fetch` per model, against raw's plain `TripObject` instances.
    func printMemoryPerModel() {
        guard workloads.contains(.fetch) else { return }
        let raw = measurements.bytesPerModel(.raw)
        print("\nMemory per live model (`fetch`: RSS growth during the timed part / N; raw holds plain `final class` objects):\n")
        print(row(["backend", "RSS growth MiB", "bytes per model", "×raw"]))
        print(rule(4))
        for backend in backends where !measurements.runs(backend, .fetch).isEmpty {
            let bytes = measurements.bytesPerModel(backend)
            let times = backend == .raw ? "1.00×" : ratio(bytes.flatMap { value in raw.map { value / $0 } })
            print(row([backend.rawValue, format(measurements.growthMiB(backend, .fetch)), format(bytes, 0), times]))
        }
    }
}

/// A ratio as the tables write it, `6.67×`, or `–`.
func ratio(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "–" }
    return format(value, 2) + "×"
}

/// A Markdown table row.
func row(_ cells: [String]) -> String {
    "| " + cells.joined(separator: " | ") + " |"
}

/// A Markdown header rule: the first column left-aligned, the rest right-aligned.
func rule(_ columns: Int) -> String {
    "|---|" + String(repeating: "---:|", count: max(columns - 1, 0))
}
