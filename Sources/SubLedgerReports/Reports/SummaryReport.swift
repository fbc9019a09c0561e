import PostgresLibPQ
import SubLedgerCore

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
        /// The store that sells the product (a `Store` raw value); nil if no longer in the catalog.
        public var store: String?
        public var counts: StateCounts
    }

    /// One entitlement's chains by state: the chains of every product that grants it.
    public struct EntitlementRow: Sendable, Hashable, Codable {
        public var bundleID: String
        public var entitlementID: String
        public var counts: StateCounts
    }

    /// One entitlement's grants by hand (`EntitlementGrant`) in effect: counted apart from the chains, which a store
    /// sold, and never in `totals`.
    public struct GrantedRow: Sendable, Hashable, Codable {
        public var bundleID: String
        public var entitlementID: String
        /// Accounts holding a grant of the entitlement at `at` (revoked and ended grants left out).
        public var accounts: Int
    }

    public var at: Instant
    public var basis: Basis
    public var products: [ProductRow]
    public var entitlements: [EntitlementRow]
    public var totals: StateCounts
    /// Grants by hand in effect at `at`, per entitlement.
    public var granted: [GrantedRow] = []
}

extension Reports {
    /// Chains by state at `at` (default `now`).
    ///
    /// At or after `now` the states come from the `chains` columns with lapses applied at that instant; before
    /// `now` from each chain's last recorded state change at or before `at` (chains with no change recorded
    /// by then are left out).
    public static func summary(
        on connection: PostgresConnection, scope: ReportScope, at: Instant? = nil, now: Instant
    ) throws -> SummaryReport {
        try summary(on: connection, scope: scope, at: at, now: now, source: .aggregate)
    }

    /// `summary` from the given source for an instant in the past (the tests compare the aggregate with the
    /// ledger).
    static func summary(
        on connection: PostgresConnection, scope: ReportScope, at: Instant?, now: Instant, source: AggregateSource
    ) throws -> SummaryReport {
        let store = try ReportStore(on: connection, scope: scope)
        let instant = at ?? now
        let basis: SummaryReport.Basis = instant >= now ? .chainColumns : .stateHistory
        let counts =
            basis == .chainColumns
            ? try store.chainStateCounts(at: instant) : try store.recordedStateCounts(at: instant, source: source)
        var products: [SummaryReport.ProductRow] = []
        var index: [String: Int] = [:]
        for count in counts {
            let key = count.bundleID + "\u{0}" + count.productID
            if index[key] == nil {
                index[key] = products.count
                products.append(
                    .init(
                        bundleID: count.bundleID, productID: count.productID, productType: count.productType,
                        store: count.store, counts: StateCounts()))
            }
            products[index[key]!].counts.add(count.chains, in: count.state)
        }

        var entitlements: [String: SummaryReport.EntitlementRow] = [:]
        for grant in try store.productEntitlements() {
            let key = grant.bundleID + "\u{0}" + grant.entitlementID
            var entry =
                entitlements[key]
                ?? .init(bundleID: grant.bundleID, entitlementID: grant.entitlementID, counts: StateCounts())
            if let product = index[grant.bundleID + "\u{0}" + grant.productID] {
                entry.counts.add(products[product].counts)
            }
            entitlements[key] = entry
        }

        var totals = StateCounts()
        for product in products { totals.add(product.counts) }
        return SummaryReport(
            at: instant, basis: basis, products: products,
            entitlements: entitlements.values.sorted {
                ($0.bundleID, $0.entitlementID) < ($1.bundleID, $1.entitlementID)
            },
            totals: totals, granted: try store.grantedCounts(at: instant))
    }
}

extension ReportStore {
    /// The accounts holding a grant by hand (`entitlement_grants`) at `instant`, per app and entitlement.
    func grantedCounts(at instant: Instant) throws -> [SummaryReport.GrantedRow] {
        let at = Int64(instant.millisecondsSince1970)
        return try run(
            """
            WITH \(apps)
            SELECT s.bundle_id, g.entitlement_id, count(DISTINCT g.account_id)
            FROM entitlement_grants g JOIN scope s ON s.app_id = g.app_id
            WHERE g.starts_at <= to_timestamp(\(at)::float8 / 1000) AND g.ends_at > to_timestamp(\(at)::float8 / 1000)
              AND (g.revoked_at IS NULL OR g.revoked_at > to_timestamp(\(at)::float8 / 1000))
              AND \(inEnvironment("g.environment"))
            GROUP BY 1, 2
            ORDER BY 1, 2
            """
        ).map { row in
            SummaryReport.GrantedRow(
                bundleID: try row.decode(String.self, at: 0), entitlementID: try row.decode(String.self, at: 1),
                accounts: Int(try row.decode(Int64.self, at: 2)))
        }
    }
}
