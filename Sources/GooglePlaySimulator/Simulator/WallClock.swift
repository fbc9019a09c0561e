import Foundation
import SubLedgerCore

/// The system's wall clock, the default of `Configuration.wallClock`.
public enum WallClock {
    public static func now() -> Instant {
        Instant(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
