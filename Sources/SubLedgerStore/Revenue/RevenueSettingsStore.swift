import PostgresLibPQ
import SubLedgerCore

/// The revenue settings the reports read: exchange rates, tax rates per storefront, and each app's Small
/// Business Program periods (docs/explanation/revenue.md). Each write is one transaction: a file applies whole or not.
public struct RevenueSettingsStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Stores `rates` as worth in `reportingCurrency` (a rate already stored for the same day and currency is
    /// replaced). Returns how many rows were written.
    @discardableResult
    public func applyExchangeRates(_ rates: [RateFile.ExchangeRate], reportingCurrency: String) async throws -> Int {
        guard RevenueFieldRules.isCode(reportingCurrency) else {
            throw StoreError(
                code: .invalidRevenueSetting, message: "the reporting currency must be three uppercase letters (USD)")
        }
        return try await pool.transaction { connection in
            for rate in rates {
                try connection.query(
                    """
                    INSERT INTO exchange_rates (reporting_currency, currency, rate_date, rate)
                    VALUES (\(reportingCurrency), \(rate.currency), \(CalendarDay.text(rate.day))::date,
                        \(rate.rateText)::numeric)
                    ON CONFLICT (reporting_currency, currency, rate_date)
                    DO UPDATE SET rate = EXCLUDED.rate, loaded_at = EXCLUDED.loaded_at
                    """)
            }
            return rates.count
        }
    }

    /// Stores tax rates per storefront (a rate already stored for the same storefront and day is replaced).
    @discardableResult
    public func applyTaxRates(_ rates: [RateFile.TaxRate]) async throws -> Int {
        try await pool.transaction { connection in
            for rate in rates {
                try connection.query(
                    """
                    INSERT INTO storefront_tax_rates (storefront, effective_from, rate)
                    VALUES (\(rate.storefront), \(CalendarDay.text(rate.day))::date, \(rate.ppm)::numeric / 1000000)
                    ON CONFLICT (storefront, effective_from) DO UPDATE SET rate = EXCLUDED.rate
                    """)
            }
            return rates.count
        }
    }

    /// Puts the app with `bundleID` in the Small Business Program from `period.fromDay` (until
    /// `period.untilDay`, exclusive, or open-ended); a period starting the same day is replaced. A period
    /// overlapping another is refused.
    public func setSmallBusinessPeriod(_ period: SmallBusinessPeriod, bundleID: String) async throws {
        if let until = period.untilDay, until <= period.fromDay {
            throw StoreError(code: .invalidRevenueSetting, message: "the period must end after it starts")
        }
        try await pool.transaction { connection in
            let appID = try Self.appID(bundleID, on: connection)
            let overlapping = try connection.query(
                """
                SELECT 1 FROM app_small_business_periods
                WHERE app_id = \(appID) AND effective_from <> \(CalendarDay.text(period.fromDay))::date
                  AND daterange(effective_from, effective_until) &&
                      daterange(\(CalendarDay.text(period.fromDay))::date,
                      \(period.untilDay.map(CalendarDay.text))::date)
                """)
            guard overlapping.isEmpty else {
                throw StoreError(
                    code: .invalidRevenueSetting,
                    message: "the period overlaps another of \(bundleID): remove it first (apps small-business remove)")
            }
            try connection.query(
                """
                INSERT INTO app_small_business_periods (app_id, effective_from, effective_until)
                VALUES (\(appID), \(CalendarDay.text(period.fromDay))::date,
                    \(period.untilDay.map(CalendarDay.text))::date)
                ON CONFLICT (app_id, effective_from) DO UPDATE SET effective_until = EXCLUDED.effective_until
                """)
        }
    }

    /// Removes the app's period starting on `fromDay`; returns whether one existed.
    @discardableResult
    public func removeSmallBusinessPeriod(fromDay: Int64, bundleID: String) async throws -> Bool {
        try await pool.transaction { connection in
            let appID = try Self.appID(bundleID, on: connection)
            return try !connection.query(
                """
                DELETE FROM app_small_business_periods WHERE app_id = \(appID) AND effective_from =
                    \(CalendarDay.text(fromDay))::date RETURNING 1
                """
            ).isEmpty
        }
    }

    /// The app's Small Business Program periods, oldest first.
    public func smallBusinessPeriods(bundleID: String) async throws -> [SmallBusinessPeriod] {
        try await pool.withConnection { connection in
            let appID = try Self.appID(bundleID, on: connection)
            return try connection.query(
                """
                SELECT (effective_from - DATE '1970-01-01')::bigint, (effective_until - DATE '1970-01-01')::bigint
                FROM app_small_business_periods WHERE app_id = \(appID) ORDER BY effective_from
                """
            ).map { row in
                SmallBusinessPeriod(
                    fromDay: try row.decode(Int64.self, at: 0), untilDay: try row.decode(Int64?.self, at: 1))
            }
        }
    }

    private static func appID(_ bundleID: String, on connection: PostgresConnection) throws -> Int64 {
        guard let row = try connection.query("SELECT app_id FROM apps WHERE bundle_id = \(bundleID)").first else {
            throw StoreError(code: .unknownApp, message: "no app has the bundle id \(bundleID)")
        }
        return try row.decode(Int64.self, at: 0)
    }
}
