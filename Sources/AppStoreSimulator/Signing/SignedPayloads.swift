import AppStore
import Crypto
import SubLedgerCore

/// Maps stored transactions and chains to Apple's StoreKit 2 payloads.
enum SignedPayloads {
    /// Apple's `appTransactionId`: the id of the Apple ID's download of the app, the same in every
    /// transaction and renewal info of that Apple ID and app (an 18-digit number, like Apple's), derived
    /// from both so that it needs no state.
    static func appTransactionID(appleID: String, bundleID: String, environment: StoreEnvironment) -> String {
        let digest = SHA256.hash(data: Array("\(environment.rawValue)|\(bundleID)|\(appleID)".utf8))
        let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let digits = String(number % 10_000_000_000_000_000)
        return "70" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Apple's storefront ids for the storefronts the simulator knows; others get the US id.
    static func storefrontID(_ storefront: String) -> String {
        switch storefront {
        case "USA": "143441"
        case "GBR": "143444"
        case "DEU": "143443"
        case "FRA": "143442"
        case "JPN": "143462"
        case "CAN": "143455"
        case "AUS": "143460"
        default: "143441"
        }
    }

    static func transaction(_ record: TransactionRecord, signedAt: Instant) -> JWSTransactionDecodedPayload {
        JWSTransactionDecodedPayload(
            originalTransactionID: record.originalTransactionID,
            transactionID: record.transactionID,
            webOrderLineItemID: record.webOrderLineItemID,
            bundleID: record.bundleID,
            productID: record.productID,
            subscriptionGroupIdentifier: record.subscriptionGroupID,
            purchaseDate: record.purchaseDate.millisecondsSince1970,
            originalPurchaseDate: record.originalPurchaseDate.millisecondsSince1970,
            expiresDate: record.expiresDate?.millisecondsSince1970,
            quantity: record.quantity,
            rawType: record.productType.appleType,
            appAccountToken: record.visibleAppAccountToken.flatMap { $0.isEmpty ? nil : $0 },
            rawInAppOwnershipType: record.ownership.rawValue,
            signedDate: signedAt.millisecondsSince1970,
            rawRevocationReason: record.revocationReason,
            revocationDate: record.revocationDate?.millisecondsSince1970,
            isUpgraded: record.isUpgraded ? true : nil,
            rawOfferType: record.offer?.kind.appleOfferType
                ?? (record.isFreeTrial ? OfferType.introductoryOffer.rawValue : nil),
            offerIdentifier: record.offer?.identifier,
            rawEnvironment: record.environment.rawValue,
            storefront: record.storefront,
            storefrontID: storefrontID(record.storefront),
            rawTransactionReason: record.reason.rawValue,
            currency: record.currency,
            price: record.price,
            rawOfferDiscountType: record.offer.map { $0.discountType ?? "PAY_AS_YOU_GO" }
                ?? (record.isFreeTrial ? OfferDiscountType.freeTrial.rawValue : nil),
            appTransactionID: appTransactionID(
                appleID: record.appleID, bundleID: record.bundleID, environment: record.environment),
            offerPeriod: record.offerPeriod,
            rawRevocationType: revocationType(record),
            revocationPercentage: record.revocationDate == nil ? nil : record.revocationPercentage,
            rawBillingPlanType: record.commitment == nil ? nil : "MONTHLY",
            commitmentInfo: record.commitment.map {
                TransactionCommitmentInfo(
                    billingPeriodNumber: $0.number, totalBillingPeriods: $0.total,
                    commitmentExpiresDate: $0.endsAt.millisecondsSince1970, commitmentPrice: $0.price)
            }
        )
    }

    /// Apple's `AppTransaction` of an Apple ID's download of an app (see `SimulatorState.appTransaction`).
    ///
    /// Both app versions are the app's `applicationVersion` (`1.0` unless the app names one): the simulator has
    /// no version history. `receiptCreationDate` and `signedDate` are the signing moment, `originalPlatform` is
    /// `iOS`, `versionExternalIdentifier` is 0 in the sandbox (as Apple's) and absent in production, and there
    /// is no `preorderDate` (the simulator has no pre-orders).
    static func appTransaction(
        app: AppDescription,
        account: AppleIDDescription,
        originalPurchaseDate: Instant,
        device: DeviceVerification,
        signedAt: Instant
    ) -> AppTransaction {
        AppTransaction(
            rawReceiptType: account.environment.rawValue,
            appAppleID: app.appAppleID,
            bundleID: app.bundleID,
            applicationVersion: app.applicationVersion,
            versionExternalIdentifier: account.environment == .sandbox ? 0 : nil,
            receiptCreationDate: signedAt.millisecondsSince1970,
            originalPurchaseDate: originalPurchaseDate.millisecondsSince1970,
            originalApplicationVersion: app.applicationVersion,
            deviceVerification: device.value,
            deviceVerificationNonce: device.nonce,
            appTransactionID: appTransactionID(
                appleID: account.appleID, bundleID: app.bundleID, environment: account.environment),
            rawOriginalPlatform: "iOS",
            signedDate: signedAt.millisecondsSince1970
        )
    }

    /// Apple's `revocationType`: `FAMILY_REVOKE` for a shared copy, `REFUND_PRORATED` for a refund of less than
    /// the whole price, else `REFUND_FULL`; none when not revoked, or when the date is an upgrade's end.
    static func revocationType(_ record: TransactionRecord) -> String? {
        guard record.isRefunded else { return nil }
        if record.ownership == .familyShared { return RevocationType.familyRevoke.rawValue }
        if let percentage = record.revocationPercentage, percentage < 100_000 {
            return RevocationType.refundProrated.rawValue
        }
        return RevocationType.refundFull.rawValue
    }

    static func renewalInfo(
        _ chain: SubscriptionChainRecord,
        renewalPrice: Int64?,
        currency: String?,
        winBackOffers: [String]? = nil,
        commitment: TransactionRecord.CommitmentPeriod? = nil,
        signedAt: Instant
    ) -> JWSRenewalInfoDecodedPayload {
        return JWSRenewalInfoDecodedPayload(
            rawExpirationIntent: chain.expirationIntent?.rawValue,
            originalTransactionID: chain.originalTransactionID,
            autoRenewProductID: chain.autoRenewProductID,
            productID: chain.productID,
            rawAutoRenewStatus: chain.autoRenewEnabled ? 1 : 0,
            isInBillingRetryPeriod: chain.status == .billingRetry || chain.status == .billingGracePeriod
                ? true : (chain.status == .expired && chain.expirationIntent == .billingError ? false : nil),
            rawPriceIncreaseStatus: chain.priceIncrease.map { $0.consented ? 1 : 0 },
            gracePeriodExpiresDate: chain.status == .billingGracePeriod
                ? chain.gracePeriodExpiresDate?.millisecondsSince1970 : nil,
            signedDate: signedAt.millisecondsSince1970,
            rawEnvironment: chain.environment.rawValue,
            recentSubscriptionStartDate: chain.recentSubscriptionStartDate.millisecondsSince1970,
            // Apple's renewalDate is when the most recent purchase of the chain expires, whatever its state
            // (a refund or a disabled auto-renew included).
            renewalDate: chain.expiresDate.millisecondsSince1970,
            currency: currency,
            renewalPrice: renewalPrice,
            // A subscriber whose subscription ended (not refunded) may be won back.
            eligibleWinBackOfferIDs: chain.status == .expired && !(winBackOffers ?? []).isEmpty ? winBackOffers : nil,
            appAccountToken: chain.usernameLost ? nil : chain.appAccountToken,
            appTransactionID: appTransactionID(
                appleID: chain.appleID, bundleID: chain.bundleID, environment: chain.environment),
            rawRenewalBillingPlanType: commitment == nil ? nil : "MONTHLY",
            commitmentInfo: commitment.map {
                RenewalCommitmentInfo(
                    commitmentAutoRenewProductID: chain.autoRenewProductID,
                    rawCommitmentAutoRenewStatus: chain.autoRenewEnabled ? 1 : 0,
                    rawCommitmentRenewalBillingPlanType: "MONTHLY",
                    commitmentRenewalDate: $0.endsAt.millisecondsSince1970, commitmentRenewalPrice: $0.price)
            }
        )
    }
}

extension SimulatorState {
    /// The JWS of a transaction, signed now (never before its chain's latest state was signed).
    func signedTransaction(_ transactionID: String, signer: PayloadSigner, now: Instant) throws(SimulatorError)
        -> String
    {
        let record = try transaction(transactionID)
        return try signer.sign(
            SignedPayloads.transaction(record, signedAt: signingInstant(of: record.originalTransactionID, now: now)))
    }

    /// The JWS renewal info of a chain, signed now (never before its latest state was signed).
    func signedRenewalInfo(_ originalTransactionID: String, signer: PayloadSigner, now: Instant) throws(SimulatorError)
        -> String
    {
        guard let chain = chains[originalTransactionID] else {
            throw SimulatorError(.notFound, "subscription \(originalTransactionID) does not exist")
        }
        let product = apps[chain.bundleID]?.products[chain.autoRenewProductID]
        return try signer.sign(
            SignedPayloads.renewalInfo(
                chain, renewalPrice: product.flatMap(chain.renewalPrice(of:)), currency: product?.currency,
                winBackOffers: product?.winBackOffers,
                commitment: transactions[chain.latestTransactionID]?.commitment,
                signedAt: signingInstant(of: originalTransactionID, now: now)))
    }
}
