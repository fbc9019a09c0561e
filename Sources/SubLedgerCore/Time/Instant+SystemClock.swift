#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Instant {
    /// The current time from the system's real-time clock, truncated to whole milliseconds: the clock a process
    /// injects where it runs for real. Nothing in the core reads it; every decision takes its `now` as an argument.
    public static func systemNow() -> Instant {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Instant(millisecondsSince1970: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}
