import SubLedgerCore

/// Builders for the values tests need: one app with a product of each type, days as instants, accounts.
enum Fixtures {
    static let bundleID = "com.example.app"

    static let proMonthly = "pro.monthly"
    static let premiumMonthly = "premium.monthly"
    static let coins = "coins.100"
    static let pass = "pass.30d"
    static let lifetime = "lifetime"

    static func app(policy: OwnershipPolicy = .activeAutoRenewerKeeps) -> App {
        App(
            bundleID: bundleID,
            appAppleID: 1_234_567_890,
            environments: [.production, .sandbox],
            ownershipPolicy: policy,
            products: [
                Product(
                    productID: proMonthly, type: .autoRenewable, subscriptionGroupID: "group", groupLevel: 2,
                    entitlementIDs: ["pro"]),
                Product(
                    productID: premiumMonthly, type: .autoRenewable, subscriptionGroupID: "group", groupLevel: 1,
                    entitlementIDs: ["pro", "premium"]),
                Product(productID: coins, type: .consumable, creditsPerUnit: 100),
                Product(productID: pass, type: .nonRenewing, entitlementIDs: ["pro"], durationDays: 30),
                Product(productID: lifetime, type: .nonConsumable, entitlementIDs: ["lifetime"]),
            ]
        )
    }

    static func catalog(policy: OwnershipPolicy = .activeAutoRenewerKeeps) -> Catalog {
        Catalog(apps: [app(policy: policy)])
    }

    static let dayMilliseconds: Int64 = 86_400_000
    static let epoch: Int64 = 1_700_000_000_000

    /// Day `day` (fractional days allowed through `hours`) after a fixed epoch.
    static func day(_ day: Int, hours: Int = 0) -> Instant {
        Instant(millisecondsSince1970: epoch + Int64(day) * dayMilliseconds + Int64(hours) * 3_600_000)
    }

    static func account(_ name: String) -> AccountID {
        do { return try AccountID(name) } catch { preconditionFailure("bad fixture account \(name): \(error)") }
    }

    static func orderID(_ last: Int) -> OrderID {
        let suffix = String(last)
        let id = "6f1c2d3e-4a5b-4c6d-8e9f-" + String(repeating: "0", count: 12 - suffix.count) + suffix
        do { return try OrderID(id) } catch { preconditionFailure("bad fixture order id: \(error)") }
    }

    static let alice = account("alice")
    static let bob = account("bob")
    static let carol = account("carol")

    /// A subscription period `[from, to)` in days.
    static func subscription(
        _ transactionID: String,
        chain chainID: String,
        product: String = proMonthly,
        from: Int,
        to: Int,
        revokedOn revocationDay: Int? = nil,
        revocationReason: Int? = nil,
        upgradedOn upgradeDay: Int? = nil,
        trial: Bool = false,
        ownership: OwnershipType = .purchased,
        appAccountToken: String? = nil,
        applicationUsername: String? = nil,
        signedOn signedDay: Int? = nil,
        environment: StoreEnvironment = .production
    ) -> Transaction {
        Transaction(
            transactionID: transactionID,
            chainID: chainID,
            productID: product,
            bundleID: bundleID,
            purchaseDate: day(from),
            originalPurchaseDate: day(from),
            expiresDate: day(to),
            revocationDate: upgradeDay.map { day($0) } ?? revocationDay.map { day($0) },
            revocationReason: upgradeDay == nil ? revocationDay.map { _ in revocationReason ?? 0 } : nil,
            isTrialPeriod: trial,
            isUpgraded: upgradeDay != nil,
            ownershipType: ownership,
            accountHint: appAccountToken,
            applicationUsername: applicationUsername,
            environment: environment,
            source: signedDay == nil ? .verifyReceipt : .signedTransaction,
            signedDate: signedDay.map { day($0) }
        )
    }

