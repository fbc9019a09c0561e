import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// One subscriber (a chain) with every transaction it holds, for the revenue rules.
    struct RevenueChain {
        var appID: Int64
        var transactions: [RevenueTransaction]
    }

    /// Every transaction of each chain in scope that has a transaction in force, purchased or refunded during
    /// [`from`, `to`), its whole history (paid service accrues over it), from the `transaction_amounts` view.
    ///
    /// No ORDER BY (sorting the whole result spilled to disk at 20,000 chains): rows are grouped by chain here
    /// and each chain's few transactions sorted. The upgrade moment is not read from the kept payload (a
    /// jsonb read and a join per row) but derived: `RevenueTransaction.markingUpgrades`.
    func revenueChains(from: Instant, to: Instant) throws -> [RevenueChain] {
        struct Key: Hashable {
            var appID: Int64
            var environment: String
            var originalTransactionID: String
        }
        var chains: [Key: RevenueChain] = [:]
        for row in try run(revenueChains(touchedFrom: from, to: to)) {
            let key = Key(
                appID: try row.decode(Int64.self, at: 0), environment: try row.decode(String.self, at: 1),
                originalTransactionID: try row.decode(String.self, at: 2))
            func instant(_ column: Int) throws -> Instant? {
                try row.decode(Int64?.self, at: column).map { Instant(millisecondsSince1970: $0) }
            }
            let transaction = RevenueTransaction(
                transactionID: try row.decode(String.self, at: 3), productID: try row.decode(String.self, at: 4),
                purchaseDate: try instant(5) ?? Instant(millisecondsSince1970: 0), expiresDate: try instant(6),
                refundDate: try instant(7), refundPercentage: try row.decode(Int?.self, at: 12),
                amountMilliunits: try row.decode(Int64?.self, at: 8),
                currency: try row.decode(String?.self, at: 9), storefront: try row.decode(String?.self, at: 10),
                isEstimated: try row.decode(Bool.self, at: 11),
                isCommitted: BillingPlan.isCommitted(try row.decode(String?.self, at: 13)),
                store: TransactionSource(rawValue: try row.decode(String.self, at: 14))?.store ?? .appStore,
                feeMilliunits: try row.decode(Int64.self, at: 15), taxMilliunits: try row.decode(Int64?.self, at: 16),
                partialRefunds: Self.partialRefunds(try row.decode(String?.self, at: 17)),
                refundedFeeMilliunits: try row.decode(Int64?.self, at: 18))
            chains[key, default: RevenueChain(appID: key.appID, transactions: [])].transactions.append(transaction)
        }
        return chains.values.map { chain in
            RevenueChain(appID: chain.appID, transactions: RevenueTransaction.markingUpgrades(chain.transactions))
        }
    }

    /// The partial refunds of a `revenueChains` row: `at:amount:fee` triples (milliseconds, milli-units),
    /// comma-separated.
    static func partialRefunds(_ text: String?) -> [PartialRefund] {
        (text ?? "").split(separator: ",").compactMap { triple in
            let parts = triple.split(separator: ":")
            guard parts.count == 3, let at = Int64(parts[0]), let amount = Int64(parts[1]), let fee = Int64(parts[2])
            else { return nil }
            return PartialRefund(date: Instant(millisecondsSince1970: at), amount: amount, fee: fee)
        }
    }

    /// The statement of `revenueChains`.
    func revenueChains(touchedFrom from: Instant, to: Instant) -> PostgresQuery {
        """
        WITH \(apps),
        touched AS (
            SELECT DISTINCT t.app_id, t.environment, t.original_transaction_id
            FROM transactions t JOIN scope s ON s.app_id = t.app_id
            WHERE \(inEnvironment("t.environment"))
              AND ((t.purchase_date < \(to)::timestamptz AND coalesce(t.expires_date, t.purchase_date) >= \(from)::timestamptz)
                OR (t.revocation_date >= \(from)::timestamptz AND t.revocation_date < \(to)::timestamptz)
                OR (\(statesFees("t.source")) AND t.revocation_date IS NULL
                    AND t.payload -> 'transaction' -> 'partialRefunds' IS NOT NULL))
        )
        SELECT a.app_id, a.environment, a.original_transaction_id, a.transaction_id, a.product_id,
            (extract(epoch FROM a.purchase_date) * 1000)::bigint, (extract(epoch FROM a.expires_date) * 1000)::bigint,
            (extract(epoch FROM a.revocation_date) * 1000)::bigint,
            a.amount_milliunits, a.currency, a.storefront, coalesce(a.estimated, false), a.revocation_percentage,
            a.billing_plan, a.source,
            CASE WHEN \(statesFees("a.source")) THEN (
                SELECT \(Self.storedProcessingFee("x")) FROM transactions x
                WHERE x.app_id = a.app_id AND x.environment = a.environment
                  AND x.original_transaction_id = a.original_transaction_id AND x.transaction_id = a.transaction_id)
            ELSE 0 END,
            CASE WHEN \(statesFees("a.source")) THEN (
                SELECT \(Self.storedTax("x")) FROM transactions x
                WHERE x.app_id = a.app_id AND x.environment = a.environment
                  AND x.original_transaction_id = a.original_transaction_id AND x.transaction_id = a.transaction_id)
            END,
            CASE WHEN \(statesFees("a.source")) AND a.revocation_date IS NULL THEN (
                SELECT string_agg(r.at || ':' || r.amount || ':' || r.fee, ',' ORDER BY r.at, r.amount)
                FROM transactions x CROSS JOIN LATERAL \(Self.storedPartialRefunds("x")) r
                WHERE x.app_id = a.app_id AND x.environment = a.environment
                  AND x.original_transaction_id = a.original_transaction_id AND x.transaction_id = a.transaction_id)
            END,
            CASE WHEN \(statesFees("a.source")) AND a.revocation_date IS NOT NULL THEN (
                SELECT \(Self.storedRefundedFee("x")) FROM transactions x
                WHERE x.app_id = a.app_id AND x.environment = a.environment
                  AND x.original_transaction_id = a.original_transaction_id AND x.transaction_id = a.transaction_id)
            END
        FROM touched k
        JOIN transaction_amounts a ON a.app_id = k.app_id AND a.environment = k.environment
            AND a.original_transaction_id = k.original_transaction_id
        """
    }

    /// The Small Business Program periods of the scope's apps, by app id.
    func smallBusinessPeriods() throws -> [Int64: [SmallBusinessPeriod]] {
        var periods: [Int64: [SmallBusinessPeriod]] = [:]
        for row in try run(
            """
            WITH \(apps)
            SELECT p.app_id, (p.effective_from - DATE '1970-01-01')::bigint, (p.effective_until - DATE '1970-01-01')::bigint
            FROM app_small_business_periods p JOIN scope s ON s.app_id = p.app_id
            """)
        {
            periods[try row.decode(Int64.self, at: 0), default: []].append(
                SmallBusinessPeriod(
                    fromDay: try row.decode(Int64.self, at: 1), untilDay: try row.decode(Int64?.self, at: 2)))
        }
        return periods
    }

    /// Tax rates per storefront, in parts per million, effective from their day.
    func taxSchedules() throws -> [String: EffectiveSchedule<Int64>] {
        var entries: [String: [(day: Int64, value: Int64)]] = [:]
        for row in try run(
            "SELECT storefront, (effective_from - DATE '1970-01-01')::bigint, round(rate * 1000000)::bigint FROM storefront_tax_rates"
        ) {
            entries[try row.decode(String.self, at: 0), default: []].append(
                (try row.decode(Int64.self, at: 1), try row.decode(Int64.self, at: 2)))
        }
        return entries.mapValues { EffectiveSchedule($0) }
    }

    /// Exchange rates into `reportingCurrency`, per currency, effective from their day.
    func exchangeSchedules(into reportingCurrency: String) throws -> [String: EffectiveSchedule<Double>] {
        var entries: [String: [(day: Int64, value: Double)]] = [:]
        for row in try run(
            """
            SELECT currency, (rate_date - DATE '1970-01-01')::bigint, rate::float8 FROM exchange_rates
            WHERE reporting_currency = \(reportingCurrency)
            """)
        {
            entries[try row.decode(String.self, at: 0), default: []].append(
                (try row.decode(Int64.self, at: 1), try row.decode(Double.self, at: 2)))
        }
        return entries.mapValues { EffectiveSchedule($0) }
    }
}

extension ReportStore {
    /// Every app's bundle id by app id.
    func bundleIDs() throws -> [Int64: String] {
        var result: [Int64: String] = [:]
        for row in try run("SELECT app_id, bundle_id FROM apps") {
            result[try row.decode(Int64.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        return result
    }
}
