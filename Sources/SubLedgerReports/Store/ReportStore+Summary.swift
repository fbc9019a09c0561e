import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// A number of chains of one product in one state.
    struct ChainStateCount {
        var bundleID: String
        var productID: String
        /// The catalog's product type; nil if the product is no longer in the catalog.
        var productType: String?
        var state: String
        var chains: Int
        /// The store that sells the product (`Store`'s raw value); nil if the product is no longer in the catalog.
        var store: String?
    }

    /// The store the app's catalog sells `k.product_id` of `k.app_id` through, as a column: the product's `store`
    /// in `apps.catalog` (an App Store product names none); NULL when the catalog no longer has the product.
    static let productStore: PostgresQuery = """
        (SELECT coalesce(p->>'store', 'app_store') FROM apps a, jsonb_array_elements(a.catalog->'products') p
         WHERE a.app_id = k.app_id AND p->>'product_id' = k.product_id LIMIT 1)
        """

    /// One entitlement a product grants.
    struct ProductEntitlement {
        var bundleID: String
        var productID: String
        var entitlementID: String
    }

    /// The `chains` rows counted per product and state at `instant`, lapses applied (see `EffectiveState`);
    /// ordered by bundle id, product and state.
    func chainStateCounts(at instant: Instant) throws -> [ChainStateCount] {
        try run(
            """
            WITH \(apps),
            counted AS (
                SELECT c.app_id, c.product_id, c.product_type, \(EffectiveState.sql(at: "\(instant)::timestamptz")) AS state,
                       count(*) AS chains
                FROM chains c JOIN scope s ON s.app_id = c.app_id
                WHERE \(inEnvironment("c.environment"))
                GROUP BY 1, 2, 3, 4)
            SELECT s.bundle_id, k.product_id, k.product_type, k.state, k.chains, \(Self.productStore)
            FROM counted k JOIN scope s ON s.app_id = k.app_id
            ORDER BY s.bundle_id, k.product_id, k.state
            """
        ).map(ChainStateCount.init(row:))
    }

    /// Each chain's last `chain_state_changes` row at or before `instant`, counted per product and state
    /// (chains with no change recorded by then are left out); ordered by bundle id, product and state.
    /// The latest rows come in index order (`index_chain_state_changes_on_chain_and_changed_at`, no sort) and
    /// are counted per app id before the few groups are joined to their names (a hash aggregate, not a sort of
    /// every chain).
    ///
    /// From `.aggregate` (the default) the same counts come from the `recorded` rows of `chain_report_spans` that
    /// contain the instant (an index-only range scan over the spans ending after it).
    func recordedStateCounts(at instant: Instant, source: AggregateSource = .aggregate) throws -> [ChainStateCount] {
        let query: PostgresQuery =
            source == .aggregate
            ? """
            WITH \(apps),
            counted AS (
                SELECT r.app_id, r.product_id, r.detail AS state, count(*) AS chains
                FROM chain_report_spans r JOIN scope s ON s.app_id = r.app_id
                WHERE r.kind = 'recorded' AND r.ends_at > \(instant)::timestamptz AND r.starts_at <= \(instant)::timestamptz
                  AND \(inEnvironment("r.environment"))
                GROUP BY 1, 2, 3)
            SELECT s.bundle_id, k.product_id, p.product_type, k.state, k.chains, \(Self.productStore)
            FROM counted k JOIN scope s ON s.app_id = k.app_id
            LEFT JOIN products p ON p.app_id = k.app_id AND p.product_id = k.product_id
            ORDER BY 1, 2, 4
            """
            : """
            WITH \(apps),
            latest AS (
                SELECT DISTINCT ON (x.app_id, x.environment, x.original_transaction_id) x.app_id, x.product_id, x.state
                FROM chain_state_changes x JOIN scope s ON s.app_id = x.app_id
                WHERE \(inEnvironment("x.environment")) AND x.changed_at <= \(instant)::timestamptz
                ORDER BY x.app_id, x.environment, x.original_transaction_id, x.changed_at DESC, x.change_id DESC),
            counted AS (SELECT app_id, product_id, state, count(*) AS chains FROM latest GROUP BY 1, 2, 3)
            SELECT s.bundle_id, k.product_id, p.product_type, k.state, k.chains, \(Self.productStore)
            FROM counted k JOIN scope s ON s.app_id = k.app_id
            LEFT JOIN products p ON p.app_id = k.app_id AND p.product_id = k.product_id
            ORDER BY 1, 2, 4
            """
        return try run(query).map(ChainStateCount.init(row:))
    }

    /// The catalog's `product_entitlements` of the scope's apps, by bundle id, entitlement and product.
    func productEntitlements() throws -> [ProductEntitlement] {
        try run(
            """
            WITH \(apps)
            SELECT s.bundle_id, e.product_id, e.entitlement_id
            FROM product_entitlements e JOIN scope s ON s.app_id = e.app_id
            ORDER BY 1, 3, 2
            """
        ).map { row in
            ProductEntitlement(
                bundleID: try row.decode(String.self, at: 0), productID: try row.decode(String.self, at: 1),
                entitlementID: try row.decode(String.self, at: 2))
        }
    }
}

extension ReportStore.ChainStateCount {
    init(row: PostgresRow) throws {
        self.init(
            bundleID: try row.decode(String.self, at: 0), productID: try row.decode(String.self, at: 1),
            productType: try row.decode(String?.self, at: 2), state: try row.decode(String.self, at: 3),
            chains: try row.decode(Int.self, at: 4), store: try row.decode(String?.self, at: 5))
    }
}
