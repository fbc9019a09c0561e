import SubLedgerCore

/// A one-time purchase as read back from the Stripe API: the payment intent a `payment`-mode Checkout Session
/// created, the charge that paid it (its balance transaction expanded), and what was refunded or disputed of that
/// charge since. This, not an event's snapshot, is what the ledger applies.
public struct StripePaymentReading: Sendable, Hashable {
    public var paymentIntent: StripePaymentIntent
    /// The payment intent's latest charge; `nil` while nothing was charged.
    public var charge: StripeCharge?
    /// The charge's refunds (read when the charge states an amount refunded).
    public var refunds: [StripeRefund]
    /// The charge's disputes (read when the charge states it is disputed).
    public var disputes: [StripeDispute]
    /// The Checkout Session that made the payment intent, which states the purchase's tax
    /// (`total_details.amount_tax`); `nil` when it was not read (a payment made outside Checkout).
    public var session: StripeCheckoutSession?

    public init(
        paymentIntent: StripePaymentIntent, charge: StripeCharge? = nil, refunds: [StripeRefund] = [],
        disputes: [StripeDispute] = [], session: StripeCheckoutSession? = nil
    ) {
        self.paymentIntent = paymentIntent
        self.charge = charge
        self.refunds = refunds
        self.disputes = disputes
        self.session = session
    }

    /// The tax the Checkout Session states (`total_details.amount_tax`) in milli-units of the charge's currency;
    /// `nil` without the session, when it states no tax, is in another currency, or states a tax out of range
    /// (negative, or more than the charge).
    public var taxMilliunits: Int64? {
        guard let session, let charge, let tax = session.totalDetails?.amountTax, tax >= 0, tax <= charge.amount,
            session.currency.map({ $0.lowercased() == charge.currency.lowercased() }) ?? true
        else { return nil }
        return StripeCurrency.milliunits(tax, currency: charge.currency)
    }

    /// The payment intent's metadata key SubLedger writes the product into when it starts a one-time checkout: a
    /// payment intent states no line items, and Stripe keeps its metadata with it.
    public static let productMetadataKey = "subledger_product"

    /// The app the payment names in its metadata, if it names one.
    public var bundleID: String? { paymentIntent.metadata[StripeSubscriptionReading.appMetadataKey] }

    /// The product the payment names in its metadata: `nil` for a payment SubLedger did not start (another sale
    /// of the same Stripe account), which is not the ledger's.
    public var productID: String? { paymentIntent.metadata[Self.productMetadataKey] }

    /// This reading in the ledger's terms: one transaction, or `nil` while the payment has not succeeded.
    ///
    /// - The chain and the transaction are the payment intent (`pi_…`), the product the one its metadata names; the
    ///   purchase date is the charge's. The catalog's type of the product decides what it grants: an entitlement
    ///   without end (non-consumable), one for the catalog's duration (non-renewing), or credits (consumable).
    /// - The price is the charge's amount in milli-units (Stripe's minor units per currency, zero-decimal ones
    ///   included); Stripe's fee is the charge's balance transaction's, when that was read; the tax is the Checkout
    ///   Session's (`total_details.amount_tax`), when the session was read.
    /// - A charge refunded in full, or a dispute lost, revokes the purchase (at the latest refund, or when the dispute
    ///   was opened); a partial refund keeps it, as it keeps a subscription's period. A dispute won restores it.
    /// - `subledger_order` in the metadata is the account hint; live mode is `production`, test mode `sandbox`.
    /// - The transaction names the customer (`cus_…`, when the session made or was given one) and the charge
    ///   (`ch_…`), which support looks purchases up by.
    public func observation() throws(StripeMappingError) -> Transaction? {
        let intent = paymentIntent
        guard intent.status == "succeeded" else { return nil }
        guard IdentifierRule.transactionID.accepts(intent.id) else { throw StripeMappingError(.invalidField, "id") }
        guard let product = productID else {
            throw StripeMappingError(.missingField, "metadata.\(Self.productMetadataKey)")
        }
        guard IdentifierRule.productID.accepts(product) else {
            throw StripeMappingError(.invalidField, "metadata.\(Self.productMetadataKey)")
        }
        guard let charge else { throw StripeMappingError(.missingField, "latest_charge") }
        guard charge.status == nil || charge.status == "succeeded" else {
            throw StripeMappingError(.invalidField, "latest_charge.status")
        }
        guard StripeCurrency.isCode(charge.currency) else { throw StripeMappingError(.invalidField, "charge.currency") }
        guard charge.amount >= 0, let price = StripeCurrency.milliunits(charge.amount, currency: charge.currency)
        else { throw StripeMappingError(.invalidField, "charge.amount") }
        let purchased = try StripeSubscriptionReading.instant(charge.created, "charge.created")
        let revocation = try StripeSubscriptionReading.revocation(charge: charge, refunds: refunds, disputes: disputes)
        let partialRefunds =
            revocation == nil
            ? try StripeSubscriptionReading.partialRefunds(charge: charge, refunds: refunds, currency: charge.currency)
            : nil
        let accountHint = intent.metadata[StripeSubscriptionReading.orderMetadataKey].flatMap {
            $0.isEmpty ? nil : String($0.prefix(255))
        }
        // Kept for support's lookups; an id no identifier could be is left out rather than refused.
        let customer = intent.customer.map(\.id).flatMap { IdentifierRule.transactionID.accepts($0) ? $0 : nil }
        return Transaction(
            transactionID: intent.id, chainID: intent.id, productID: product, bundleID: bundleID,
            purchaseDate: purchased, originalPurchaseDate: purchased, revocationDate: revocation,
            revocationReason: revocation == nil ? nil : 0, accountHint: accountHint,
            environment: intent.livemode ? .production : .sandbox, source: .stripeAPI, price: price,
            currency: charge.currency.uppercased(), processingFee: charge.feeMilliunits, tax: taxMilliunits,
            partialRefunds: partialRefunds, customerID: customer,
            paymentID: IdentifierRule.transactionID.accepts(charge.id) ? charge.id : nil)
    }
}
