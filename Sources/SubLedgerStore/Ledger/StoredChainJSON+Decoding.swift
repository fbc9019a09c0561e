import SubLedgerCore

/// Reading the stored chain's types as their synthesized `Codable` conformances wrote them: one member per
/// stored property, named as the property; an optional property absent or `null` is `nil`; every other
/// property is required; members of unknown names are skipped (a newer schema's rows stay readable).
extension StoredJSONReader {
    // The member names of each type, in the order of its stored properties (the case names are the names).
    private enum ChainField: Int, CaseIterable {
        case key, bundleID, productType, owner, productID, subscriptionGroupID, latestExpiry, renewalInfo
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum ChainKeyField: Int, CaseIterable {
        case environment, originalTransactionID
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum RenewalField: Int, CaseIterable {
        case originalTransactionID, productID, autoRenewProductID, willAutoRenew, expirationIntent
        case isInBillingRetryPeriod, gracePeriodExpiresDate, priceIncreaseStatus, offerType, offerIdentifier
        case renewalDate, renewalPrice, currency, offerDiscountType, environment, observedAt, eligibleWinBackOfferIDs
        case billingPlanType, commitment
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum KnownTransactionField: Int, CaseIterable {
        case transaction, observedAt, account, revocations, lastUnrevokedObservationAt, signedDetails
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum RevocationField: Int, CaseIterable {
        case revocationDate, revocationReason, isFamilySharing, lastObservedAt, revocationPercentage
        case revocationPercentageObservedAt
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum SignedDetailsField: Int, CaseIterable {
        case price, currency, storefront, appTransactionID, observedAt, billingPlanType, commitment
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum TransactionCommitmentField: Int, CaseIterable {
        case billingPeriodNumber, totalBillingPeriods, expiresDate, price
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum RenewalCommitmentField: Int, CaseIterable {
        case willAutoRenew, autoRenewProductID, billingPlanType, renewalDate, renewalPrice
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum PartialRefundField: Int, CaseIterable {
        case amount, date, fee, payoutEarnings
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum StatedPayoutField: Int, CaseIterable {
        case currency, earnings, fee, refundedEarnings, tax, total
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    private enum TransactionField: Int, CaseIterable {
        case transactionID, originalTransactionID, productID, bundleID, quantity, purchaseDate, originalPurchaseDate
        case expiresDate, revocationDate, revocationReason, webOrderLineItemID, subscriptionGroupID, isTrialPeriod
        case isInIntroOfferPeriod, offerType, offerIdentifier, offerDiscountType, isUpgraded, ownershipType
        case appAccountToken, applicationUsername, environment, source, rawProductType, price, currency, storefront
        case signedDate, revocationPercentage, appTransactionID, billingPlanType, commitment, purchaseToken
        case replacedPurchaseToken, processingFee, customerID, paymentID, tax, partialRefunds, refundedFee, payout
        static let keys = StoredJSONKeys(allCases.map { "\($0)" })
    }

    // MARK: Types

    mutating func readSubscriptionChain() throws -> SubscriptionChain {
        var key: ChainKey?
        var bundleID: String?
        var productType: ProductType?
        var owner: AccountID?
        var productID: String?
        var subscriptionGroupID: String?
        var latestExpiry: Instant?
        var renewalInfo: RenewalInfo?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: ChainField.keys, &cursor) {
            case .end:
                return SubscriptionChain(
                    key: try required(key, "key"), bundleID: try required(bundleID, "bundleID"),
                    productType: try required(productType, "productType"), owner: owner,
                    productID: try required(productID, "productID"), subscriptionGroupID: subscriptionGroupID,
                    latestExpiry: latestExpiry, renewalInfo: renewalInfo)
            case .unknown:
                try skipValue()
            case .known(let index):
                switch ChainField(rawValue: index)! {
                case .key: key = try readChainKey()
                case .bundleID: bundleID = try readString()
                case .productType: productType = try readEnum(ProductType.self)
                case .owner: owner = try readNull() ? nil : try readAccountID()
                case .productID: productID = try readString()
                case .subscriptionGroupID: subscriptionGroupID = try readOptionalString()
                case .latestExpiry: latestExpiry = try readOptionalInstant()
                case .renewalInfo: renewalInfo = try readNull() ? nil : try readRenewalInfo()
                }
            }
        }
    }

    mutating func readChainKey() throws -> ChainKey {
        var environment: StoreEnvironment?
        var originalTransactionID: String?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: ChainKeyField.keys, &cursor) {
            case .end:
                return ChainKey(
                    environment: try required(environment, "environment"),
                    chainID: try required(originalTransactionID, "originalTransactionID"))
            case .unknown:
                try skipValue()
            case .known(let index):
                switch ChainKeyField(rawValue: index)! {
                case .environment: environment = try readEnum(StoreEnvironment.self)
                case .originalTransactionID: originalTransactionID = try readString()
                }
            }
        }
    }

    mutating func readRenewalInfo() throws -> RenewalInfo {
        var originalTransactionID: String?
        var productID: String?
        var autoRenewProductID: String?
        var willAutoRenew: Bool?
        var expirationIntent: Int?
        var isInBillingRetryPeriod: Bool?
        var gracePeriodExpiresDate: Instant?
        var priceIncreaseStatus: Int?
        var offerType: Int?
        var offerIdentifier: String?
        var renewalDate: Instant?
        var renewalPrice: Int64?
        var currency: String?
        var offerDiscountType: String?
        var environment: StoreEnvironment?
        var observedAt: Instant?
        var eligibleWinBackOfferIDs: [String]?
        var billingPlanType: String?
        var commitment: RenewalCommitment?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: RenewalField.keys, &cursor) {
            case .end:
                return RenewalInfo(
                    chainID: try required(originalTransactionID, "originalTransactionID"),
                    productID: try required(productID, "productID"), autoRenewProductID: autoRenewProductID,
                    willAutoRenew: try required(willAutoRenew, "willAutoRenew"), expirationIntent: expirationIntent,
                    isInBillingRetryPeriod: try required(isInBillingRetryPeriod, "isInBillingRetryPeriod"),
                    gracePeriodExpiresDate: gracePeriodExpiresDate, priceIncreaseStatus: priceIncreaseStatus,
                    offerType: offerType, offerIdentifier: offerIdentifier, renewalDate: renewalDate,
                    renewalPrice: renewalPrice, currency: currency, offerDiscountType: offerDiscountType,
                    eligibleWinBackOfferIDs: eligibleWinBackOfferIDs, billingPlanType: billingPlanType,
                    commitment: commitment, environment: try required(environment, "environment"),
                    observedAt: try required(observedAt, "observedAt"))
            case .unknown:
                try skipValue()
            case .known(let index):
                switch RenewalField(rawValue: index)! {
                case .originalTransactionID: originalTransactionID = try readString()
                case .productID: productID = try readString()
                case .autoRenewProductID: autoRenewProductID = try readOptionalString()
                case .willAutoRenew: willAutoRenew = try readBool()
                case .expirationIntent: expirationIntent = try readOptionalInt()
                case .isInBillingRetryPeriod: isInBillingRetryPeriod = try readBool()
                case .gracePeriodExpiresDate: gracePeriodExpiresDate = try readOptionalInstant()
                case .priceIncreaseStatus: priceIncreaseStatus = try readOptionalInt()
                case .offerType: offerType = try readOptionalInt()
                case .offerIdentifier: offerIdentifier = try readOptionalString()
                case .renewalDate: renewalDate = try readOptionalInstant()
                case .renewalPrice: renewalPrice = try readNull() ? nil : try readInt64()
                case .currency: currency = try readOptionalString()
                case .offerDiscountType: offerDiscountType = try readOptionalString()
                case .eligibleWinBackOfferIDs:
                    if try readNull() {
                        eligibleWinBackOfferIDs = nil
                    } else {
                        var ids: [String] = []
                        try beginArray()
                        var isFirst = true
                        while try nextElement(&isFirst) { ids.append(try readString()) }
                        eligibleWinBackOfferIDs = ids
                    }
                case .environment: environment = try readEnum(StoreEnvironment.self)
                case .observedAt: observedAt = try readInstant()
                case .billingPlanType: billingPlanType = try readOptionalString()
                case .commitment: commitment = try readNull() ? nil : try readRenewalCommitment()
                }
            }
        }
    }

    mutating func readKnownTransaction() throws -> KnownTransaction {
        var transaction: Transaction?
        var observedAt: Instant?
        var account: AccountID?
        var revocations: [ObservedRevocation]?
        var lastUnrevokedObservationAt: Instant?
        var signedDetails: SignedTransactionDetails?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: KnownTransactionField.keys, &cursor) {
            case .end:
                return KnownTransaction(
                    transaction: try required(transaction, "transaction"), observedAt: observedAt, account: account,
                    revocations: try required(revocations, "revocations"),
                    lastUnrevokedObservationAt: lastUnrevokedObservationAt, signedDetails: signedDetails)
            case .unknown:
                try skipValue()
            case .known(let index):
                switch KnownTransactionField(rawValue: index)! {
                case .transaction: transaction = try readTransaction()
                case .observedAt: observedAt = try readOptionalInstant()
                case .account: account = try readNull() ? nil : try readAccountID()
                case .revocations:
                    var list: [ObservedRevocation] = []
                    try beginArray()
                    var isFirst = true
                    while try nextElement(&isFirst) { list.append(try readObservedRevocation()) }
                    revocations = list
                case .lastUnrevokedObservationAt: lastUnrevokedObservationAt = try readOptionalInstant()
                case .signedDetails: signedDetails = try readNull() ? nil : try readSignedTransactionDetails()
                }
            }
        }
    }

    mutating func readPartialRefunds() throws -> [PartialRefund] {
        var list: [PartialRefund] = []
        try beginArray()
        var isFirst = true
        while try nextElement(&isFirst) {
            var amount: Int64?
            var date: Instant?
            var fee: Int64?
            var payoutEarnings: Int64?
            try beginObject()
            var cursor = ObjectCursor()
            element: while true {
                switch try nextMember(of: PartialRefundField.keys, &cursor) {
                case .end:
                    list.append(
                        PartialRefund(
                            date: try required(date, "date"), amount: try required(amount, "amount"), fee: fee,
                            payoutEarnings: payoutEarnings))
                    break element
                case .unknown:
                    try skipValue()
                case .known(let index):
                    switch PartialRefundField(rawValue: index)! {
                    case .amount: amount = try readInt64()
                    case .date: date = try readInstant()
                    case .fee: fee = try readNull() ? nil : try readInt64()
                    case .payoutEarnings: payoutEarnings = try readNull() ? nil : try readInt64()
                    }
                }
            }
        }
        return list
    }

    mutating func readStatedPayout() throws -> StatedPayout {
        var currency: String?
        var earnings: Int64?
        var fee: Int64?
        var refundedEarnings: Int64?
        var tax: Int64?
        var total: Int64?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: StatedPayoutField.keys, &cursor) {
            case .end:
                return StatedPayout(
                    currency: try required(currency, "currency"), total: try required(total, "total"),
                    tax: try required(tax, "tax"), fee: try required(fee, "fee"),
                    earnings: try required(earnings, "earnings"), refundedEarnings: refundedEarnings)
            case .unknown:
                try skipValue()
            case .known(let index):
                switch StatedPayoutField(rawValue: index)! {
                case .currency: currency = try readString()
                case .earnings: earnings = try readInt64()
                case .fee: fee = try readInt64()
                case .refundedEarnings: refundedEarnings = try readNull() ? nil : try readInt64()
                case .tax: tax = try readInt64()
                case .total: total = try readInt64()
                }
            }
        }
    }

