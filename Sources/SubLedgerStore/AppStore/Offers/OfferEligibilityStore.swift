import PostgresLibPQ
import SubLedgerCore

/// The ledger's reads behind offer signatures (`POST /v1/offers/signatures`): has this account had an
/// introductory offer in a subscription group?
public struct OfferEligibilityStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The facts that decide `account`'s offers in `subscriptionGroupID` of `app`, in every environment.
    ///
    /// The chains considered are those the account owns or has owned (`ownership_bindings`) and those whose
    /// transactions were credited to it, so a chain transferred away still counts: the account had the offer.
    /// A chain belongs to the group when its stored group is `subscriptionGroupID` or its transaction's product
    /// is one the catalog places in the group. A transaction used an introductory offer when the core value
    /// kept in `transactions.payload` says so: legacy `is_trial_period` / `is_in_intro_offer_period`
    /// (`isTrialPeriod`, `isInIntroOfferPeriod`) or StoreKit 2 `offerType` 1.
    public func facts(
        of account: AccountID, subscriptionGroupID: String, app: StoredApp
    ) async throws -> OfferEligibilityFacts {
        let groupProducts = app.definition.products
            .filter { $0.subscriptionGroupID == subscriptionGroupID }
            .map(\.productID).joined(separator: ",")
        return try await pool.withConnection { connection in
            let used = try connection.query(
                Self.introductoryOffer(
                    of: account, group: subscriptionGroupID, groupProducts: groupProducts, appID: app.appID)
            ).first.map { row -> IntroductoryOfferUse in
                let rawEnvironment = try row.decode(String.self, at: 0)
                guard let environment = StoreEnvironment(rawValue: rawEnvironment) else {
                    throw StoreError(
                        code: .corruptRow, message: "unknown environment '\(rawEnvironment)' in a transaction row")
                }
                return IntroductoryOfferUse(
                    environment: environment, transactionID: try row.decode(String.self, at: 1),
                    chainID: try row.decode(String.self, at: 2),
                    productID: try row.decode(String.self, at: 3),
                    purchaseDate: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 4)))
            }
            let latest = try connection.query(Self.latestTransaction(of: account, appID: app.appID))
                .first.map { try $0.decode(String.self, at: 0) }
            return OfferEligibilityFacts(introductoryOffer: used, latestTransactionID: latest)
        }
    }

    // Uses index_ownership_bindings_on_account and index_transactions_on_app_id_and_account_id for the chains,
    // then the chain's transactions by index_transactions_on_chain_and_purchase_date.
    static func introductoryOffer(of account: AccountID, group: String, groupProducts: String, appID: Int64)
        -> PostgresQuery
    {
        """
        WITH held AS (
            SELECT environment, original_transaction_id FROM ownership_bindings WHERE app_id = \(appID) AND account_id = \(account.rawValue)
            UNION
            SELECT environment, original_transaction_id FROM transactions WHERE app_id = \(appID) AND account_id = \(account.rawValue)
        )
        SELECT t.environment, t.transaction_id, t.original_transaction_id, t.product_id,
            \(milliseconds("t.purchase_date"))
        FROM held h
        JOIN chains c ON c.app_id = \(appID) AND c.environment = h.environment
            AND c.original_transaction_id = h.original_transaction_id
        JOIN transactions t ON t.app_id = \(appID) AND t.environment = h.environment
            AND t.original_transaction_id = h.original_transaction_id
        WHERE (c.subscription_group = \(group) OR t.product_id = ANY (string_to_array(\(groupProducts)::text, ','))
                OR t.payload -> 'transaction' ->> 'subscriptionGroupID' = \(group))
            AND (t.payload -> 'transaction' ->> 'isTrialPeriod' = 'true'
                OR t.payload -> 'transaction' ->> 'isInIntroOfferPeriod' = 'true'
                OR t.payload -> 'transaction' ->> 'offerType' = '1')
        ORDER BY t.purchase_date, t.transaction_id
        LIMIT 1
        """
    }

    static func latestTransaction(of account: AccountID, appID: Int64) -> PostgresQuery {
        """
        SELECT transaction_id FROM transactions WHERE app_id = \(appID) AND account_id = \(account.rawValue)
        ORDER BY purchase_date DESC, transaction_id DESC LIMIT 1
        """
    }
}
