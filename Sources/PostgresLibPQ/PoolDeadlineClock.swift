import Dispatch

/// The pool's time for acquire deadlines: what time it is, and how to run the deadline sweep at a given time.
///
/// The pool uses `system` (the uptime clock and a Dispatch timer); tests pass a manual clock that they move, so
/// that a timeout is asserted by order ("still waiting one nanosecond before the deadline, timed out at it"), not by
/// measuring seconds on a busy machine.
public struct PoolDeadlineClock: Sendable {
    /// Now, in nanoseconds of this clock.
    public var now: @Sendable () -> UInt64
    /// Runs `action` once, at or after `deadline` (nanoseconds of this clock).
    public var schedule: @Sendable (_ deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> Void

    public init(
        now: @escaping @Sendable () -> UInt64,
        schedule: @escaping @Sendable (_ deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> Void
    ) {
        self.now = now
        self.schedule = schedule
    }

    /// `DispatchTime`'s uptime clock, with the sweep on Dispatch's global queue.
    public static let system = PoolDeadlineClock(
        now: { DispatchTime.now().uptimeNanoseconds },
        schedule: { deadline, action in
            DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: deadline), execute: action)
        })
}
