import SubLedgerCore
import Synchronization

/// How many `verifyReceipt` requests each environment's endpoint received since the simulator started, so a test
/// can check which endpoint a caller asks first: `GET /control/verify-receipt-requests`.
final class VerifyReceiptRequests: Sendable {
    private let counts = Mutex<[StoreEnvironment: Int]>([:])

    func record(_ environment: StoreEnvironment) {
        counts.withLock { $0[environment, default: 0] += 1 }
    }

    /// The counts, both environments always present.
    var all: [String: Int] {
        counts.withLock { counts in
            ["production": counts[.production, default: 0], "sandbox": counts[.sandbox, default: 0]]
        }
    }
}
