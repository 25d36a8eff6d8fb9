import Foundation

/// The process's resident memory, for reports that run one workload per process.
public enum ProcessMemory {
    /// The peak resident set so far, in KiB.
    ///
    /// On Linux this is `VmHWM` from `/proc/self/status`: `getrusage`'s `ru_maxrss` carries
    /// the parent's peak across `fork` + `exec`, so a small child would report its parent's.
    public static func peakResidentKiB() -> Int {
        #if os(Linux)
        return statusField("VmHWM:") ?? 0
        #else
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss) / 1024
        #endif
    }

    /// The current resident set, in KiB (`VmRSS` on Linux; the peak elsewhere).
    public static func currentResidentKiB() -> Int {
        #if os(Linux)
        return statusField("VmRSS:") ?? 0
        #else
        return peakResidentKiB()
        #endif
    }

    /// Sets the peak resident set to the current one, so the next peak is that of what runs
    /// after (Linux: `5` written to `/proc/self/clear_refs`); `false` where it cannot.
    @discardableResult
    public static func resetPeak() -> Bool {
        #if os(Linux)
        guard let file = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? file.close() }
        return (try? file.write(contentsOf: Data("5".utf8))) != nil
        #else
        return false
        #endif
    }

    /// The processor time and page faults of the process so far (`getrusage`).
    public struct Usage {
        /// Processor time in user mode, in milliseconds.
        public var userMilliseconds: Double
        /// Processor time in the kernel, in milliseconds.
        public var systemMilliseconds: Double
        /// Page faults served without I/O, such as a fresh page zeroed.
        public var minorFaults: Int

        /// What was used since `earlier`.
        public func since(_ earlier: Usage) -> Usage {
            Usage(
                userMilliseconds: userMilliseconds - earlier.userMilliseconds,
                systemMilliseconds: systemMilliseconds - earlier.systemMilliseconds,
                minorFaults: minorFaults - earlier.minorFaults)
        }
    }

    /// The process's ``Usage`` so far.
    public static func usage() -> Usage {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1e3 + Double(time.tv_usec) / 1e3 }
        return Usage(
            userMilliseconds: milliseconds(usage.ru_utime), systemMilliseconds: milliseconds(usage.ru_stime),
            minorFaults: Int(usage.ru_minflt))
    }

    #if os(Linux)
    /// A `kB` line of `/proc/self/status`, such as `VmHWM:     41364 kB`.
    static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }
    #endif
}
