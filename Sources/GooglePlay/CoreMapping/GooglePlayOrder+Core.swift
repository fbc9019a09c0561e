import SubLedgerCore

extension GooglePlayOrder {
    /// This subscription order in the ledger's terms: the transaction it bought, as the subscription's observation
    /// states its latest order (`SubscriptionPurchaseV2.observation`), but from the order itself.
    ///
    /// - The transaction id is the order id; the purchase date the start of the service period the order paid for,
    ///   the expiry its end; the price the order's `total` in milli-units (0 for a free trial's order).
    /// - `purchase` is the token's own answer (`subscriptionsv2.get` of `purchaseToken`): it gives what an order does
    ///   not state: the environment (a license tester's purchase is `sandbox`), the subscription's start, the
    ///   account the app named, the billing country and the token this one replaced (`linkedPurchaseToken`).
    /// - `chainID` is the chain's original transaction id (see `observation`).
    ///
    /// An order never paid (pending, or canceled before it completed) is `notPurchased`; a field missing or out of
    /// range (an order of another token, a period that ends before it starts, a negative total) is refused.
    public func transaction(
        purchaseToken: String, of purchase: SubscriptionPurchaseV2, packageName: String, chainID: String
    ) throws(GooglePlayMappingError) -> Transaction {
        guard let state else { throw GooglePlayMappingError(.missingField, "state") }
        switch state {
        case .pending, .canceled: throw GooglePlayMappingError(.notPurchased, state.rawValue)
        default: break
        }
        guard let rawOrder = orderId else { throw GooglePlayMappingError(.missingField, "orderId") }
        guard let order = GoogleOrderID(rawOrder) else { throw GooglePlayMappingError(.invalidField, "orderId") }
        guard self.purchaseToken == nil || self.purchaseToken == purchaseToken else {
            throw GooglePlayMappingError(.invalidField, "purchaseToken")
        }
        guard let item = lineItems?.first else { throw GooglePlayMappingError(.missingField, "lineItems") }
        guard let productID = item.productId, IdentifierRule.productID.accepts(productID) else {
            throw GooglePlayMappingError(item.productId == nil ? .missingField : .invalidField, "lineItems.productId")
        }
        guard let details = item.subscriptionDetails else {
            throw GooglePlayMappingError(.missingField, "lineItems.subscriptionDetails")
        }
        guard let start = details.servicePeriodStart else {
            throw GooglePlayMappingError(
                details.servicePeriodStartTime == nil ? .missingField : .invalidField,
                "lineItems.subscriptionDetails.servicePeriodStartTime")
        }
        guard let end = details.servicePeriodEnd, end >= start else {
            throw GooglePlayMappingError(
                details.servicePeriodEndTime == nil ? .missingField : .invalidField,
                "lineItems.subscriptionDetails.servicePeriodEndTime")
        }
        let isTrial = details.offerPhase == .freeTrial
        var price: Int64?
        var currency: String?
        if let total = total ?? item.total {
            guard let milliunits = total.milliunits, milliunits >= 0 else {
                throw GooglePlayMappingError(.invalidField, "total")
            }
            guard let code = total.currencyCode, Self.isCurrencyCode(code) else {
                throw GooglePlayMappingError(
                    total.currencyCode == nil ? .missingField : .invalidField, "total.currencyCode")
            }
            price = milliunits
            currency = code
        }
        let environment: StoreEnvironment = purchase.isTestPurchase ? .sandbox : .production
        return Transaction(
            transactionID: order.description, chainID: chainID, productID: productID,
            bundleID: packageName, purchaseDate: start, originalPurchaseDate: purchase.start ?? start,
            expiresDate: end, isTrialPeriod: isTrial, offerIdentifier: details.offerId,
            accountHint: purchase.externalAccountIdentifiers?.obfuscatedExternalAccountId,
            environment: environment, source: .googlePlayAPI, price: isTrial ? 0 : price, currency: currency,
            storefront: purchase.regionCode, purchaseToken: purchaseToken,
            replacedPurchaseToken: purchase.linkedPurchaseToken.flatMap { $0.isEmpty ? nil : String($0.prefix(1024)) })
    }

    /// Three ASCII capital letters (ISO 4217).
    static func isCurrencyCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }
}
