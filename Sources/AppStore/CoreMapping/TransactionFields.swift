import SubLedgerCore

/// The fields both of Apple's transaction formats (a `verifyReceipt` entry, a signed StoreKit 2
/// transaction) hold under the same names; the one mapping to the core reads them through this.
protocol TransactionPayload {
    var transactionID: String? { get }
    var originalTransactionID: String? { get }
    var productID: String? { get }
    var quantity: Int? { get }
    var webOrderLineItemID: String? { get }
    var subscriptionGroupIdentifier: String? { get }
    var isUpgraded: Bool? { get }
    var inAppOwnershipType: InAppOwnershipType? { get }
    var appAccountToken: String? { get }
}

/// What a transaction format says that the other does not say the same way, with its own spelling of
/// each checked field's name (`transaction_id` or `transactionId`): with a `TransactionPayload`, the input
/// of the one mapping to the core's `Transaction`, so the identifier, date-range and code checks, the
/// defaults and the errors live here once instead of once per format.
struct TransactionFields {
    /// A format's names for the fields an error may name (errors name the field, never its value).
    struct Names {
        var transactionID: String
        var originalTransactionID: String
        var productID: String
        var purchaseDate: String
        var originalPurchaseDate: String
        var expiresDate: String
        var revocationDate: String
        var revocationReason: String

        /// `verifyReceipt`'s names.
        static let receipt = Names(
            transactionID: "transaction_id", originalTransactionID: "original_transaction_id",
            productID: "product_id", purchaseDate: "purchase_date_ms",
            originalPurchaseDate: "original_purchase_date_ms", expiresDate: "expires_date_ms",
            revocationDate: "cancellation_date_ms", revocationReason: "cancellation_reason"
        )
        /// StoreKit 2's names (`JWSTransactionDecodedPayload`).
        static let signed = Names(
            transactionID: "transactionId", originalTransactionID: "originalTransactionId", productID: "productId",
            purchaseDate: "purchaseDate", originalPurchaseDate: "originalPurchaseDate", expiresDate: "expiresDate",
            revocationDate: "revocationDate", revocationReason: "revocationReason"
        )
    }

    var names: Names
    var bundleID: String?
    /// Milliseconds since 1970, as every date below.
    var purchaseDate: Int64?
    var originalPurchaseDate: Int64?
    var expiresDate: Int64?
    var revocationDate: Int64?
    var revocationReason: Int?
    /// StoreKit 2's `revocationPercentage`; receipts have none. Out of range: dropped (the refund counts whole).
    var revocationPercentage: Int? = nil
    var isTrialPeriod: Bool
    var isInIntroOfferPeriod: Bool
    var offerType: Int?
    var offerIdentifier: String?
    var offerDiscountType: String?
    /// `nil` when the format states an environment this code does not know.
    var environment: StoreEnvironment?
    var rawProductType: String?
    var price: Int64?
    var currency: String?
    var storefront: String?
    /// StoreKit 2's `signedDate`; receipts have none.
    var signedDate: Int64?
    /// StoreKit 2's `appTransactionId`; receipts have none. Not an identifier (`IdentifierRule.transactionID`):
    /// dropped, the transaction kept.
    var appTransactionID: String? = nil
    /// StoreKit 2's `billingPlanType` and `commitmentInfo`; receipts have none. Unknown or out of range: dropped.
    var billingPlanType: String? = nil
    var commitmentInfo: TransactionCommitmentInfo? = nil

    /// The core's transaction, after checking identifiers (`IdentifierRule`), dates (1970-9999) and codes.
    func coreTransaction(
        of payload: some TransactionPayload, source: TransactionSource
    ) throws(PayloadMappingError) -> Transaction {
        let transactionID = try PayloadMappingError.identifier(
            payload.transactionID, .transactionID, field: names.transactionID)
        let originalTransactionID = try PayloadMappingError.optionalIdentifier(
            payload.originalTransactionID, .transactionID, field: names.originalTransactionID)
        let productID = try PayloadMappingError.identifier(payload.productID, .productID, field: names.productID)
        guard let purchaseDate else { throw PayloadMappingError(.missingField, field: names.purchaseDate) }
        guard let environment else { throw PayloadMappingError(.unknownEnvironment, field: "environment") }
        return Transaction(
            transactionID: transactionID,
            // A first purchase is its own original; Apple always sends both, but never fail for that.
            chainID: originalTransactionID ?? transactionID,
            productID: productID,
            bundleID: bundleID,
            quantity: payload.quantity ?? 1,
            purchaseDate: try .apple(purchaseDate, field: names.purchaseDate),
            originalPurchaseDate: try .appleIfPresent(originalPurchaseDate, field: names.originalPurchaseDate),
            expiresDate: try .appleIfPresent(expiresDate, field: names.expiresDate),
            revocationDate: try .appleIfPresent(revocationDate, field: names.revocationDate),
            revocationReason: try PayloadMappingError.code(revocationReason, field: names.revocationReason),
            revocationPercentage: RevocationPercentage.checked(revocationPercentage),
            webOrderLineItemID: payload.webOrderLineItemID,
            subscriptionGroupID: payload.subscriptionGroupIdentifier,
            isTrialPeriod: isTrialPeriod,
            isInIntroOfferPeriod: isInIntroOfferPeriod,
            offerType: offerType,
            offerIdentifier: offerIdentifier,
            offerDiscountType: offerDiscountType,
            isUpgraded: payload.isUpgraded ?? false,
            ownershipType: payload.inAppOwnershipType == .familyShared ? .familyShared : .purchased,
            accountHint: payload.appAccountToken,
            environment: environment,
            source: source,
            rawProductType: rawProductType,
            // A price, currency or storefront outside `RevenueFieldRules` is dropped, not refused: the
            // transaction still grants what it paid for, and reports show it unpriced (docs/explanation/revenue.md).
            price: RevenueFieldRules.price(price),
            currency: RevenueFieldRules.code(currency),
            storefront: RevenueFieldRules.code(storefront),
            signedDate: try .appleIfPresent(signedDate, field: "signedDate"),
            appTransactionID: appTransactionID.flatMap { IdentifierRule.transactionID.accepts($0) ? $0 : nil },
            billingPlanType: BillingPlan.type(billingPlanType),
            commitment: commitmentInfo.flatMap {
                TransactionCommitment.checked(
                    billingPeriodNumber: $0.billingPeriodNumber, totalBillingPeriods: $0.totalBillingPeriods,
                    expiresMilliseconds: $0.commitmentExpiresDate, price: $0.commitmentPrice)
            }
        )
    }
}
