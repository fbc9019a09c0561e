import SubLedgerCore

/// The answer to a customer support lookup (`subledger support ...`, `/v1/admin/lookup/...`, the admin page's
/// search): who owns what the customer names, where it stands now, what happened to it, and what to tell the
/// customer.
///
/// A plain value (strings and dates), so the service builds it from the ledger and Apple, and the reports
/// module renders it as a table, JSON or HTML without knowing either.
public struct SupportAnswer: Sendable, Hashable, Codable {
    /// What the query named.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Apple's order id from the customer's invoice e-mail (`MK5TTTVWJH`), through Look Up Order ID.
        case order
        /// A transaction id or an original transaction id.
        case transaction
        /// SubLedger's order token, the UUID the app passed to StoreKit as `appAccountToken`.
        case appAccountToken = "app_account_token"
        /// The app's own account id.
        case account
        /// Apple's `appTransactionId`: the customer's download or purchase of the app itself.
        case appTransaction = "app_transaction"
        /// A Google Play purchase token.
        case purchaseToken = "purchase_token"
        /// A Stripe customer (`cus_…`), subscription (`sub_…`), invoice (`in_…`), charge (`ch_…`) or payment intent
        /// (`pi_…`, a one-time purchase).
        case stripeCustomer = "stripe_customer"
        case stripeSubscription = "stripe_subscription"
        case stripeInvoice = "stripe_invoice"
        case stripeCharge = "stripe_charge"
        case stripePaymentIntent = "stripe_payment_intent"
    }

    /// Who owns an app purchase (`POST /v1/app-transactions`), for a lookup by app transaction id.
    public struct AppPurchase: Sendable, Hashable, Codable {
        /// One account's claim of the app purchase.
        public struct Claim: Sendable, Hashable, Codable {
            public var accountID: String
            public var claimedAt: Instant

            public init(accountID: String, claimedAt: Instant) {
                self.accountID = accountID
                self.claimedAt = claimedAt
            }
        }

        public var appTransactionID: String
        public var environment: String
        /// The account of the latest claim.
        public var ownerAccountID: String
        public var originalPurchaseDate: Instant?
        public var preorderDate: Instant?
        /// Every claim, oldest first.
        public var claims: [Claim]

        public init(
            appTransactionID: String, environment: String, ownerAccountID: String, originalPurchaseDate: Instant?,
            preorderDate: Instant?, claims: [Claim]
        ) {
            self.appTransactionID = appTransactionID
            self.environment = environment
            self.ownerAccountID = ownerAccountID
            self.originalPurchaseDate = originalPurchaseDate
            self.preorderDate = preorderDate
            self.claims = claims
        }
    }

    /// An entitlement granted to the account by hand (docs/guides/accounts.md, "Granted entitlements").
    public struct Grant: Sendable, Hashable, Codable {
        public var grantID: String
        public var entitlementID: String
        public var environment: String
        public var startsAt: Instant
        /// The end as granted (access ends at `revokedAt` when earlier).
        public var endsAt: Instant
        public var revokedAt: Instant?
        public var grantedBy: String
        public var revokedBy: String?
        public var reason: String

        public init(
            grantID: String, entitlementID: String, environment: String, startsAt: Instant, endsAt: Instant,
            revokedAt: Instant?, grantedBy: String, revokedBy: String?, reason: String
        ) {
            self.grantID = grantID
            self.entitlementID = entitlementID
            self.environment = environment
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.revokedAt = revokedAt
            self.grantedBy = grantedBy
            self.revokedBy = revokedBy
            self.reason = reason
        }
    }

    /// One period during which an account owned a chain.
    public struct Ownership: Sendable, Hashable, Codable {
        public var accountID: String
        /// The previous owner, for a transfer.
        public var fromAccountID: String?
        /// `first_claim` or the transfer rule that moved it.
        public var reason: String
        public var startedAt: Instant
        public var endedAt: Instant?

        public init(accountID: String, fromAccountID: String?, reason: String, startedAt: Instant, endedAt: Instant?) {
            self.accountID = accountID
            self.fromAccountID = fromAccountID
            self.reason = reason
            self.startedAt = startedAt
            self.endedAt = endedAt
        }
    }

    /// One chain the query leads to, as it stands now.
    public struct Chain: Sendable, Hashable, Codable {
        public var environment: String
        /// The store that sold the chain: `app_store` or `google_play`.
        public var store: String
        public var originalTransactionID: String
        public var productID: String
        public var productType: String
        /// The current owner; `nil` while unclaimed.
        public var ownerAccountID: String?
        /// `active`, `grace_period`, `billing_retry`, `expired`, `revoked` or `upgraded_away`, now.
        public var state: String
        public var expirationReason: String?
        /// The end of the current (or last) period.
        public var expiresAt: Instant?
        public var willAutoRenew: Bool?
        /// When the latest transaction's refund or revocation took effect, if it is in force.
        public var revokedAt: Instant?
        /// The accounts whose submissions carried the chain, in order of first submission.
        public var submittedBy: [String]
        /// Every owner it had, oldest first (claim, then transfers).
        public var ownership: [Ownership]
        /// What to tell the customer about this chain.
        public var advice: String

        public init(
            environment: String, store: String, originalTransactionID: String, productID: String, productType: String,
            ownerAccountID: String?, state: String, expirationReason: String?, expiresAt: Instant?,
            willAutoRenew: Bool?,
            revokedAt: Instant?, submittedBy: [String], ownership: [Ownership], advice: String
        ) {
            self.environment = environment
            self.store = store
            self.originalTransactionID = originalTransactionID
            self.productID = productID
            self.productType = productType
            self.ownerAccountID = ownerAccountID
            self.state = state
            self.expirationReason = expirationReason
            self.expiresAt = expiresAt
            self.willAutoRenew = willAutoRenew
            self.revokedAt = revokedAt
            self.submittedBy = submittedBy
            self.ownership = ownership
            self.advice = advice
        }
    }

    /// SubLedger's order behind an app account token.
    public struct Order: Sendable, Hashable, Codable {
        public var orderID: String
        /// The account that created the order (who was signed in when buying).
        public var accountID: String
        public var productID: String
        /// `pending` or `fulfilled`.
        public var state: String
        public var fulfilledTransactionID: String?

        public init(
            orderID: String, accountID: String, productID: String, state: String, fulfilledTransactionID: String?
        ) {
            self.orderID = orderID
            self.accountID = accountID
            self.productID = productID
            self.state = state
            self.fulfilledTransactionID = fulfilledTransactionID
        }
    }

    /// What Apple said, when Apple was asked (order ids always; transaction ids unknown to the ledger).
    public struct AppleRecord: Sendable, Hashable, Codable {
        /// The environment in which Apple knew the id.
        public var environment: String
        /// The transactions Apple returned.
        public var transactionIDs: [String]
        /// Those the ledger did not hold when asked.
        public var unrecordedTransactionIDs: [String]
        /// Whether the unrecorded transactions were applied now (`--apply`, `?apply=true`).
        public var applied: Bool

        // `convertToSnakeCase` would write `transactionIDs` as `transaction_i_ds`.
        enum CodingKeys: String, CodingKey {
            case environment, applied
            case transactionIDs = "transactionIds"
            case unrecordedTransactionIDs = "unrecordedTransactionIds"
        }

        public init(environment: String, transactionIDs: [String], unrecordedTransactionIDs: [String], applied: Bool) {
            self.environment = environment
            self.transactionIDs = transactionIDs
            self.unrecordedTransactionIDs = unrecordedTransactionIDs
            self.applied = applied
        }
    }

    public var kind: Kind
    /// The id as looked up (normalized: an order id upper-cased, a token lower-cased).
    public var query: String
    public var bundleID: String
    /// The instant the states are evaluated at.
    public var at: Instant
    /// The account the answer is about: the one looked up, the order's, or the owner of the first chain.
    public var accountID: String?
    public var order: Order?
    /// The app purchases an app transaction id names, per environment (lookups by app transaction id only).
    public var appPurchases: [AppPurchase]? = nil
    /// The account's grants, revoked and ended ones included, oldest first (account lookups, when it has any).
    public var grants: [Grant]? = nil
    public var apple: AppleRecord?
    public var chains: [Chain]
    /// What the customer should be told, in one or two plain sentences.
    public var advice: String
    /// The ledger timeline of the chains (or of the account), oldest first.
    public var timeline: [TimelineEvent]

    public init(
        kind: Kind, query: String, bundleID: String, at: Instant, accountID: String?, order: Order?,
        apple: AppleRecord?,
        chains: [Chain], advice: String, timeline: [TimelineEvent]
    ) {
        self.kind = kind
        self.query = query
        self.bundleID = bundleID
        self.at = at
        self.accountID = accountID
        self.order = order
        self.apple = apple
        self.chains = chains
        self.advice = advice
        self.timeline = timeline
    }
}
