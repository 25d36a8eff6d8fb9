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
