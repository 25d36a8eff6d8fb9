import BenchWorkloads
import Foundation

/// One measured run.
struct Sample {
    let milliseconds: Double
    /// The process's peak resident set, setup included.
    let peakKiB: Int
    /// The resident set when the timed part started.
    let beforeKiB: Int
    /// The peak resident set during the timed part, less ``beforeKiB``.
    let growthKiB: Int
    /// Processor time of the timed part in user mode and in the kernel (`getrusage`).
    let userMilliseconds: Double
    let systemMilliseconds: Double
    /// Page faults of the timed part served without I/O: mostly fresh memory touched for the
    /// first time, which the kernel zeroes (about 2 µs each on the VMs of these reports).
    let minorFaults: Int
}

/// Child mode: prepare untimed, time the workload with `ContinuousClock`, check it, print one
/// RESULT line (or a SKIPPED line when the backend does not run the workload).
///
/// - Throws: The workload's error, or ``ReportError/child(_:)`` when its checksum or check fails.
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
    let usageBefore = ProcessMemory.usage()
    let start = clock.now
    let checksum = try run.run()
    let elapsed = start.duration(to: clock.now)
    let usage = ProcessMemory.usage().since(usageBefore)
    let timedPeak = ProcessMemory.peakResidentKiB()
    try run.verify()
    let expected = WorkloadRuns.expectedChecksum(workload, count: count)
    guard checksum == expected else {
        throw ReportError.child("\(backend.rawValue) \(workload.rawValue): checksum \(checksum), expected \(expected)")
    }
    let ms = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    print(
        "RESULT backend=\(backend.rawValue) workload=\(workload.rawValue) ms=\(ms) peak_rss_kib=\(max(setupPeak, timedPeak))"
            + " rss_before_kib=\(before) rss_growth_kib=\(max(timedPeak - before, 0)) checksum=\(checksum)"
            + " user_ms=\(usage.userMilliseconds) sys_ms=\(usage.systemMilliseconds) minor_faults=\(usage.minorFaults)")
}

/// Parent mode: spawn one child for a run and parse its RESULT line.
///
/// - Throws: ``ReportError/child(_:)`` when the child fails or prints no RESULT line.
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
        growthKiB: Int(fields["rss_growth_kib"] ?? "") ?? 0,
        userMilliseconds: Double(fields["user_ms"] ?? "") ?? .nan,
        systemMilliseconds: Double(fields["sys_ms"] ?? "") ?? .nan,
        minorFaults: Int(fields["minor_faults"] ?? "") ?? 0)
}
