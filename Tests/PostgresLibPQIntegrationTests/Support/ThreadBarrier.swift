import Foundation

/// Blocks threads until `parties` have arrived (or the timeout passes); used to force real conflicts.
final class ThreadBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) {
        self.parties = parties
    }

    /// Returns true when all parties arrived in time.
    func arriveAndWait(timeout: TimeInterval = 10) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived >= parties {
            condition.broadcast()
            return true
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while arrived < parties {
            if !condition.wait(until: deadline) {
                return arrived >= parties
            }
        }
        return true
    }
}
