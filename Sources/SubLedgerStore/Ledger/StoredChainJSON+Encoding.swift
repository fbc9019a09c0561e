import SubLedgerCore

/// Writing the stored chain's types exactly as their synthesized `Codable` conformances did through
/// `JSONEncoder` with `.sortedKeys`: one member per stored property, in sorted order, an optional that is
/// `nil` left out, an `Instant` as its milliseconds, an enum as its raw value, an account id as its string.
extension JSONWriter {
    mutating func write(_ chain: SubscriptionChain) {
        beginObject()
        key("bundleID")
        string(chain.bundleID)
        key("key")
        write(chain.key)
        if let latestExpiry = chain.latestExpiry {
            key("latestExpiry")
            integer(latestExpiry.millisecondsSince1970)
        }
        if let owner = chain.owner {
            key("owner")
            string(owner.rawValue)
        }
        key("productID")
        string(chain.productID)
        key("productType")
        string(chain.productType.rawValue)
        if let renewalInfo = chain.renewalInfo {
            key("renewalInfo")
            write(renewalInfo)
        }
        optional("subscriptionGroupID", chain.subscriptionGroupID)
        endObject()
    }

    mutating func write(_ key: ChainKey) {
        beginObject()
        self.key("environment")
        string(key.environment.rawValue)
        self.key("originalTransactionID")
        string(key.chainID)
        endObject()
    }

    mutating func write(_ renewal: RenewalInfo) {
        beginObject()
        optional("autoRenewProductID", renewal.autoRenewProductID)
        optional("billingPlanType", renewal.billingPlanType)
        if let commitment = renewal.commitment {
            key("commitment")
            write(commitment)
        }
        optional("currency", renewal.currency)
        if let ids = renewal.eligibleWinBackOfferIDs {
            key("eligibleWinBackOfferIDs")
            beginArray()
            for id in ids { string(id) }
            endArray()
        }
        key("environment")
        string(renewal.environment.rawValue)
        optional("expirationIntent", renewal.expirationIntent)
        optional("gracePeriodExpiresDate", renewal.gracePeriodExpiresDate)
        key("isInBillingRetryPeriod")
        bool(renewal.isInBillingRetryPeriod)
        key("observedAt")
        integer(renewal.observedAt.millisecondsSince1970)
        optional("offerDiscountType", renewal.offerDiscountType)
        optional("offerIdentifier", renewal.offerIdentifier)
        optional("offerType", renewal.offerType)
        key("originalTransactionID")
        string(renewal.chainID)
        optional("priceIncreaseStatus", renewal.priceIncreaseStatus)
        key("productID")
        string(renewal.productID)
        optional("renewalDate", renewal.renewalDate)
        if let renewalPrice = renewal.renewalPrice {
            key("renewalPrice")
            integer(renewalPrice)
        }
        key("willAutoRenew")
        bool(renewal.willAutoRenew)
        endObject()
    }

    mutating func write(_ known: KnownTransaction) {
        beginObject()
        if let account = known.account {
            key("account")
            string(account.rawValue)
        }
        optional("lastUnrevokedObservationAt", known.lastUnrevokedObservationAt)
        optional("observedAt", known.observedAt)
        key("revocations")
        beginArray()
        for revocation in known.revocations { write(revocation) }
        endArray()
        if let details = known.signedDetails {
            key("signedDetails")
            write(details)
        }
        key("transaction")
        write(known.transaction)
        endObject()
    }

    mutating func write(_ revocation: ObservedRevocation) {
        beginObject()
        key("isFamilySharing")
        bool(revocation.isFamilySharing)
        optional("lastObservedAt", revocation.lastObservedAt)
        key("revocationDate")
        integer(revocation.revocationDate.millisecondsSince1970)
        optional("revocationPercentage", revocation.revocationPercentage)
        optional("revocationPercentageObservedAt", revocation.revocationPercentageObservedAt)
        optional("revocationReason", revocation.revocationReason)
        endObject()
    }

    mutating func write(_ commitment: TransactionCommitment) {
        beginObject()
        key("billingPeriodNumber")
        integer(Int64(commitment.billingPeriodNumber))
        key("expiresDate")
        integer(commitment.expiresDate.millisecondsSince1970)
        if let price = commitment.price {
            key("price")
            integer(price)
        }
        key("totalBillingPeriods")
        integer(Int64(commitment.totalBillingPeriods))
        endObject()
    }

    mutating func write(_ refund: PartialRefund) {
        beginObject()
        key("amount")
        integer(refund.amount)
        key("date")
        integer(refund.date.millisecondsSince1970)
        if let fee = refund.fee {
            key("fee")
            integer(fee)
        }
        if let earnings = refund.payoutEarnings {
            key("payoutEarnings")
            integer(earnings)
        }
        endObject()
    }