    mutating func readTransactionCommitment() throws -> TransactionCommitment {
        var number: Int?
        var total: Int?
        var expires: Instant?
        var price: Int64?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: TransactionCommitmentField.keys, &cursor) {
            case .end:
                return TransactionCommitment(
                    billingPeriodNumber: try required(number, "billingPeriodNumber"),
                    totalBillingPeriods: try required(total, "totalBillingPeriods"),
                    expiresDate: try required(expires, "expiresDate"), price: price)
            case .unknown:
                try skipValue()
            case .known(let index):
                switch TransactionCommitmentField(rawValue: index)! {
                case .billingPeriodNumber: number = try readInt()
                case .totalBillingPeriods: total = try readInt()
                case .expiresDate: expires = try readInstant()
                case .price: price = try readNull() ? nil : try readInt64()
                }
            }
        }
    }

    mutating func readRenewalCommitment() throws -> RenewalCommitment {
        var willAutoRenew: Bool?
        var commitment = RenewalCommitment(willAutoRenew: false)
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: RenewalCommitmentField.keys, &cursor) {
            case .end:
                commitment.willAutoRenew = try required(willAutoRenew, "willAutoRenew")
                return commitment
            case .unknown:
                try skipValue()
            case .known(let index):
                switch RenewalCommitmentField(rawValue: index)! {
                case .willAutoRenew: willAutoRenew = try readBool()
                case .autoRenewProductID: commitment.autoRenewProductID = try readOptionalString()
                case .billingPlanType: commitment.billingPlanType = try readOptionalString()
                case .renewalDate: commitment.renewalDate = try readOptionalInstant()
                case .renewalPrice: commitment.renewalPrice = try readNull() ? nil : try readInt64()
                }
            }
        }
    }

    mutating func readSignedTransactionDetails() throws -> SignedTransactionDetails {
        var details = SignedTransactionDetails()
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: SignedDetailsField.keys, &cursor) {
            case .end:
                return details
            case .unknown:
                try skipValue()
            case .known(let index):
                switch SignedDetailsField(rawValue: index)! {
                case .price: details.price = try readNull() ? nil : try readInt64()
                case .currency: details.currency = try readOptionalString()
                case .storefront: details.storefront = try readOptionalString()
                case .appTransactionID: details.appTransactionID = try readOptionalString()
                case .observedAt: details.observedAt = try readOptionalInstant()
                case .billingPlanType: details.billingPlanType = try readOptionalString()
                case .commitment: details.commitment = try readNull() ? nil : try readTransactionCommitment()
                }
            }
        }
    }

    mutating func readObservedRevocation() throws -> ObservedRevocation {
        var revocationDate: Instant?
        var revocationReason: Int?
        var isFamilySharing: Bool?
        var lastObservedAt: Instant?
        var revocationPercentage: Int?
        var revocationPercentageObservedAt: Instant?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: RevocationField.keys, &cursor) {
            case .end:
                return ObservedRevocation(
                    revocationDate: try required(revocationDate, "revocationDate"), revocationReason: revocationReason,
                    isFamilySharing: try required(isFamilySharing, "isFamilySharing"), lastObservedAt: lastObservedAt,
                    revocationPercentage: revocationPercentage,
                    revocationPercentageObservedAt: revocationPercentageObservedAt)
            case .unknown:
                try skipValue()
            case .known(let index):
                switch RevocationField(rawValue: index)! {
                case .revocationDate: revocationDate = try readInstant()
                case .revocationReason: revocationReason = try readOptionalInt()
                case .isFamilySharing: isFamilySharing = try readBool()
                case .lastObservedAt: lastObservedAt = try readOptionalInstant()
                case .revocationPercentage: revocationPercentage = try readOptionalInt()
                case .revocationPercentageObservedAt: revocationPercentageObservedAt = try readOptionalInstant()
                }
            }
        }
    }

    mutating func readTransaction() throws -> Transaction {
        var transactionID: String?
        var originalTransactionID: String?
        var productID: String?
        var bundleID: String?
        var quantity: Int?
        var purchaseDate: Instant?
        var originalPurchaseDate: Instant?
        var expiresDate: Instant?
        var revocationDate: Instant?
        var revocationReason: Int?
        var webOrderLineItemID: String?
        var subscriptionGroupID: String?
        var isTrialPeriod: Bool?
        var isInIntroOfferPeriod: Bool?
        var offerType: Int?
        var offerIdentifier: String?
        var offerDiscountType: String?
        var isUpgraded: Bool?
        var ownershipType: OwnershipType?
        var appAccountToken: String?
        var applicationUsername: String?
        var environment: StoreEnvironment?
        var source: TransactionSource?
        var rawProductType: String?
        var price: Int64?
        var currency: String?
        var storefront: String?
        var signedDate: Instant?
        var revocationPercentage: Int?
        var appTransactionID: String?
        var billingPlanType: String?
        var commitment: TransactionCommitment?
        var purchaseToken: String?
        var replacedPurchaseToken: String?
        var processingFee: Int64?
        var customerID: String?
        var paymentID: String?
        var tax: Int64?
        var partialRefunds: [PartialRefund]?
        var refundedFee: Int64?
        var payout: StatedPayout?
        try beginObject()
        var cursor = ObjectCursor()
        while true {
            switch try nextMember(of: TransactionField.keys, &cursor) {
            case .end:
                return Transaction(
                    transactionID: try required(transactionID, "transactionID"),
                    chainID: try required(originalTransactionID, "originalTransactionID"),
                    productID: try required(productID, "productID"), bundleID: bundleID,
                    quantity: try required(quantity, "quantity"),
                    purchaseDate: try required(purchaseDate, "purchaseDate"),
                    originalPurchaseDate: originalPurchaseDate, expiresDate: expiresDate,
                    revocationDate: revocationDate, revocationReason: revocationReason,
                    revocationPercentage: revocationPercentage,
                    webOrderLineItemID: webOrderLineItemID, subscriptionGroupID: subscriptionGroupID,
                    isTrialPeriod: try required(isTrialPeriod, "isTrialPeriod"),
                    isInIntroOfferPeriod: try required(isInIntroOfferPeriod, "isInIntroOfferPeriod"),
                    offerType: offerType, offerIdentifier: offerIdentifier, offerDiscountType: offerDiscountType,
                    isUpgraded: try required(isUpgraded, "isUpgraded"),
                    ownershipType: try required(ownershipType, "ownershipType"), accountHint: appAccountToken,
                    applicationUsername: applicationUsername, environment: try required(environment, "environment"),
                    source: try required(source, "source"), rawProductType: rawProductType, price: price,
                    currency: currency, processingFee: processingFee, tax: tax, partialRefunds: partialRefunds,
                    refundedFee: refundedFee, payout: payout,
                    customerID: customerID,
                    paymentID: paymentID,
                    storefront: storefront, signedDate: signedDate,
                    appTransactionID: appTransactionID, billingPlanType: billingPlanType, commitment: commitment,
                    purchaseToken: purchaseToken, replacedPurchaseToken: replacedPurchaseToken)
            case .unknown:
                try skipValue()
            case .known(let index):
                switch TransactionField(rawValue: index)! {
                case .transactionID: transactionID = try readString()
                case .originalTransactionID: originalTransactionID = try readString()
                case .productID: productID = try readString()
                case .bundleID: bundleID = try readOptionalString()
                case .quantity: quantity = try readInt()
                case .purchaseDate: purchaseDate = try readInstant()
                case .originalPurchaseDate: originalPurchaseDate = try readOptionalInstant()
                case .expiresDate: expiresDate = try readOptionalInstant()
                case .revocationDate: revocationDate = try readOptionalInstant()
                case .revocationReason: revocationReason = try readOptionalInt()
                case .webOrderLineItemID: webOrderLineItemID = try readOptionalString()
                case .subscriptionGroupID: subscriptionGroupID = try readOptionalString()
                case .isTrialPeriod: isTrialPeriod = try readBool()
                case .isInIntroOfferPeriod: isInIntroOfferPeriod = try readBool()
                case .offerType: offerType = try readOptionalInt()
                case .offerIdentifier: offerIdentifier = try readOptionalString()
                case .offerDiscountType: offerDiscountType = try readOptionalString()
                case .isUpgraded: isUpgraded = try readBool()
                case .ownershipType: ownershipType = try readEnum(OwnershipType.self)
                case .appAccountToken: appAccountToken = try readOptionalString()
                case .applicationUsername: applicationUsername = try readOptionalString()
                case .environment: environment = try readEnum(StoreEnvironment.self)
                case .source: source = try readEnum(TransactionSource.self)
                case .rawProductType: rawProductType = try readOptionalString()
                case .price: price = try readNull() ? nil : try readInt64()
                case .currency: currency = try readOptionalString()
                case .storefront: storefront = try readOptionalString()
                case .signedDate: signedDate = try readOptionalInstant()
                case .revocationPercentage: revocationPercentage = try readOptionalInt()
                case .appTransactionID: appTransactionID = try readOptionalString()
                case .billingPlanType: billingPlanType = try readOptionalString()
                case .commitment: commitment = try readNull() ? nil : try readTransactionCommitment()
                case .purchaseToken: purchaseToken = try readOptionalString()
                case .replacedPurchaseToken: replacedPurchaseToken = try readOptionalString()
                case .processingFee: processingFee = try readNull() ? nil : try readInt64()
                case .customerID: customerID = try readOptionalString()
                case .paymentID: paymentID = try readOptionalString()
                case .tax: tax = try readNull() ? nil : try readInt64()
                case .partialRefunds: partialRefunds = try readNull() ? nil : try readPartialRefunds()
                case .refundedFee: refundedFee = try readNull() ? nil : try readInt64()
                case .payout: payout = try readNull() ? nil : try readStatedPayout()
                }
            }
        }
    }

    /// One ownership binding as `ChainRows.chainColumns` aggregates it: `[sequence, from, to, reason, ms,
    /// transaction]`. As the unkeyed decoding it replaces, optional elements may be missing at the end and
    /// elements after the sixth are skipped.
    mutating func readStoredBinding() throws -> StoredBinding {
        try beginArray()
        var isFirst = true
        guard try nextElement(&isFirst) else { throw malformed("a binding without its sequence") }
        let sequence = try readInt()
        var from: String?
        var hasMore = try nextElement(&isFirst)
        if hasMore { from = try readOptionalString() }
        guard hasMore, try nextElement(&isFirst) else { throw malformed("a binding without its account") }
        let to = try readString()
        guard try nextElement(&isFirst) else { throw malformed("a binding without its reason") }
        let reason = try readString()
        guard try nextElement(&isFirst) else { throw malformed("a binding without its time") }
        let at = try readInt64()
        var transactionID: String?
        hasMore = try nextElement(&isFirst)
        if hasMore {
            transactionID = try readOptionalString()
            while try nextElement(&isFirst) { try skipValue() }
        }
        return StoredBinding(
            sequence: sequence, from: from, to: to, reason: reason, at: at, transactionID: transactionID)
    }

    // MARK: Values

    private func required<T>(_ value: T?, _ name: String) throws -> T {
        guard let value else { throw malformed("the member '\(name)' is missing") }
        return value
    }

    private mutating func readOptionalString() throws -> String? {
        try readNull() ? nil : try readString()
    }

    private mutating func readOptionalInt() throws -> Int? {
        try readNull() ? nil : try readInt()
    }

    private mutating func readInstant() throws -> Instant {
        Instant(millisecondsSince1970: try readInt64())
    }

    private mutating func readOptionalInstant() throws -> Instant? {
        try readNull() ? nil : try readInstant()
    }

    private mutating func readAccountID() throws -> AccountID {
        let raw = try readString()
        guard let account = try? AccountID(raw) else { throw malformed("an account id that is not valid") }
        return account
    }

    private mutating func readEnum<T: RawRepresentable>(_ type: T.Type) throws -> T where T.RawValue == String {
        let raw = try readString()
        guard let value = T(rawValue: raw) else { throw malformed("an unknown \(T.self) value") }
        return value
    }
}
