import Foundation

/// The cores this process may run on.
///
/// Foundation's `activeProcessorCount` and NIO's `System.coreCount` count the cores online (NIO also a
/// container's cgroup quota and cpuset), not the process's CPU affinity: under `taskset -c 8-11` or
/// `numactl --physcpubind` on a 16-core machine both say 16. Threads sized from that run four to a core and
/// preempt each other, a lock holder included. The affinity mask is what the scheduler will actually use; Linux
/// states it as `Cpus_allowed_list` in `/proc/self/status`.
public enum ProcessCores {
    /// How many cores the process's CPU affinity mask allows, or nil where it cannot be read (no `/proc`, another
    /// platform).
    public static func inAffinityMask() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return allowed(inStatus: status)
    }

    /// `counted` (cores online, or a quota), lowered to the affinity mask's count where that is smaller.
    public static func usable(of counted: Int) -> Int {
        usable(of: counted, affinity: inAffinityMask())
    }

    static func usable(of counted: Int, affinity: Int?) -> Int {
        guard let affinity else { return max(1, counted) }
        return max(1, min(counted, affinity))
    }

    /// The cores of the `Cpus_allowed_list:` line of a `/proc/PID/status` text ("0-3,8,10-11" is 7), or nil where
    /// the line is missing or malformed.
    static func allowed(inStatus status: String) -> Int? {
        guard
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        var count = 0
        for range in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let bounds = range.trimmingCharacters(in: .whitespaces).split(
                separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]),
                0 <= low, low <= high, high < 1 << 20
            else { return nil }
            count += high - low + 1
        }
        return count > 0 ? count : nil
    }
}