    mutating func write(_ payout: StatedPayout) {
        beginObject()
        key("currency")
        string(payout.currency)
        key("earnings")
        integer(payout.earnings)
        key("fee")
        integer(payout.fee)
        if let refunded = payout.refundedEarnings {
            key("refundedEarnings")
            integer(refunded)
        }
        key("tax")
        integer(payout.tax)
        key("total")
        integer(payout.total)
        endObject()
    }

    mutating func write(_ commitment: RenewalCommitment) {
        beginObject()
        optional("autoRenewProductID", commitment.autoRenewProductID)
        optional("billingPlanType", commitment.billingPlanType)
        optional("renewalDate", commitment.renewalDate)
        if let price = commitment.renewalPrice {
            key("renewalPrice")
            integer(price)
        }
        key("willAutoRenew")
        bool(commitment.willAutoRenew)
        endObject()
    }

    mutating func write(_ details: SignedTransactionDetails) {
        beginObject()
        optional("appTransactionID", details.appTransactionID)
        optional("billingPlanType", details.billingPlanType)
        if let commitment = details.commitment {
            key("commitment")
            write(commitment)
        }
        optional("currency", details.currency)
        optional("observedAt", details.observedAt)
        if let price = details.price {
            key("price")
            integer(price)
        }
        optional("storefront", details.storefront)
        endObject()
    }

    mutating func write(_ transaction: Transaction) {
        beginObject()
        optional("appAccountToken", transaction.accountHint)
        optional("appTransactionID", transaction.appTransactionID)
        optional("applicationUsername", transaction.applicationUsername)
        optional("billingPlanType", transaction.billingPlanType)
        optional("bundleID", transaction.bundleID)
        if let commitment = transaction.commitment {
            key("commitment")
            write(commitment)
        }
        optional("currency", transaction.currency)
        optional("customerID", transaction.customerID)
        key("environment")
        string(transaction.environment.rawValue)
        optional("expiresDate", transaction.expiresDate)
        key("isInIntroOfferPeriod")
        bool(transaction.isInIntroOfferPeriod)
        key("isTrialPeriod")
        bool(transaction.isTrialPeriod)
        key("isUpgraded")
        bool(transaction.isUpgraded)
        optional("offerDiscountType", transaction.offerDiscountType)
        optional("offerIdentifier", transaction.offerIdentifier)
        optional("offerType", transaction.offerType)
        optional("originalPurchaseDate", transaction.originalPurchaseDate)
        key("originalTransactionID")
        string(transaction.chainID)
        key("ownershipType")
        string(transaction.ownershipType.rawValue)
        if let refunds = transaction.partialRefunds {
            key("partialRefunds")
            beginArray()
            for refund in refunds { write(refund) }
            endArray()
        }
        optional("paymentID", transaction.paymentID)
        if let payout = transaction.payout {
            key("payout")
            write(payout)
        }
        if let price = transaction.price {
            key("price")
            integer(price)
        }
        if let fee = transaction.processingFee {
            key("processingFee")
            integer(fee)
        }
        key("productID")
        string(transaction.productID)
        key("purchaseDate")
        integer(transaction.purchaseDate.millisecondsSince1970)
        optional("purchaseToken", transaction.purchaseToken)
        key("quantity")
        integer(Int64(transaction.quantity))
        optional("rawProductType", transaction.rawProductType)
        if let fee = transaction.refundedFee {
            key("refundedFee")
            integer(fee)
        }
        optional("replacedPurchaseToken", transaction.replacedPurchaseToken)
        optional("revocationDate", transaction.revocationDate)
        optional("revocationPercentage", transaction.revocationPercentage)
        optional("revocationReason", transaction.revocationReason)
        optional("signedDate", transaction.signedDate)
        key("source")
        string(transaction.source.rawValue)
        optional("storefront", transaction.storefront)
        optional("subscriptionGroupID", transaction.subscriptionGroupID)
        if let tax = transaction.tax {
            key("tax")
            integer(tax)
        }
        key("transactionID")
        string(transaction.transactionID)
        optional("webOrderLineItemID", transaction.webOrderLineItemID)
        endObject()
    }

    // MARK: Optional members, left out when nil

    private mutating func optional(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    private mutating func optional(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        integer(Int64(value))
    }

    private mutating func optional(_ name: StaticString, _ value: Instant?) {
        guard let value else { return }
        key(name)
        integer(value.millisecondsSince1970)
    }
}
