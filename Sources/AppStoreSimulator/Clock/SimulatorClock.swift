import AppStore
import Foundation
import SubLedgerCore
import Synchronization

/// The simulator's notion of "now": moved by hand (`manual`) or flowing with wall time (`accelerated`).
public final class SimulatorClock: Sendable {
    /// How simulated time moves.
    public enum Mode: String, Sendable, Codable, CaseIterable {
        /// Time stands still until advanced through the control API; durations are calendar durations.
        case manual
        /// Time flows `acceleration` times faster than wall time; durations are Apple's sandbox durations.
        case accelerated
    }

    private struct Anchor {
        var simulated: Instant
        var wall: Instant
    }

    /// The mode this clock runs in.
    public let mode: Mode
    /// How much faster than wall time simulated time flows in `accelerated` mode.
    public let acceleration: Double
    private let anchor: Mutex<Anchor>
    private let wallNow: @Sendable () -> Instant

    /// Creates a clock starting at `start`.
    public init(
        mode: Mode,
        start: Instant,
        acceleration: Double = 1,
        wallNow: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.mode = mode
        self.acceleration = max(acceleration, 0)
        self.wallNow = wallNow
        self.anchor = Mutex(Anchor(simulated: start, wall: wallNow()))
    }

    /// The current simulated instant.
    public func now() -> Instant {
        anchor.withLock { anchor in
            switch mode {
            case .manual:
                return anchor.simulated
            case .accelerated:
                let elapsed = Double(wallNow().millisecondsSince1970 - anchor.wall.millisecondsSince1970)
                return anchor.simulated.adding(milliseconds: Int64(elapsed * acceleration))
            }
        }
    }

    /// Moves simulated time forward by `milliseconds` (both modes); returns the new instant.
    @discardableResult
    public func advance(milliseconds: Int64) -> Instant {
        anchor.withLock { anchor in
            let current: Instant
            switch mode {
            case .manual:
                current = anchor.simulated
            case .accelerated:
                let wall = wallNow()
                let elapsed = Double(wall.millisecondsSince1970 - anchor.wall.millisecondsSince1970)
                current = anchor.simulated.adding(milliseconds: Int64(elapsed * acceleration))
                anchor.wall = wall
            }
            anchor.simulated = current.adding(milliseconds: max(milliseconds, 0))
            return anchor.simulated
        }
    }

    /// Whether subscription periods use Apple's compressed sandbox durations.
    public var usesSandboxDurations: Bool { mode == .accelerated }
}
