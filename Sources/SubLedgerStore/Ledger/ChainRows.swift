import PostgresLibPQ
import SubLedgerCore

/// The `chains`, `transactions` and `ownership_bindings` tables: one `ChainSnapshot` spread over three tables.
enum ChainRows {
    /// Serializes every writer of the chains `keys`, even those not stored yet: one advisory transaction lock
    /// per chain, taken in key order so two inputs sharing chains cannot deadlock.
    static func lock(_ keys: [ChainKey], appID: Int64, on connection: PostgresConnection) throws {
        try connection.run { lock(keys, appID: appID, into: &$0) }
    }

    /// `lock`'s statements, appended to `batch`: the locks are taken when the batch runs, before its later
    /// statements (a load `FOR UPDATE` after them in the same batch runs under them).
    static func lock(_ keys: [ChainKey], appID: Int64, into batch: inout PostgresBatch) -> Batched<Void> {
        for key in keys.sorted() {
            batch.append(lock(key, appID: appID))
        }
        return .none
    }

    /// The advisory transaction lock of one chain, keyed `app:environment:original transaction id`.
    static func lock(_ key: ChainKey, appID: Int64) -> PostgresQuery {
        let lockKey = "\(appID):\(key.environment.rawValue):\(key.chainID)"
        return "SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey), 0))"
    }

    /// The columns of one fully loaded chain `t`, in one row: its snapshot, its transactions as one JSON
    /// array, and its ownership history as one JSON array of `[sequence, from, to, reason, ms, transaction]`.
    /// One row per chain keeps a load at one round trip however many tables it spans.
    static let chainColumns: PostgresQuery = """
        t.snapshot::text,
        (SELECT json_agg(x.payload)::text FROM transactions x
          WHERE x.app_id = t.app_id AND x.environment = t.environment
            AND x.original_transaction_id = t.original_transaction_id),
        (SELECT json_agg(json_build_array(b.sequence, b.from_account_id, b.account_id, b.started_reason,
                 \(milliseconds("b.started_at")), b.transaction_id) ORDER BY b.sequence)::text
          FROM ownership_bindings b
          WHERE b.app_id = t.app_id AND b.environment = t.environment
            AND b.original_transaction_id = t.original_transaction_id)
        """

    /// One chain's row `t` with `chainColumns`, every table filtered by the key itself rather than joined to `t`:
    /// so Citus, which distributes the three tables by `original_transaction_id`, routes the statement to the one
    /// worker holding the chain (and runs it `FOR UPDATE`, which it refuses across workers).
    private static func chainRow(_ key: ChainKey, appID: Int64, extra: PostgresQuery, forUpdate: Bool)
        -> PostgresQuery
    {
        let environment = key.environment.rawValue
        let id = key.chainID
        let lock: PostgresQuery = forUpdate ? "FOR UPDATE OF t" : ""
        return """
            SELECT t.snapshot::text,
                (SELECT json_agg(x.payload)::text FROM transactions x
                  WHERE x.app_id = \(appID) AND x.environment = \(environment) AND x.original_transaction_id = \(id)),
                (SELECT json_agg(json_build_array(b.sequence, b.from_account_id, b.account_id, b.started_reason,
                         \(milliseconds("b.started_at")), b.transaction_id) ORDER BY b.sequence)::text
                  FROM ownership_bindings b
                  WHERE b.app_id = \(appID) AND b.environment = \(environment) AND b.original_transaction_id = \(id))
                \(extra)
            FROM chains t
            WHERE t.app_id = \(appID) AND t.environment = \(environment) AND t.original_transaction_id = \(id)
            \(lock)
            """
    }

    /// The stored chain `key`, if any: one statement per chain.
    static func load(_ key: ChainKey, appID: Int64) -> PostgresQuery {
        chainRow(key, appID: appID, extra: "", forUpdate: false)
    }

    /// `load` row-locked, with the state and expiration reason as stored (columns 3 and 4), which `write` compares
    /// with the new state: read here, the apply needs no statement of its own for them.
    static func loadForUpdate(_ key: ChainKey, appID: Int64) -> PostgresQuery {
        chainRow(key, appID: appID, extra: ", t.state, t.expiration_reason", forUpdate: true)
    }

    /// The state and expiration reason a chain row holds (not re-evaluated now).
    struct StoredState: Sendable, Equatable {
        var state: String
        var expirationReason: String?
    }

