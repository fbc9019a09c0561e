import PostgresLibPQ
import SubLedgerCore

/// Every SQL statement of consumption requests: the app servers' consent and usage reports (append-only),
/// the requests Apple sent, and the audit trail of each answer.
///
/// Each request's answer is a store obligation (`send_consumption_information`, schema step 49): the obligation
/// sender claims and leases it (`StoreObligationStore`), and the App Store adapter reads and records the request
/// here.
public struct ConsumptionStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    // MARK: - What the app server reports

    /// Appends a consent record (granted or withdrawn) of `account`; returns its id.
    @discardableResult
    public func recordConsent(_ consent: ConsumptionConsent, account: AccountID, app: StoredApp) async throws -> Int64 {
        try await pool.transaction { connection in
            try AccountRows.ensure([account], app: app, on: connection)
            return try connection.query(
                """
                INSERT INTO consumption_consents (app_id, account_id, consented, consented_at)
                VALUES (\(app.appID), \(account.rawValue), \(consent.consented), \(timestamp(consent.at))) RETURNING
                    consent_id
                """
            ).single().decode(Int64.self, at: 0)
        }
    }

    /// Appends a usage report of `account` about `transactionID`; returns its id.
    @discardableResult
    public func recordUsage(
        _ usage: ConsumptionUsage, transactionID: String, account: AccountID, app: StoredApp
    ) async throws -> Int64 {
        try await pool.transaction { connection in
            try AccountRows.ensure([account], app: app, on: connection)
            return try connection.query(
                """
                INSERT INTO consumption_usage_reports (app_id, account_id, transaction_id, consumed_milliunits,
                    play_time_minutes, sample_content_provided, delivery_status)
                VALUES (\(app.appID), \(account.rawValue), \(transactionID), \(usage.consumedMilliunits),
                    \(usage.playTimeMinutes), \(usage.sampleContentProvided), \(usage.deliveryStatus?.rawValue))
                    RETURNING usage_id
                """
            ).single().decode(Int64.self, at: 0)
        }
    }

    /// The consent record of `account` in force at `instant` (the latest given by then), if any.
    public func consent(of account: AccountID, app: StoredApp, at instant: Instant) async throws -> ConsumptionConsent?
    {
        try await pool.withConnection { connection in
            try Self.consent(appID: app.appID, account: account.rawValue, at: instant, on: connection)
        }
    }

    static func consent(appID: Int64, account: String, at instant: Instant, on connection: PostgresConnection) throws
        -> ConsumptionConsent?
    {
        guard
            let row = try connection.query(
                """
                SELECT consented, \(milliseconds("consented_at")) FROM consumption_consents
                WHERE app_id = \(appID) AND account_id = \(account) AND consented_at <= \(timestamp(instant))
                ORDER BY consented_at DESC, consent_id DESC LIMIT 1
                """
            ).first
        else { return nil }
        return ConsumptionConsent(
            consented: try row.decode(Bool.self, at: 0),
            at: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 1)))
    }

    // MARK: - Answering

    /// The request a `send_consumption_information` obligation answers, as it stands now.
    public func request(_ requestID: Int64) async throws -> DueConsumptionRequest? {
        try await pool.query(
            """
            SELECT r.request_id, r.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = r.app_id), r.environment,
                r.transaction_id, r.original_transaction_id, \(milliseconds("r.requested_at")),
                \(milliseconds("r.deadline_at")), r.attempts, r.state
            FROM consumption_requests r WHERE r.request_id = \(requestID)
            """
        ).first.map { row in
            DueConsumptionRequest(
                requestID: try row.decode(Int64.self, at: 0),
                appID: try row.decode(Int64.self, at: 1),
                bundleID: try row.decode(String.self, at: 2),
                environment: try .stored(row.decode(String.self, at: 3)),
                transactionID: try row.decode(String.self, at: 4),
                chainID: try row.decode(String.self, at: 5),
                requestedAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 6)),
                deadline: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 7)),
                attempts: Int(try row.decode(Int32.self, at: 8)),
                waiting: ["pending", "retry"].contains(try row.decode(String.self, at: 9)))
        }
    }

    /// What the ledger and the app server know about the purchase `request` asks about, at `now`: the chain's
    /// owner, the owner's consent, the usage reported, the owner's first purchase and every purchase's price.
    public func facts(for request: DueConsumptionRequest, app: StoredApp, now: Instant) async throws -> ConsumptionFacts
    {
        try await pool.withConnection { connection in
            let chain = try connection.query(
                """
                SELECT owner_account_id, product_id FROM chains
                WHERE app_id = \(app.appID) AND environment = \(request.environment.rawValue) AND
                    original_transaction_id = \(request.chainID)
                """
            ).first
            let owner = try chain?.decode(String?.self, at: 0)
            let productID = try chain?.decode(String.self, at: 1)
            let account = owner.flatMap { try? AccountID($0) }
            var facts = ConsumptionFacts(
                productType: productID.flatMap { app.definition.product($0)?.type }, account: account, consent: nil)
            for row in try connection.query(
                """
                SELECT consumed_milliunits, play_time_minutes, sample_content_provided, delivery_status
                FROM consumption_usage_reports WHERE app_id = \(app.appID) AND transaction_id =
                    \(request.transactionID) ORDER BY usage_id
                """)
            {
                facts.usage = facts.usage.updated(
                    with: ConsumptionUsage(
                        consumedMilliunits: try row.decode(Int32?.self, at: 0).map(Int.init),
                        playTimeMinutes: try row.decode(Int64?.self, at: 1),
                        sampleContentProvided: try row.decode(Bool?.self, at: 2),
                        deliveryStatus: try row.decode(String?.self, at: 3).flatMap(ConsumptionDeliveryStatus.init)))
            }
            if let token = try connection.query(
                """
                SELECT app_account_token FROM transactions
                WHERE app_id = \(app.appID) AND environment = \(request.environment.rawValue) AND transaction_id =
                    \(request.transactionID)
                """
            ).first {
                facts.appAccountToken = try token.decode(String?.self, at: 0)
            }
            guard let account else { return facts }
            facts.consent = try Self.consent(appID: app.appID, account: account.rawValue, at: now, on: connection)
            let purchases = try connection.query(
                """
                SELECT payload::text FROM transactions WHERE app_id = \(app.appID) AND account_id = \(account.rawValue)
                ORDER BY purchase_date
                """)
            for row in purchases {
                let known = try StoredChainJSON.transaction(from: row.decode(String.self, at: 0))
                let transaction = known.transaction
                if facts.customerSince == nil || transaction.purchaseDate < facts.customerSince! {
                    facts.customerSince = transaction.purchaseDate
                }
                facts.purchases.append(
                    .init(
                        price: known.details.price, currency: known.details.currency,
                        refunded: transaction.revocationDate != nil))
            }
            return facts
        }
    }

    /// Records `record` in the audit trail and moves the request to the state it leads to, in one transaction.
    /// Only a request still waiting changes: `false` when it was answered meanwhile (the record is kept either way).
    /// The obligation sender's lease on the answer's obligation keeps two processes from answering it at once.
    @discardableResult
    public func finish(_ request: DueConsumptionRequest, _ record: ConsumptionAttemptRecord, now: Instant)
        async throws -> Bool
    {
        try await pool.transaction { connection in
            try connection.query(
                """
                INSERT INTO consumption_request_attempts (request_id, outcome, endpoint, body, http_status,
                    apple_error_code, detail, attempted_at)
                VALUES (\(request.requestID), \(record.outcome.rawValue), \(record.endpoint), \(record.body)::jsonb,
                    \(record.httpStatus), \(record.appleErrorCode.map(Int64.init)),
                    \(record.detail.map(LedgerStore.storableError)), \(timestamp(now)))
                """)
            let updated = try connection.query(
                """
                UPDATE consumption_requests SET state = \(record.outcome.state), attempts = attempts +
                    \(record.calledApple ? 1 : 0), next_attempt_at = \(timestamp(record.nextAttemptAt)),
                    last_error = \(record.outcome == .accepted ? nil : record.detail.map(LedgerStore.storableError)),
                        answered_at = CASE WHEN \(record.outcome.state) = 'sent' THEN \(timestamp(now)) ELSE
                        answered_at END
                WHERE request_id = \(request.requestID) AND state IN ('pending', 'retry')
                RETURNING request_id
                """)
            return !updated.isEmpty
        }
    }
}
