import GooglePlay
import SubLedgerCore
import SubLedgerUseCases

/// What one read from the Developer API adds to the ledger: the orders read, and for a subscription the chain's
/// renewal state.
///
/// The renewal state is the chain's, not the read token's: Google ends a token that another replaced (an upgrade,
/// downgrade or re-signup), so once a lineage has moved on to a newer token, the old token's state (auto-renew off,
/// expired) says nothing about the subscription, and the state is read from the newest token SubLedger knows.
struct GooglePlayReading: Sendable {
    /// The orders read: the read token's latest, and when the chain has moved on from it, the newest token's latest;
    /// then the lineage's earlier orders the ledger did not hold (`withEarlierOrders`), oldest first.
    var transactions: [Transaction]
    /// The chain's renewal state, when the product is a subscription.
    var renewalInfo: RenewalInfo?
    var environment: StoreEnvironment
    /// Google's answer for the newest token when its latest order joined the reading (`transactions[1]`), so that
    /// order's period can be read from Google's orders like the read token's.
    var newestTokenPurchase: (token: String, purchase: SubscriptionPurchaseV2)?

    /// One token's observation, as the chain's state.
    init(_ observation: GooglePlayObservation) {
        transactions = [observation.transaction]
        renewalInfo = observation.renewalInfo
        environment = observation.environment
    }
}