    /// The stored chains among `keys`, with their transactions and ownership history.
    static func load(
        _ keys: [ChainKey], appID: Int64, forUpdate: Bool, on connection: PostgresConnection
    ) throws -> [ChainSnapshot] {
        guard !keys.isEmpty else { return [] }
        if forUpdate { return try loadForUpdate(keys, appID: appID, on: connection).chains }
        return try connection.run { batch in
            let indexes = keys.sorted().map { batch.append(load($0, appID: appID)) }
            return Batched { rows in try indexes.flatMap { index in try rows[index].map { try chain(from: $0, at: 0) } }
            }
        }
    }

    /// The stored chains among `keys`, row-locked, with the state each row holds.
    static func loadForUpdate(
        _ keys: [ChainKey], appID: Int64, on connection: PostgresConnection
    ) throws -> (chains: [ChainSnapshot], states: [ChainKey: StoredState]) {
        try connection.run { loadForUpdate(keys, appID: appID, into: &$0) }
    }

    /// `loadForUpdate`'s statement, appended to `batch`.
    static func loadForUpdate(
        _ keys: [ChainKey], appID: Int64, into batch: inout PostgresBatch
    ) -> Batched<(chains: [ChainSnapshot], states: [ChainKey: StoredState])> {
        guard !keys.isEmpty else { return .constant(([], [:])) }
        // One statement per chain, in key order (the order the advisory locks were taken in).
        let indexes = keys.sorted().map { batch.append(loadForUpdate($0, appID: appID)) }
        return Batched { rows in
            var chains: [ChainSnapshot] = []
            var states: [ChainKey: StoredState] = [:]
            for row in indexes.flatMap({ rows[$0] }) {
                let chain = try chain(from: row, at: 0)
                chains.append(chain)
                states[chain.key] = StoredState(
                    state: try row.decode(String.self, at: 3), expirationReason: try row.decode(String?.self, at: 4))
            }
            return (chains.sorted { $0.key < $1.key }, states)
        }
    }

    /// One chain from the three `chainColumns` starting at column `column` of `row`.
    static func chain(from row: PostgresRow, at column: Int) throws -> ChainSnapshot {
        let stored = try StoredChainJSON.chain(from: row.decode(String.self, at: column))
        var chain = ChainSnapshot(header: stored)
        if let transactions = try row.decode(String?.self, at: column + 1) {
            chain.transactions = try StoredChainJSON.transactions(from: transactions)
            chain.sortTransactions()
        }
        if let bindings = try row.decode(String?.self, at: column + 2) {
            chain.bindingChanges = try StoredChainJSON.bindings(from: bindings)
                .map { try $0.change(of: chain.key) }
        }
        return chain
    }

    /// Writes `chain` as the decision left it: the chain row with its queryable columns recomputed at `now`,
    /// the transactions that are new or changed since `previous`, and the new ownership bindings.
    /// `storedState` is the state the row held when `previous` was loaded (`loadForUpdate`; `nil` for a chain
    /// not stored yet): a change is recorded only when what the table said changes, so a lapse first noticed
    /// now is one change, not two.
    static func write(
        _ chain: ChainSnapshot, previous: ChainSnapshot?, storedState: StoredState?, app: StoredApp,
        submissionID: Int64?, now: Instant, on connection: PostgresConnection
    ) throws {
        try connection.run {
            try write(
                chain, previous: previous, storedState: storedState, app: app, submissionID: submissionID, now: now,
                into: &$0)
        }
    }

