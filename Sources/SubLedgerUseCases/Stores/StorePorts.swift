import SubLedgerCore
import SubLedgerStore

/// The stores this process speaks to, one port each: the one place a store is picked by `Store`.
public struct StorePorts: Sendable {
    /// The App Store (always: every app of the catalog may sell there).
    public var appStore: AppStorePort
    /// Google Play, when this process is configured for it.
    public var googlePlay: GooglePlayPort?
    /// Stripe, when this process is configured for it.
    public var stripe: StripePort?

    public init(appStore: AppStorePort, googlePlay: GooglePlayPort? = nil, stripe: StripePort? = nil) {
        self.appStore = appStore
        self.googlePlay = googlePlay
        self.stripe = stripe
    }

    /// The ledger as the ports write it: with the stored inputs' retry policy they were configured with (the
    /// backoff and the attempts before quarantine, `StoredInputRetry`), which the renewal job records failures under.
    public var ledger: LedgerStore { appStore.ingestion.store }

    /// The port of `store`; throws `app_misconfigured` when this process is not configured for it.
    public func port(for store: Store) throws -> any StorePort {
        switch store {
        case .appStore:
            return appStore
        case .googlePlay:
            guard let googlePlay else {
                throw IngestionError(
                    .appMisconfigured, "this process is not configured for Google Play (--google-play-api-url)")
            }
            return googlePlay
        case .stripe:
            guard let stripe else {
                throw IngestionError(.appMisconfigured, "this process has no port for Stripe")
            }
            return stripe
        }
    }

    /// The port of `store`, if this process is configured for it.
    public func configuredPort(for store: Store) -> (any StorePort)? {
        try? port(for: store)
    }

    /// Verifies and applies `submission` through its store's port.
    public func submit(_ submission: StoreSubmission, app: StoredApp) async throws -> SubmissionOutcome {
        try await port(for: submission.store).submit(submission, app: app)
    }

    /// Authenticates and applies `push` through its store's port.
    public func receive(_ push: StorePush) async throws -> PushOutcome {
        try await port(for: push.store).receive(push)
    }
}
