import SubLedgerCore

/// The fields both of Apple's renewal formats (a `pending_renewal_info` entry, a signed StoreKit 2 renewal
/// info) hold under the same names; the one mapping to the core reads them through this.
protocol RenewalPayload {
    var originalTransactionID: String? { get }
    var productID: String? { get }
    var autoRenewProductID: String? { get }
    var autoRenewStatus: AutoRenewStatus? { get }
    var rawExpirationIntent: Int? { get }
    var isInBillingRetryPeriod: Bool? { get }
}

/// What a renewal format says that the other does not say the same way: with a `RenewalPayload`, the
/// input of the one mapping to the core's `RenewalInfo` (see `TransactionFields` for the idea).
struct RenewalFields {
    /// A format's names for the fields an error may name.
    struct Names {
        var originalTransactionID: String
        var productID: String
        var autoRenewProductID: String
        var gracePeriodExpiresDate: String

        /// `verifyReceipt`'s names.
        static let receipt = Names(
            originalTransactionID: "original_transaction_id", productID: "product_id",
            autoRenewProductID: "auto_renew_product_id", gracePeriodExpiresDate: "grace_period_expires_date_ms"
        )
        /// StoreKit 2's names (`JWSRenewalInfoDecodedPayload`).
        static let signed = Names(
            originalTransactionID: "originalTransactionId", productID: "productId",
            autoRenewProductID: "autoRenewProductId", gracePeriodExpiresDate: "gracePeriodExpiresDate"
        )
    }

    /// When the renewal state was observed.
    enum Observation {
        /// At a moment the caller knows (a receipt's request time).
        case at(Instant)
        /// At the payload's own `signedDate` (milliseconds since 1970), which must be present.
        case signedDate(Int64?)
    }

    var names: Names
    /// Milliseconds since 1970, as `renewalDate`.
    var gracePeriodExpiresDate: Int64?
    var priceIncreaseStatus: Int?
    var offerType: Int?
    var offerIdentifier: String?
    var renewalDate: Int64?
    /// StoreKit 2 only: the next renewal's price (milli-units), its currency and offer discount type.
    var renewalPrice: Int64? = nil
    var currency: String? = nil
    var offerDiscountType: String? = nil
    /// `nil` when the format states an environment this code does not know.
    var environment: StoreEnvironment?
    var observation: Observation

    /// StoreKit 2's `eligibleWinBackOfferIds`; receipts have none.
    var eligibleWinBackOfferIDs: [String]? = nil
    /// StoreKit 2's `renewalBillingPlanType` and `commitmentInfo`; receipts have none.
    var billingPlanType: String? = nil
    var commitmentInfo: RenewalCommitmentInfo? = nil

    /// The win-back offer ids kept: at most 20, each an offer identifier as App Store Connect allows (1 to 64
    /// printable ASCII characters); others are dropped, never a reason to refuse the renewal state.
    static func winBackOfferIDs(_ ids: [String]?) -> [String]? {
        guard let ids else { return nil }
        let kept = ids.filter { id in
            !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
        }
        return Array(kept.prefix(20))
    }

    /// The core's renewal state, after checking identifiers and dates.
    func coreRenewalInfo(of payload: some RenewalPayload) throws(PayloadMappingError) -> RenewalInfo {
        let originalTransactionID = try PayloadMappingError.identifier(
            payload.originalTransactionID, .transactionID, field: names.originalTransactionID)
        let productID = try PayloadMappingError.identifier(payload.productID, .productID, field: names.productID)
        let autoRenewProductID = try PayloadMappingError.optionalIdentifier(
            payload.autoRenewProductID, .productID, field: names.autoRenewProductID)
        if case .signedDate(nil) = observation { throw PayloadMappingError(.missingField, field: "signedDate") }
        guard let environment else { throw PayloadMappingError(.unknownEnvironment, field: "environment") }
        let gracePeriodExpiresDate = try Instant.appleIfPresent(
            gracePeriodExpiresDate, field: names.gracePeriodExpiresDate)
        let renewalDate = try Instant.appleIfPresent(renewalDate, field: "renewalDate")
        let observedAt: Instant
        switch observation {
        case .at(let instant): observedAt = instant
        case .signedDate(let milliseconds?): observedAt = try .apple(milliseconds, field: "signedDate")
        case .signedDate(nil): throw PayloadMappingError(.missingField, field: "signedDate")
        }
        return RenewalInfo(
            chainID: originalTransactionID,
            productID: productID,
            autoRenewProductID: autoRenewProductID,
            willAutoRenew: payload.autoRenewStatus == .on,
            expirationIntent: payload.rawExpirationIntent,
            isInBillingRetryPeriod: payload.isInBillingRetryPeriod ?? false,
            gracePeriodExpiresDate: gracePeriodExpiresDate,
            priceIncreaseStatus: priceIncreaseStatus,
            offerType: offerType,
            offerIdentifier: offerIdentifier,
            renewalDate: renewalDate,
            // As for a transaction's price: a price or code outside `RevenueFieldRules` is dropped, not refused,
            // so the renewal state it came with is still applied.
            renewalPrice: RevenueFieldRules.price(renewalPrice),
            currency: RevenueFieldRules.code(currency),
            offerDiscountType: RevenueFieldRules.offerDiscountType(offerDiscountType),
            eligibleWinBackOfferIDs: Self.winBackOfferIDs(eligibleWinBackOfferIDs),
            billingPlanType: BillingPlan.type(billingPlanType),
            commitment: commitmentInfo.map { info in
                RenewalCommitment(
                    willAutoRenew: info.rawCommitmentAutoRenewStatus == 1,
                    autoRenewProductID: info.commitmentAutoRenewProductID.flatMap {
                        IdentifierRule.productID.accepts($0) ? $0 : nil
                    },
                    billingPlanType: BillingPlan.type(info.rawCommitmentRenewalBillingPlanType),
                    renewalDate: info.commitmentRenewalDate.flatMap { Instant(acceptedMillisecondsSince1970: $0) },
                    renewalPrice: RevenueFieldRules.price(info.commitmentRenewalPrice))
            },
            environment: environment,
            observedAt: observedAt
        )
    }
}