    /// `write`'s statements, appended to `batch`.
    static func write(
        _ chain: ChainSnapshot, previous: ChainSnapshot?, storedState: StoredState?, app: StoredApp,
        submissionID: Int64?, now: Instant, into batch: inout PostgresBatch
    ) throws -> Batched<Void> {
        let state = chain.state(at: now, in: app.definition)
        let storedState = previous == nil ? nil : storedState.map { ($0.state, $0.expirationReason) }
        let renewal = chain.header.renewalInfo
        let latest = chain.transactions.last
        // The latest transaction's billing plan (schema steps 33 and 34), as Apple signed it.
        let billingPlan = latest?.details.billingPlanType ?? latest?.transaction.billingPlanType
        let revokedAt = state == .revoked ? latest?.activeRevocation?.revocationDate : nil
        // Which store API reads the chain again (`ChainRefreshRoute`).
        let refreshVia = ChainRefreshRoute(of: chain).rawValue
        let header = chain.header
        let renewalJSON = renewal.map { PostgresValue.jsonb(StoredChainJSON.json(of: $0)) } ?? .null
        let commitmentEnd = latest?.details.commitment?.expiresDate
        batch.append(
            """
            INSERT INTO chains (app_id, environment, original_transaction_id, owner_account_id, product_id,
                product_type, subscription_group, state, expiration_reason, expires_at, grace_expires_at, revoked_at,
                will_auto_renew, auto_renew_product_id, in_billing_retry, renewal_info, renewal_observed_at,
                refresh_via, snapshot, last_receipt_id, billing_plan, commitment_ends_at)
            VALUES (\(app.appID), \(chain.key.environment.rawValue), \(chain.key.chainID),
                \(header.owner?.rawValue), \(header.productID), \(header.productType.rawValue),
                \(header.subscriptionGroupID), \(state.name), \(state.expirationReason?.name),
                \(timestamp(header.latestExpiry)), \(timestamp(renewal?.gracePeriodExpiresDate)), \(timestamp(revokedAt)),
                \(renewal?.willAutoRenew), \(renewal?.autoRenewProductID), \(renewal?.isInBillingRetryPeriod ?? false),
                \(renewalJSON), \(timestamp(renewal?.observedAt)), \(refreshVia),
                \(PostgresValue.jsonb(StoredChainJSON.json(of: header))), \(submissionID), \(billingPlan),
                \(timestamp(commitmentEnd)))
            \(upsertChainConflict)
            """)

        if storedState?.0 != state.name || storedState?.1 != state.expirationReason?.name {
            batch.append(
                """
                INSERT INTO chain_state_changes (app_id, environment, original_transaction_id, previous_state, state,
                    expiration_reason, product_id, changed_at, billing_plan)
                VALUES (\(app.appID), \(chain.key.environment.rawValue), \(chain.key.chainID),
                    \(storedState?.0), \(state.name), \(state.expirationReason?.name), \(header.productID),
                    \(timestamp(now)), \(billingPlan))
                """)
        }

        for known in chain.transactions where previous?.transaction(known.transactionID) != known {
            batch.append(upsertTransaction(known, appID: app.appID))
        }

        let lastStored = previous?.bindingChanges.last?.sequence ?? -1
        for change in chain.bindingChanges where change.sequence > lastStored {
            let key = change.chain
            batch.append(
                """
                UPDATE ownership_bindings SET ended_at = greatest(started_at, \(timestamp(change.at))),
                    ended_reason = \(change.reason.rawValue)
                WHERE app_id = \(app.appID) AND environment = \(key.environment.rawValue)
                  AND original_transaction_id = \(key.chainID) AND ended_at IS NULL
                """)
            batch.append(
                """
                INSERT INTO ownership_bindings (app_id, environment, original_transaction_id, sequence, account_id,
                    from_account_id, transaction_id, started_at, started_reason)
                VALUES (\(app.appID), \(key.environment.rawValue), \(key.chainID), \(change.sequence),
                    \(change.to.rawValue), \(change.from?.rawValue), \(change.transactionID), \(timestamp(change.at)),
                    \(change.reason.rawValue))
                """)
        }
        return .none
    }

    /// What an upsert of a chain row changes of a stored one.
    private static let upsertChainConflict: PostgresQuery = """
        ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE SET
            owner_account_id = EXCLUDED.owner_account_id, product_id = EXCLUDED.product_id,
            product_type = EXCLUDED.product_type, subscription_group = EXCLUDED.subscription_group,
            state = EXCLUDED.state, expiration_reason = EXCLUDED.expiration_reason, expires_at = EXCLUDED.expires_at,
            grace_expires_at = EXCLUDED.grace_expires_at, revoked_at = EXCLUDED.revoked_at,
            will_auto_renew = EXCLUDED.will_auto_renew, auto_renew_product_id = EXCLUDED.auto_renew_product_id,
            in_billing_retry = EXCLUDED.in_billing_retry, renewal_info = EXCLUDED.renewal_info,
            renewal_observed_at = EXCLUDED.renewal_observed_at, refresh_via = EXCLUDED.refresh_via,
            snapshot = EXCLUDED.snapshot, last_receipt_id = coalesce(EXCLUDED.last_receipt_id, chains.last_receipt_id),
            billing_plan = EXCLUDED.billing_plan, commitment_ends_at = EXCLUDED.commitment_ends_at,
            next_poll_at = NULL, updated_at = EXCLUDED.updated_at
        """

