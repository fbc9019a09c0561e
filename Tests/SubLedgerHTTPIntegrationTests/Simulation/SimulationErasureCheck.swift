import HummingbirdTesting
import PostgresLibPQ

/// The end-of-world erasure invariant every store's simulation holds: no row of any table of the database holds an
/// erased id, in any letter case (the audit log, webhook events of any account, ledger keys and reasons included).
enum SimulationErasureCheck {
    /// Erases `account` through the admin API, then checks that an order for it is refused with 410. The pseudonym,
    /// or nil when SubLedger never saw the account (404) and `known` says so; any other answer fails the world.
    static func erase(
        _ account: String, known: Bool, bundleID: String, productID: String, client: any TestClientProtocol,
        admin: String, key: String
    ) async throws -> String? {
        let answer = try await client.call(.delete, "/v1/accounts/\(account)?bundle_id=\(bundleID)", key: admin)
        if answer.status == .notFound, !known { return nil }
        guard answer.status == .ok, let pseudonym = answer.json["pseudonym"] as? String else {
            throw SimulationFailure("erasing \(account) answered \(answer.status): \(answer.json)")
        }
        let order = try await client.call(
            .post, "/v1/orders", key: key, json: ["account_id": account, "product_id": productID])
        guard order.status == .gone else {
            throw SimulationFailure("an order for erased \(account) answered \(order.status): \(order.json)")
        }
        return pseudonym
    }

    /// The first erased id still found in a row, with the table and the row's start; nil when none is left.
    static func erasedIDLeft(_ erased: Set<String>, in pool: PostgresPool) async throws -> String? {
        guard !erased.isEmpty else { return nil }
        let tables = try await pool.query(
            """
            SELECT quote_ident(table_name) FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """
        ).map { try $0.decode(String.self, at: 0) }
        for id in erased.sorted() {
            for table in tables {
                let from = PostgresQuery(unsafeSQL: "\(table) t")
                let rows = try await pool.query(
                    "SELECT left(t::text, 600) FROM \(from) WHERE strpos(lower(t::text), \(id.lowercased())) > 0")
                if let first = rows.first {
                    return "erased \(id) is still in \(rows.count) row(s) of \(table), e.g. "
                        + (try first.decode(String.self, at: 0))
                }
            }
        }
        return nil
    }
}
