import BenchWorkloads
import Foundation

/// `enumerate` at several N, to check that its time is linear in N and its memory flat.
enum EnumerateSizes {
    /// The runs of one backend at one size.
    struct Row {
        let size: Int
        let backend: Backend
        let samples: [Sample]

        /// The median time, ms.
        var milliseconds: Double? { median(samples.map(\.milliseconds)) }
        /// The median time per 1,000 rows, ms.
        var millisecondsPerThousand: Double? { milliseconds.map { $0 * 1_000 / Double(size) } }
        /// The median growth of the resident set during the timed part, MiB.
        var growthMiB: Double? { median(samples.map { Double($0.growthKiB) / 1024 }) }
        /// The median peak resident set of the process, MiB.
        var peakMiB: Double? { median(samples.map { Double($0.peakKiB) / 1024 }) }
    }

    /// The bound on `enumerate`'s memory growth at a million rows, MiB.
    static let growthBoundMiB = 64.0

    /// Seeds each size, then runs `enumerate` for each size and backend `repetitions` times,
    /// one process per run.
    ///
    /// - Throws: A seeding error; failed runs are returned as text.
    static func run(sizes: [Int], backends: [Backend], repetitions: Int) throws -> (rows: [Row], failures: [String]) {
        var failures: [String] = []
        var samples: [Int: [Backend: [Sample]]] = [:]
        for size in sizes {
            note("seeding \(size) trips for enumerate (once)…")
            for backend in backends { try Fixtures(count: size).prepareSeeds(for: backend, workload: .enumerate) }
        }
        for repetition in 1...repetitions {
            for size in sizes {
                for backend in backends {
                    do {
                        let sample = try spawn(backend, .enumerate, count: size)
                        samples[size, default: [:]][backend, default: []].append(sample)
                        note("[\(repetition)/\(repetitions)] enumerate \(size) \(backend.rawValue): \(format(sample.milliseconds)) ms")
                    } catch {
                        failures.append("\(error)")
                        note("[\(repetition)/\(repetitions)] \(error)")
                    }
                }
            }
        }
        let rows = sizes.flatMap { size in
            backends.map { Row(size: size, backend: $0, samples: samples[size]?[$0] ?? []) }
        }
        return (rows, failures)
    }

    /// Prints the sizes table: time, time per 1,000 rows (and its ratio to the smallest size's),
    /// the RSS growth and the peak.
    static func printTable(_ rows: [Row], repetitions: Int) {
        print("\n## enumerate at several N (batches of 5,000), \(medianOf(repetitions))\n")
        print(row(["N", "backend", "ms", "ms per 1k rows", "per row vs smallest N", "RSS growth MiB", "peak RSS MiB"]))
        print(rule(7))
        for current in rows {
            let smallest = rows.filter { $0.backend == current.backend }.min { $0.size < $1.size }
            let linearity = current.millisecondsPerThousand.flatMap { now in smallest?.millisecondsPerThousand.map { now / $0 } }
            print(row([
                grouped(current.size), current.backend.rawValue, format(current.milliseconds), format(current.millisecondsPerThousand, 3),
                ratio(linearity), format(current.growthMiB), format(current.peakMiB),
            ]))
        }
        print("\nThe issue asks for time linear in N (a flat time per row) and an RSS growth ≤ \(Int(growthBoundMiB)) MiB at 1,000,000 rows.")
    }
}