    /// A one-time purchase (consumable, non-consumable or non-renewing pass) on `purchaseDay`.
    static func purchase(
        _ transactionID: String,
        product: String,
        on purchaseDay: Int,
        quantity: Int = 1,
        revokedOn revocationDay: Int? = nil,
        ownership: OwnershipType = .purchased,
        appAccountToken: String? = nil,
        applicationUsername: String? = nil,
        signedOn signedDay: Int? = nil
    ) -> Transaction {
        Transaction(
            transactionID: transactionID,
            chainID: transactionID,
            productID: product,
            bundleID: bundleID,
            quantity: quantity,
            purchaseDate: day(purchaseDay),
            revocationDate: revocationDay.map { day($0) },
            revocationReason: revocationDay.map { _ in 0 },
            ownershipType: ownership,
            accountHint: appAccountToken,
            applicationUsername: applicationUsername,
            environment: .production,
            source: signedDay == nil ? .verifyReceipt : .signedTransaction,
            signedDate: signedDay.map { day($0) }
        )
    }

    static func renewal(
        chain chainID: String,
        product: String = proMonthly,
        willAutoRenew: Bool,
        observedOn observedDay: Int,
        observedHours: Int = 0,
        billingRetry: Bool = false,
        graceUntil graceDay: Int? = nil,
        expirationIntent: Int? = nil
    ) -> RenewalInfo {
        RenewalInfo(
            chainID: chainID,
            productID: product,
            autoRenewProductID: product,
            willAutoRenew: willAutoRenew,
            expirationIntent: expirationIntent,
            isInBillingRetryPeriod: billingRetry,
            gracePeriodExpiresDate: graceDay.map { day($0) },
            environment: .production,
            observedAt: day(observedDay, hours: observedHours)
        )
    }

    /// A receipt (or signed transactions) submitted by `submitter`, produced by Apple on `observedDay`.
    static func receipt(
        by submitter: AccountID?,
        _ transactions: [Transaction],
        renewals: [RenewalInfo] = [],
        observedOn observedDay: Int
    ) -> LedgerInput {
        LedgerInput(
            kind: .receipt, bundleID: bundleID, environment: .production, submitter: submitter,
            transactions: transactions, renewalInfo: renewals, observedAt: day(observedDay))
    }

    /// A server notification (no submitter) signed on `observedDay`.
    static func notification(
        _ transactions: [Transaction],
        renewals: [RenewalInfo] = [],
        observedOn observedDay: Int,
        observedHours: Int = 0
    ) -> LedgerInput {
        LedgerInput(
            kind: .notification, bundleID: bundleID, environment: .production, submitter: nil,
            transactions: transactions, renewalInfo: renewals, observedAt: day(observedDay, hours: observedHours))
    }

    /// Applies `inputs` in order, all evaluated at `now`, to a fresh state; fails the caller on a throw.
    static func state(
        policy: OwnershipPolicy = .activeAutoRenewerKeeps,
        applying inputs: [(LedgerInput, Instant)]
    ) throws -> LedgerState {
        var state = LedgerState(catalog: catalog(policy: policy))
        for (input, now) in inputs { try state.apply(input, now: now) }
        return state
    }
}

extension LedgerState {
    /// The chain with original transaction id `id` in production.
    func chain(_ id: String) -> ChainSnapshot? {
        chains[ChainKey(environment: .production, chainID: id)]
    }

    /// The entitlement ids `account` holds at `instant`.
    func entitlementIDs(of account: AccountID, at instant: Instant) -> [String] {
        entitlements(for: account, bundleID: Fixtures.bundleID, at: instant).map(\.entitlementID)
    }

    /// The entry with `key`, if recorded.
    func entry(_ key: String) -> LedgerEntry? { entries[key] }
}

extension LedgerDecision {
    /// The outcome for transaction `id`.
    func outcome(_ id: String) -> TransactionOutcome.Result? {
        transactionOutcomes.first { $0.transactionID == id }?.result
    }
}
