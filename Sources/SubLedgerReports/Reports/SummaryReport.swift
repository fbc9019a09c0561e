import Foundation
import PostgresLibPQ

/// Subscription chains by state: per product, per entitlement, and in all.
public struct SummaryReport: Sendable, Hashable, Codable {
    /// Where the states were read from.
    public enum Basis: String, Sendable, Hashable, Codable {
        /// The `chains` rows' state columns, with lapses applied at `at` (see `EffectiveState`).
        case chainColumns = "chain_columns"
        /// The last `chain_state_changes` row at or before `at`, for an instant in the past.
        case stateHistory = "state_history"
    }

    /// One product's chains by state.
    public struct ProductRow: Sendable, Hashable, Codable {
        public var bundleID: String
        public var productID: String
        /// `auto_renewable`, `non_renewing`, `non_consumable` or `consumable`; nil if no longer in the catalog.
        public var productType: String?
        public var counts: StateCounts
    }

    /// One entitlement's chains by state: the chains of every product that grants it.
    public struct EntitlementRow: Sendable, Hashable, Codable {
        public var bundleID: String
        public var entitlementID: String
        public var counts: StateCounts
    }

    public var at: Date
    public var basis: Basis
    public var products: [ProductRow]
    public var entitlements: [EntitlementRow]
    public var totals: StateCounts
}

extension Reports {
    /// Chains by state at `at` (default `now`).
    ///
    /// At or after `now` the states come from the `chains` columns with lapses applied at that instant; before
    /// `now` from each chain's last recorded state change at or before `at` (chains with no change recorded
    /// by then are left out).
    public static func summary(
        on connection: PostgresConnection, scope: ReportScope, at: Date? = nil, now: Date
    ) throws -> SummaryReport {
        try scope.validate(on: connection)
        let instant = at ?? now
        let basis: SummaryReport.Basis = instant >= now ? .chainColumns : .stateHistory
        let sql = basis == .chainColumns ? currentSummarySQL : historicalSummarySQL
        var products: [SummaryReport.ProductRow] = []
        var index: [String: Int] = [:]
        for row in try connection.query(sql, scope.parameters + [instant] as [any PostgresEncodable]) {
            let bundleID = try row.decode(String.self, at: 0)
            let productID = try row.decode(String.self, at: 1)
            let key = bundleID + "\u{0}" + productID
            if index[key] == nil {
                index[key] = products.count
                products.append(.init(
                    bundleID: bundleID, productID: productID, productType: try row.decode(String?.self, at: 2),
                    counts: StateCounts()))
            }
            products[index[key]!].counts.add(try row.decode(Int.self, at: 4), in: try row.decode(String.self, at: 3))
        }

        var entitlements: [String: SummaryReport.EntitlementRow] = [:]
        for row in try connection.query(entitlementsSQL, [scope.bundleID]) {
            let bundleID = try row.decode(String.self, at: 0)
            let entitlementID = try row.decode(String.self, at: 2)
            let key = bundleID + "\u{0}" + entitlementID
            var entry = entitlements[key] ?? .init(bundleID: bundleID, entitlementID: entitlementID, counts: StateCounts())
            if let product = index[bundleID + "\u{0}" + (try row.decode(String.self, at: 1))] {
                entry.counts.add(products[product].counts)
            }
            entitlements[key] = entry
        }

        var totals = StateCounts()
        for product in products { totals.add(product.counts) }
        return SummaryReport(
            at: instant, basis: basis, products: products,
            entitlements: entitlements.values.sorted { ($0.bundleID, $0.entitlementID) < ($1.bundleID, $1.entitlementID) },
            totals: totals)
    }

    static let currentSummarySQL = """
        WITH \(ReportScope.appsCTE),
        counted AS (
            SELECT c.app_id, c.product_id, c.product_type, \(EffectiveState.sql(at: "$3::timestamptz")) AS state,
                   count(*) AS chains
            FROM chains c JOIN scope s ON s.app_id = c.app_id
            WHERE \(ReportScope.environmentCondition("c.environment"))
            GROUP BY 1, 2, 3, 4)
        SELECT s.bundle_id, k.product_id, k.product_type, k.state, k.chains
        FROM counted k JOIN scope s ON s.app_id = k.app_id
        ORDER BY s.bundle_id, k.product_id, k.state
        """

    static let historicalSummarySQL = """
        WITH \(ReportScope.appsCTE),
        latest AS (
            SELECT DISTINCT ON (x.app_id, x.environment, x.original_transaction_id) x.app_id, x.product_id, x.state
            FROM chain_state_changes x JOIN scope s ON s.app_id = x.app_id
            WHERE \(ReportScope.environmentCondition("x.environment")) AND x.changed_at <= $3::timestamptz
            ORDER BY x.app_id, x.environment, x.original_transaction_id, x.changed_at DESC, x.change_id DESC)
        SELECT s.bundle_id, l.product_id, p.product_type, l.state, count(*)
        FROM latest l JOIN scope s ON s.app_id = l.app_id
        LEFT JOIN products p ON p.app_id = l.app_id AND p.product_id = l.product_id
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 2, 4
        """

    static let entitlementsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT s.bundle_id, e.product_id, e.entitlement_id
        FROM product_entitlements e JOIN scope s ON s.app_id = e.app_id
        ORDER BY 1, 3, 2
        """
}
