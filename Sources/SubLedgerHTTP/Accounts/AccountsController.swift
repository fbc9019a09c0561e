import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// Reads of one account of the key's app: entitlements (optionally at a time), subscriptions, transactions.
struct AccountsController: Sendable {
    let apps: AppDirectory
    /// Served by a read replica when one is current enough (docs/guides/scale-out.md, "Read replicas").
    let reads: LedgerReads
    /// An erased account's entitlements are refused (410 `account_erased`).
    let erasures: AccountErasures
    let now: @Sendable () -> Instant

    /// The entitlement read's route under `/v1` (`AppDataAccess.group`), which the event loop's read matches too
    /// (`EntitlementReadRoute`).
    static let entitlementsRoute: RouterPath = "accounts/{account_id}/entitlements"

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.get(Self.entitlementsRoute) { request, context in try await entitlements(request, context) }
        group.get("accounts/:account_id/subscriptions") { request, context in try await subscriptions(request, context)
        }
        group.get("accounts/:account_id/transactions") { request, context in try await transactions(request, context) }
    }

    func entitlements(_ request: Request, _ context: SubLedgerRequestContext) async throws
        -> Representation.EntitlementsResponse
    {
        let app = try await apps.app(for: try context.requireKey())
        let account = try accountID(context)
        var instant = now()
        if let at = request.uri.queryParameters.get("at") {
            guard let parsed = Representation.instant(at) else {
                throw APIError.badRequest(
                    .invalidTime, Representation.timeRule)
            }
            instant = parsed
        }
        let at = instant
        // The read model of the database that answers this read (a standby's or the primary's).
        let read = try await reads.entitlements(of: account, app: app, at: at, token: context.consistencyToken)
        // An erased account holds nothing under its id (its rows moved to the pseudonym): asked only then.
        if read.entitlements.isEmpty, read.credits == 0, try await erasures.isErased(account, app: app) {
            throw ErasureError(.accountErased, "the account was erased")
        }
        return Representation.EntitlementsResponse(
            account: account, at: instant, entitlements: read.entitlements, credits: read.credits)
    }

    struct SubscriptionBody: Codable {
        var original_transaction_id: String
        var environment: String
        var product_id: String
        var product_type: String
        var state: String
        var expiration_reason: String?
        var expires_at: String?
        var grace_period_expires_at: String?
        var will_auto_renew: Bool?
        var auto_renew_product_id: String?
        var in_billing_retry: Bool
        var owned_since: String?
        /// What the next renewal costs as Apple last said (StoreKit 2 renewal info): a decimal in `renewal_currency`.
        var renewal_price: String?
        var renewal_currency: String?
        /// A price increase Apple announced: `pending` (the customer has not consented; without consent the
        /// subscription expires at its renewal date) or `accepted`.
        var price_increase: String?
        /// The win-back offers Apple says the customer may redeem now (their subscription ended).
        var eligible_win_back_offer_ids: [String]?
        /// Apple's billing plan of the current period (`MONTHLY`: a monthly plan with a 12-month commitment).
        var billing_plan: String?
        /// Where the current period stands in its commitment, for a commitment plan.
        var commitment: CommitmentBody?
    }

    struct CommitmentBody: Codable {
        var billing_period_number: Int
        var total_billing_periods: Int
        var ends_at: String?
        /// The whole commitment's price, a decimal in `currency`.
        var price: String?
        var currency: String?
        /// Whether a new commitment starts when this one ends (Apple's `commitmentAutoRenewStatus`).
        var renews: Bool?
        /// The product and price of the next commitment, as Apple's renewal info states them.
        var renewal_product_id: String?
        var renewal_price: String?
    }

    /// The commitment of the chain's latest transaction, with what Apple's renewal info says of its end.
    static func commitment(_ details: SignedTransactionDetails?, renewal: RenewalInfo?) -> CommitmentBody? {
        guard let details, let commitment = details.commitment else { return nil }
        let next = renewal?.commitment
        return CommitmentBody(
            billing_period_number: commitment.billingPeriodNumber,
            total_billing_periods: commitment.totalBillingPeriods,
            ends_at: Representation.time(commitment.expiresDate),
            price: commitment.price.map(DecimalText.milliunits), currency: details.currency,
            renews: next?.willAutoRenew, renewal_product_id: next?.autoRenewProductID,
            renewal_price: next?.renewalPrice.map(DecimalText.milliunits))
    }

    struct SubscriptionsBody: ResponseEncodable {
        var account_id: String
        var subscriptions: [SubscriptionBody]
    }

    /// The chains the account owns now, with their state at this moment.
    func subscriptions(_ request: Request, _ context: SubLedgerRequestContext) async throws -> SubscriptionsBody {
        let app = try await apps.app(for: try context.requireKey())
        let account = try accountID(context)
        let instant = now()
        let chains = try await reads.read(token: context.consistencyToken) { store in
            try await store.chains(for: account, app: app)
        }.filter {
            $0.header.owner == account
        }
        return SubscriptionsBody(
            account_id: account.rawValue,
            subscriptions: chains.map { chain in
                let state = chain.state(at: instant, in: app.definition)
                let renewal = chain.header.renewalInfo
                return SubscriptionBody(
                    original_transaction_id: chain.key.chainID,
                    environment: chain.key.environment.rawValue,
                    product_id: chain.header.productID,
                    product_type: chain.header.productType.rawValue,
                    state: state.name,
                    expiration_reason: state.expirationReason?.name,
                    expires_at: Representation.time(chain.header.latestExpiry),
                    grace_period_expires_at: Representation.time(renewal?.gracePeriodExpiresDate),
                    will_auto_renew: renewal?.willAutoRenew,
                    auto_renew_product_id: renewal?.autoRenewProductID,
                    in_billing_retry: renewal?.isInBillingRetryPeriod ?? false,
                    owned_since: Representation.time(chain.bindingChanges.last { $0.to == account }?.at),
                    renewal_price: renewal?.renewalPrice.map(DecimalText.milliunits),
                    renewal_currency: renewal?.renewalPrice == nil ? nil : renewal?.currency,
                    price_increase: renewal?.priceIncreaseStatus.flatMap {
                        switch $0 {
                        case 0: "pending"
                        case 1: "accepted"
                        default: nil
                        }
                    },
                    eligible_win_back_offer_ids: renewal?.eligibleWinBackOfferIDs,
                    billing_plan: chain.transactions.last?.details.billingPlanType,
                    commitment: Self.commitment(chain.transactions.last?.details, renewal: renewal))
            })
    }

    struct TransactionBody: Codable {
        var transaction_id: String
        var original_transaction_id: String
        var environment: String
        var product_id: String
        var purchase_date: String?
        var expires_date: String?
        var revocation_date: String?
        var revocation_reason: Int?
        var revocation_percentage: Int?
        var ownership_type: String
        var is_trial_period: Bool
        var is_in_intro_offer_period: Bool
        var is_upgraded: Bool
        var source: String
    }

    struct TransactionsBody: ResponseEncodable {
        var account_id: String
        var transactions: [TransactionBody]
    }

    /// The transactions credited to the account, newest first.
    func transactions(_ request: Request, _ context: SubLedgerRequestContext) async throws -> TransactionsBody {
        let app = try await apps.app(for: try context.requireKey())
        let account = try accountID(context)
        // The chains holding its transactions (not only those it owns or owned: a merge moves the merged account's
        // purchases to it wherever they are).
        let chains = try await reads.read(token: context.consistencyToken) { store in
            try await store.chains(purchasedBy: account, app: app)
        }
        let known = chains.flatMap(\.transactions).filter { $0.account == account }
            .sorted {
                ($0.transaction.purchaseDate, $0.transactionID) > ($1.transaction.purchaseDate, $1.transactionID)
            }
        return TransactionsBody(
            account_id: account.rawValue,
            transactions: known.map { known in
                let transaction = known.transaction
                return TransactionBody(
                    transaction_id: transaction.transactionID,
                    original_transaction_id: transaction.chainID,
                    environment: transaction.environment.rawValue,
                    product_id: transaction.productID,
                    purchase_date: Representation.time(transaction.purchaseDate),
                    expires_date: Representation.time(transaction.expiresDate),
                    revocation_date: Representation.time(known.activeRevocation?.revocationDate),
                    revocation_reason: known.activeRevocation?.revocationReason,
                    revocation_percentage: known.activeRevocation?.revocationPercentage,
                    ownership_type: transaction.ownershipType.rawValue,
                    is_trial_period: transaction.isTrialPeriod,
                    is_in_intro_offer_period: transaction.isInIntroOfferPeriod,
                    is_upgraded: transaction.isUpgraded,
                    source: transaction.source.rawValue)
            })
    }
}

/// The `:account_id` path parameter, percent-decoded, as an account id, or a 400 saying why not.
func accountID(_ context: SubLedgerRequestContext) throws -> AccountID {
    try parseAccountID(try context.pathParameter("account_id") { APIError.badRequest(.invalidAccountID, $0) })
}

func parseAccountID(_ raw: String) throws -> AccountID {
    do {
        return try AccountID(raw)
    } catch {
        throw APIError.badRequest(.invalidAccountID, IdentifierRule.accountID.summary)
    }
}
