/// What only Apple's signed transactions (StoreKit 2, notifications V2, the Server API) state about a
/// transaction, and what never changes for it once Apple has stated it: the price, its currency, the storefront,
/// the app transaction id, and a commitment plan's billing plan and commitment. A receipt's copy of the same transaction states none of them, so the newest
/// version of a transaction (`KnownTransaction.transaction`) may lack what an earlier signed version said.
///
/// `KnownTransaction.signedDetails` keeps them apart from the newest version: the details of the latest
/// observation that stated any (a maximum over a total order: observation time, nil lowest, then a fixed
/// order of the values), so they survive a later receipt and inputs in any order agree.
public struct SignedTransactionDetails: Hashable, Sendable, Codable {
    /// Apple's price in milli-units of `currency`.
    public var price: Int64?
    public var currency: String?
    public var storefront: String?
    /// Apple's `appTransactionId`: the customer's download of the app, one per Apple Account and app.
    public var appTransactionID: String?
    /// Apple's `billingPlanType` and `commitmentInfo` of a commitment plan's transaction.
    public var billingPlanType: String?
    public var commitment: TransactionCommitment?
    /// When the version stating them was produced (its signed date, else the input's observation time).
    public var observedAt: Instant?

    public init(
        price: Int64? = nil, currency: String? = nil, storefront: String? = nil, appTransactionID: String? = nil,
        billingPlanType: String? = nil, commitment: TransactionCommitment? = nil, observedAt: Instant? = nil
    ) {
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.appTransactionID = appTransactionID
        self.billingPlanType = billingPlanType
        self.commitment = commitment
        self.observedAt = observedAt
    }

    /// The details `version` states, observed at `observedAt`; `nil` when it states none (a receipt).
    public init?(of version: Transaction, observedAt: Instant?) {
        guard
            version.price != nil || version.currency != nil || version.storefront != nil
                || version.appTransactionID != nil || version.billingPlanType != nil || version.commitment != nil
        else { return nil }
        self.init(
            price: version.price, currency: version.currency, storefront: version.storefront,
            appTransactionID: version.appTransactionID, billingPlanType: version.billingPlanType,
            commitment: version.commitment, observedAt: observedAt)
    }

    /// The later of two statements (nil: none); at the same time, a fixed choice that never depends on arrival.
    static func later(_ lhs: Self?, _ rhs: Self?) -> Self? {
        guard let lhs else { return rhs }
        guard let rhs else { return lhs }
        switch (lhs.observedAt, rhs.observedAt) {
        case (let left?, let right?) where left != right: return left < right ? rhs : lhs
        case (nil, .some): return rhs
        case (.some, nil): return lhs
        default: return String(describing: lhs) < String(describing: rhs) ? rhs : lhs
        }
    }
}
