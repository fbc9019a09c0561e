import SubLedgerCore
import SubLedgerStore

/// What a store is to SubLedger: how what arrives for it (an app's submission, `StoreSubmission`; the store's push, `StorePush`) is
/// verified and applied, how its stored inputs are verified again, how its notifications are applied again, and how
/// a chain it sold is read again from it.
///
/// Each store implements it once, in its own folder (`AppStorePort`, `GooglePlayPort`), and the jobs reach a store
/// only through `StorePorts`, whose switch over `Store` is exhaustive: a store added to `Store` does not compile
/// until it has a port. A store's wire formats, clients and words stay behind its port.
public protocol StorePort: Sendable {
    /// The store this port speaks for.
    var store: Store { get }

    /// Stores, verifies and applies a submission of this store for its account. Throws the ingestion's refusal
    /// (`IngestionError`); a submission the store could not be asked about is kept and verified again later.
    func submit(_ submission: StoreSubmission, app: StoredApp) async throws -> SubmissionOutcome

    /// Authenticates, stores (once per the store's notification id) and applies a push of this store. Throws the
    /// ingestion's refusal; a push the store could not be asked about is kept and applied again later.
    func receive(_ push: StorePush) async throws -> PushOutcome

    /// Throws `invalid_signature` unless `push` authenticates as this store's, reading nothing else of it (a default
    /// does nothing: a push signed in its body has no credential apart from it).
    func authenticate(_ push: StorePush) async throws

    /// Verifies and applies a stored submission of this store again (left `pending` or `retry`: the store was
    /// unavailable, or the request died). Throws the ingestion's refusal; the submission's row records it.
    func verifyStored(_ input: PollQueue.PendingInput, app: StoredApp) async throws

    /// Verifies and applies a stored notification of this store again; `true` when it applied, `false` when it was
    /// applied before.
    func applyStored(_ notification: PollQueue.PendingNotification, app: StoredApp) async throws -> Bool

    /// Wakes what this store's outage held back: submissions deferred because the store did not answer are made due
    /// at once when it answers again, instead of after their backoff (which grows to hours in a long outage). Asks
    /// the store at most once; the renewal job calls it once per cycle.
    func wakeDeferredInputs(now: Instant) async throws -> DeferredInputs

    /// Reads `chain`'s current state from the store and applies it with no submitter (the renewal job's check);
    /// `nil` when this process cannot check it (it is skipped and checked again later).
    func refresh(_ chain: PollQueue.DueChain, app: StoredApp) async throws -> LedgerStore.Applied?
}

extension StorePort {
    /// Throws `invalid_signature` unless `push` authenticates as this store's, reading nothing else of it: for a
    /// route that refuses a body before handing it to `receive` (a body that is not text), so that an unsigned body
    /// is refused as unsigned whatever it holds. By default nothing: a push signed in its body has no credential to
    /// check apart from it.
    public func authenticate(_ push: StorePush) async throws {}
}

/// The submissions of one store waiting for it to answer again, and how many of them one wake made due.
public struct DeferredInputs: Sendable, Hashable {
    /// Submissions deferred because the store did not answer (`subledger_stored_inputs_deferred`).
    public var deferred: Int
    /// Of those, the ones made due by this wake (0 when none wait or the store still does not answer).
    public var woken: Int

    public init(deferred: Int, woken: Int) {
        self.deferred = deferred
        self.woken = woken
    }
}