    /// Inserts the transaction `known`, or updates its row when its payload changed.
    static func upsertTransaction(_ known: KnownTransaction, appID: Int64) -> PostgresQuery {
        let transaction = known.transaction
        let revocation = known.activeRevocation
        // Revenue (schema step 14), through the same rules as the mapping: a bad value is NULL.
        let price = RevenueFieldRules.price(known.details.price)
        let currency = RevenueFieldRules.code(known.details.currency)
        let storefront = RevenueFieldRules.code(known.details.storefront)
        let offerType = RevenueFieldRules.offerType(transaction.offerType)
        let offerDiscountType = RevenueFieldRules.offerDiscountType(transaction.offerDiscountType)
        // The billing plan Apple signed (schema step 34: committed MRR).
        let billingPlan = known.details.billingPlanType ?? transaction.billingPlanType
        return """
            INSERT INTO transactions (app_id, environment, transaction_id, original_transaction_id, product_id,
                account_id, purchase_date, expires_date, revocation_date, revocation_reason, ownership_type,
                web_order_line_item_id, app_account_token, source, payload, price_milliunits, currency, storefront,
                offer_type, offer_discount_type, is_trial_period, is_in_intro_offer_period, revocation_percentage,
                app_transaction_id, billing_plan)
            VALUES (\(appID), \(transaction.environment.rawValue), \(transaction.transactionID),
                \(transaction.chainID), \(transaction.productID), \(known.account?.rawValue),
                \(timestamp(transaction.purchaseDate)), \(timestamp(transaction.expiresDate)),
                \(timestamp(revocation?.revocationDate)), \(revocation?.revocationReason),
                \(transaction.ownershipType.rawValue), \(transaction.webOrderLineItemID), \(transaction.accountHint),
                \(transaction.source.rawValue), \(PostgresValue.jsonb(StoredChainJSON.json(of: known))), \(price),
                \(currency), \(storefront), \(offerType), \(offerDiscountType), \(transaction.isTrialPeriod),
                \(transaction.isInIntroOfferPeriod), \(revocation?.revocationPercentage), \(known.details.appTransactionID),
                \(billingPlan))
            ON CONFLICT (app_id, environment, original_transaction_id, transaction_id) DO UPDATE SET
                account_id = EXCLUDED.account_id, product_id = EXCLUDED.product_id, purchase_date = EXCLUDED.purchase_date,
                expires_date = EXCLUDED.expires_date, revocation_date = EXCLUDED.revocation_date,
                revocation_reason = EXCLUDED.revocation_reason, ownership_type = EXCLUDED.ownership_type,
                web_order_line_item_id = EXCLUDED.web_order_line_item_id, app_account_token = EXCLUDED.app_account_token,
                source = EXCLUDED.source, payload = EXCLUDED.payload, price_milliunits = EXCLUDED.price_milliunits,
                currency = EXCLUDED.currency, storefront = EXCLUDED.storefront, offer_type = EXCLUDED.offer_type,
                offer_discount_type = EXCLUDED.offer_discount_type, is_trial_period = EXCLUDED.is_trial_period,
                is_in_intro_offer_period = EXCLUDED.is_in_intro_offer_period,
                revocation_percentage = EXCLUDED.revocation_percentage, app_transaction_id = EXCLUDED.app_transaction_id,
                billing_plan = EXCLUDED.billing_plan, updated_at = EXCLUDED.updated_at
            WHERE transactions.payload IS DISTINCT FROM EXCLUDED.payload
            """
    }

    /// The chains an account owns or has owned (its binding history), for entitlement and history reads:
    /// every chain `account` owns or has owned, fully loaded (`chainColumns` from column 1), beside the
    /// account's credit balance in column 0; an account without chains gives one row whose other columns
    /// are null. An entitlement read is this one statement.
    static func account(_ account: AccountID, appID: Int64) -> PostgresQuery {
        """
        SELECT credit.balance, owned.* FROM
          \(EntryRows.creditBalance(of: account, appID: appID)) AS credit
          LEFT JOIN LATERAL (
            SELECT \(chainColumns) FROM chains t
            WHERE t.app_id = \(appID) AND (t.environment, t.original_transaction_id) IN (
              SELECT environment, original_transaction_id FROM ownership_bindings
              WHERE app_id = \(appID) AND account_id = \(account.rawValue))
          ) AS owned ON true
        """
    }
}

/// An account id read back from the database.
func storedAccount(_ raw: String) throws -> AccountID {
    do {
        return try AccountID(raw)
    } catch {
        throw StoreError(code: .corruptRow, message: "a stored account id is not valid")
    }
}
