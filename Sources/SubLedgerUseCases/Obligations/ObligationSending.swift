import SubLedgerCore
import SubLedgerStore

/// A store's side of the obligation sender: makes one obligation's call to its store and says how it went. The
/// sender owns everything else (claiming, leases, the retry policy, recording, metrics), the same for every store.
public protocol ObligationSending: Sendable {
    /// The store whose obligations this sends.
    var store: Store { get }

    /// Makes `due`'s call for `app` once, at `now`; never throws (a failure is an attempt's outcome).
    func send(_ due: StoreObligationStore.Due, app: StoredApp, now: Instant) async -> ObligationAttempt
}

/// How one call to a store went, as its adapter tells the sender.
public enum ObligationAttempt: Sendable, Hashable {
    /// The store accepted it; `appAccountToken` is the token a Set App Account Token sent.
    case sent(appAccountToken: String? = nil)
    /// Not done, for a reason that may pass (5xx, 429, a timeout, the store not called now, credentials missing or
    /// refused, which the operator can fix): tried again after the sender's backoff, and not before `notBefore`
    /// when the store said when. A nil `httpStatus` means the store was not called.
    case transient(httpStatus: Int? = nil, storeErrorCode: Int? = nil, detail: String, notBefore: Instant? = nil)
    /// The store refused it for good, or it cannot be sent at all: never tried again.
    case refused(httpStatus: Int? = nil, storeErrorCode: Int? = nil, detail: String)
    /// Nothing was owed after all (a consumption answer without the customer's consent, or with the app's policy
    /// off): the store was not called, and will not be.
    case skipped(detail: String)
}
