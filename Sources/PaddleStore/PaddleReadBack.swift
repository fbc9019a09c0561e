import Logging
import Paddle
import PaddleClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// A Paddle subscription or one-time transaction read back from the Paddle API and turned into the ledger's input:
/// what the ledger applies, whatever an event's copy said (an event is a hint: events arrive twice and out of order,
/// and the purchase's current state is what counts).
struct PaddleReadBack: Sendable {
    let client: PaddleAPI
    let environment: StoreEnvironment
    let logger: Logger

    /// The subscription's state as the ledger's input: each paid transaction (its checkout's and each renewal's) with
    /// its adjustments, and the subscription's renewal state. `nil` when it was sold for another app (its
    /// `custom_data` names another bundle id).
    func input(subscription id: String, kind: LedgerInput.Kind, app: StoredApp, observedAt: Instant) async throws
        -> LedgerInput?
    {
        let subscription: PaddleSubscription
        let transactions: [PaddleTransaction]
        let adjustments: [PaddleAdjustment]
        do {
            subscription = try await client.subscription(id)
            transactions = try await client.transactions(subscriptionID: id)
            adjustments = try await client.adjustments(subscriptionID: id)
        } catch {
            throw IngestionError(error)
        }
        if let named = subscription.customData[PaddleTransactionReading.appCustomDataKey], named != app.bundleID {
            logger.warning(
                "a Paddle subscription names another app in its custom data",
                metadata: ["subscription": "\(id)", "app": "\(app.bundleID)", "named": "\(named)"])
            return nil
        }
        var sales: [PaddleSale] = []
        do {
            for transaction in transactions {
                let reading = PaddleTransactionReading(
                    transaction: transaction, adjustments: adjustments.filter { $0.transactionID == transaction.id })
                if let sale = try reading.sale() { sales.append(sale) }
            }
        } catch {
            throw IngestionError(.invalidNotificationPayload, "Paddle's transaction cannot be read: \(error)")
        }
        // The chain starts where its first paid period does (`Transaction.startsChain`).
        let started = sales.compactMap { $0.period?.startsAt }.min()
        let hint = subscription.customData[PaddleTransactionReading.orderCustomDataKey]
        var mapped = sales.compactMap { sale -> Transaction? in
            guard let period = sale.period else { return nil }
            return transaction(
                sale, chainID: subscription.id, purchaseDate: period.startsAt, originalPurchaseDate: started,
                accountHint: sale.accountHint ?? hint, app: app)
        }
        mapped.sort { ($0.purchaseDate, $0.transactionID) < ($1.purchaseDate, $1.transactionID) }
        // Upgraded away from: a later transaction of another product starts within this one's period.
        for index in mapped.indices {
            let earlier = mapped[index]
            mapped[index].isUpgraded = mapped.contains { later in
                later.productID != earlier.productID && later.purchaseDate > earlier.purchaseDate
                    && later.purchaseDate < (earlier.expiresDate ?? earlier.purchaseDate)
            }
        }
        let sold = mapped.filter { app.definition.product($0.productID)?.store == .paddle }
        let itemProduct = subscription.items.first?.price.productID
        let renewal = RenewalInfo(
            chainID: subscription.id, productID: sold.last?.productID ?? itemProduct ?? "",
            autoRenewProductID: itemProduct, willAutoRenew: Self.willAutoRenew(subscription),
            expirationIntent: Self.expirationIntent(subscription),
            isInBillingRetryPeriod: subscription.status == .pastDue,
            renewalDate: subscription.nextBilledAt, currency: subscription.currencyCode,
            environment: environment, observedAt: observedAt)
        return LedgerInput(
            kind: kind, bundleID: app.bundleID, environment: environment, submitter: nil, transactions: sold,
            renewalInfo: sold.isEmpty ? [] : [renewal], observedAt: observedAt)
    }

    /// A transaction's state: its subscription's when it belongs to one, else a one-time purchase of one transaction
    /// (once paid; none before). `nil` when it is not the ledger's: SubLedger did not start it (its `custom_data`
    /// names no order), or another app sold it.
    func input(transaction id: String, kind: LedgerInput.Kind, app: StoredApp, observedAt: Instant) async throws
        -> LedgerInput?
    {
        let reading: PaddleTransactionReading
        do {
            reading = try await client.reading(ofTransaction: id)
        } catch {
            throw IngestionError(error)
        }
        if let subscription = reading.transaction.subscriptionID {
            return try await input(subscription: subscription, kind: kind, app: app, observedAt: observedAt)
        }
        let customData = reading.transaction.customData
        guard customData[PaddleTransactionReading.orderCustomDataKey] != nil else { return nil }
        if let named = customData[PaddleTransactionReading.appCustomDataKey], named != app.bundleID {
            logger.warning(
                "a Paddle transaction names another app in its custom data",
                metadata: ["transaction": "\(id)", "app": "\(app.bundleID)", "named": "\(named)"])
            return nil
        }
        let sale: PaddleSale?
        do {
            sale = try reading.sale()
        } catch {
            throw IngestionError(.invalidNotificationPayload, "Paddle's transaction cannot be read: \(error)")
        }
        let sold = sale.flatMap { sale -> Transaction? in
            guard app.definition.product(sale.productID)?.store == .paddle else { return nil }
            return transaction(
                sale, chainID: sale.transactionID, purchaseDate: sale.purchaseDate, originalPurchaseDate: nil,
                accountHint: sale.accountHint, app: app)
        }
        return LedgerInput(
            kind: kind, bundleID: app.bundleID, environment: environment, submitter: nil,
            transactions: sold.map { [$0] } ?? [], renewalInfo: [], observedAt: observedAt)
    }

    /// A paid sale as the ledger's transaction: Paddle's totals as it states them (the price the customer paid, tax
    /// included; the tax Paddle charged as merchant of record; Paddle's fee; the same in the payout currency), and what
    /// it took back with the part of the fee Paddle gave back.
    func transaction(
        _ sale: PaddleSale, chainID: String, purchaseDate: Instant, originalPurchaseDate: Instant?,
        accountHint: String?, app: StoredApp
    ) -> Transaction {
        Transaction(
            transactionID: sale.transactionID, chainID: chainID, productID: sale.productID, bundleID: app.bundleID,
            purchaseDate: purchaseDate, originalPurchaseDate: originalPurchaseDate, expiresDate: sale.expiresDate,
            revocationDate: sale.revocationDate, revocationReason: sale.revocationDate == nil ? nil : 0,
            isTrialPeriod: sale.isTrialPeriod, accountHint: accountHint, environment: environment,
            source: .storeAPI(.paddle), price: sale.price, currency: sale.currency, processingFee: sale.processingFee,
            tax: sale.tax, partialRefunds: sale.partialRefunds, refundedFee: sale.refundedFee,
            payout: sale.payout,
            customerID: sale.customerID)
    }

    /// Whether the subscription bills again: active, trialing or past due (retrying), with no cancellation or pause
    /// scheduled.
    static func willAutoRenew(_ subscription: PaddleSubscription) -> Bool {
        guard [.active, .trialing, .pastDue].contains(subscription.status) else { return false }
        guard let change = subscription.scheduledChange else { return true }
        return change.action != .cancel && change.action != .pause
    }

    /// Why it ended, in the ledger's expiration intents: 1 canceled (or pausing).
    static func expirationIntent(_ subscription: PaddleSubscription) -> Int? {
        switch subscription.status {
        case .canceled, .paused: 1
        default: subscription.scheduledChange.flatMap { [.cancel, .pause].contains($0.action) ? 1 : nil }
        }
    }
}
