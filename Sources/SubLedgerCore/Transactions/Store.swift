/// The store that sold a transaction. One app of the catalog may sell in several: its products say which store
/// sells each (`Product.store`), and a chain belongs to the store of its transactions.
public enum Store: String, Hashable, Sendable, Codable, CaseIterable {
    /// Apple's App Store (receipts, StoreKit 2, Server Notifications, the App Store Server API).
    case appStore = "app_store"
    /// Google Play Billing (the Google Play Developer API and real-time developer notifications).
    case googlePlay = "google_play"
    /// Stripe Billing: the app's own web checkout (Checkout Sessions, subscriptions and their paid invoices, read
    /// back from the Stripe API after its signed webhooks).
    case stripe = "stripe"
    /// Paddle Billing: a merchant of record's web checkout (transactions and subscriptions read back from the Paddle
    /// API after its signed webhooks); Paddle collects the tax and states its fee and the seller's earnings.
    case paddle = "paddle"
}

extension Store {
    /// The store's name as an operator reads it on a page or in a report: "App Store", "Google Play", "Stripe".
    public var displayName: String {
        switch self {
        case .appStore: "App Store"
        case .googlePlay: "Google Play"
        case .stripe: "Stripe"
        case .paddle: "Paddle"
        }
    }

    /// Whether the store takes a commission on each sale, at its own rates (`Commission`): the App Store and Google
    /// Play. A web checkout's processor (Stripe) or merchant of record (Paddle) takes none; it states its fee, the tax
    /// and any partial refund on each sale (`TransactionSource.statingFees`), and the reports read them as stated.
    public var takesCommission: Bool {
        switch self {
        case .appStore, .googlePlay: true
        case .stripe, .paddle: false
        }
    }

    /// Whether each version of a transaction read from the store's API states its revocation, so a version without
    /// one says it is not revoked (`TransactionSource.statesRevocation`). Apple's sources do. Google's purchase
    /// resources never state one (voids are listed apart, in voided purchases, and Google never takes one back).
    /// Stripe's are read whole each time (the invoice's payment with its refunds and disputes), so a clean version
    /// says a lost dispute was not lost after all; Paddle's likewise (the transaction with its adjustments).
    public var statesRevocationOnEveryRead: Bool {
        switch self {
        case .appStore, .stripe, .paddle: true
        case .googlePlay: false
        }
    }

    /// Whether a subscription chain's first purchase is told by its period, not its id: the chain is the
    /// subscription and each paid bill a transaction with an id of its own, so the first is the one whose period
    /// begins at the chain's start (`Transaction.startsChain`). Stripe's invoices, Paddle's transactions. The App
    /// Store's and Google Play's
    /// first transaction carries the chain's id.
    public var tellsFirstPurchaseByPeriod: Bool {
        switch self {
        case .stripe, .paddle: true
        case .appStore, .googlePlay: false
        }
    }

    /// Whether the store gives the customer money back for the unused part of a period that a new purchase of the
    /// same chain replaced before it ended (`RevenueSale`'s upgrade credit). Apple does: an upgrade within a group
    /// takes effect at once and refunds the rest of the old period. Google Play gives none: a replacement carries the
    /// old period's remaining value over as time on the new one (`CHARGE_FULL_PRICE`, `WITH_TIME_PRORATION`) or
    /// starts when the old one ends. Stripe states a proration on the next invoice, whose amount paid already counts
    /// it; Paddle on the next transaction likewise.
    public var refundsUnusedTimeOnReplacement: Bool {
        switch self {
        case .appStore: true
        case .googlePlay, .stripe, .paddle: false
        }
    }
}
