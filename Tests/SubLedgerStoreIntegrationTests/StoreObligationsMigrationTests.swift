import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// Step 43 moves every row of the two outboxes it replaces (`apple_write_backs`, `google_play_acknowledgements`)
/// into `store_obligations`, pending and done, with its attempts, lease and backoff, on its transaction's chain where
/// the ledger has the transaction, and drops them; the obligation store then claims what was due in either.
@Suite struct StoreObligationsMigrationTests {
    typealias F = LedgerFixtures

    @Test func everyRowOfBothOutboxesMovesWithItsStateAndIsClaimedFromTheOne() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            // On Citus (scripts/citus-test), the upgrade of a cluster distributed at step 42.
            let bundled = try await Migrator.bundled(before: 43, on: pool)
            let app = try await Self.appBeforeToday(on: pool)
            // The transactions of c1 and GPA.1, on chains of their own (the others' transactions are unknown).
            try await pool.execute(
                script: """
                    INSERT INTO chains (app_id, environment, original_transaction_id, product_id, product_type, state,
                        snapshot)
                    VALUES (\(app.appID), 'Production', 'o9', 'coins', 'consumable', 'active', '{}'),
                        (\(app.appID), 'Production', 'GPA.0', 'pro', 'auto_renewable', 'active', '{}');
                    INSERT INTO transactions (app_id, environment, transaction_id, original_transaction_id, product_id,
                        purchase_date, source, payload)
                    VALUES (\(app.appID), 'Production', 'c1', 'o9', 'coins', '2026-01-01T00:00:00Z', 'receipt', '{}'),
                        (\(app.appID), 'Production', 'GPA.1', 'GPA.0', 'pro', '2026-01-01T00:00:00Z', 'receipt', '{}');
                    """)
            try await pool.execute(
                script: """
                    INSERT INTO apple_write_backs (app_id, environment, kind, transaction_id, sequence, account_id,
                        created_at, state, attempts, next_attempt_at, leased_until, leased_by)
                    VALUES (\(app.appID), 'Production', 'set_app_account_token', 'o1', 2, 'erin',
                        '2026-01-01T00:00:00Z', 'retry', 3, '2026-01-01T01:00:00Z', '2026-01-01T00:05:00Z', 'poll-1');
                    INSERT INTO apple_write_backs (app_id, environment, kind, transaction_id, sequence, account_id,
                        created_at, state, attempts, sent_at, app_account_token, http_status)
                    VALUES (\(app.appID), 'Production', 'finish_transaction', 'c1', 0, 'erin',
                        '2026-01-01T00:00:01Z', 'sent', 1, '2026-01-01T00:00:02Z',
                        '0b9d6f52-3c1e-4b7a-9d2f-5e8a7c6b4d3e', 200);
                    INSERT INTO apple_write_backs (app_id, environment, kind, transaction_id, sequence, account_id,
                        created_at, state, attempts, http_status, apple_error_code, last_error)
                    VALUES (\(app.appID), 'Sandbox', 'finish_transaction', 'c2', 0, 'fred',
                        '2026-01-01T00:00:03Z', 'failed', 1, 404, 4040010, 'transaction not found');
                    INSERT INTO google_play_acknowledgements (app_id, environment, kind, purchase_token, product_id,
                        transaction_id, account_id, created_at, state, attempts, next_attempt_at, http_status,
                        last_error)
                    VALUES (\(app.appID), 'Production', 'acknowledge_subscription', 'token-1', 'pro',
                        'GPA.1', 'gina', '2026-01-01T00:00:04Z', 'retry', 2, '2026-01-01T00:30:00Z', 503,
                        'unavailable');
                    INSERT INTO google_play_acknowledgements (app_id, environment, kind, purchase_token, product_id,
                        transaction_id, account_id, created_at)
                    VALUES (\(app.appID), 'Production', 'consume_product', 'token-2', 'coins', 'GPA.2', 'gina',
                        '2026-01-01T00:00:05Z');
                    """)

            try await bundled.migrate(pool)
            let rows = try await pool.query(
                """
                SELECT store || ' ' || kind || ' ' || environment || ' ' || original_transaction_id || ' '
                    || transaction_id || ' ' || account_id || ' ' || binding_sequence || ' '
                    || coalesce(purchase_token, '-') || ' ' || coalesce(product_id, '-') || ' ' || state || ' '
                    || attempts || ' ' || coalesce(to_char(next_attempt_at AT TIME ZONE 'UTC', 'HH24:MI'), '-') || ' '
                    || coalesce(to_char(leased_until AT TIME ZONE 'UTC', 'HH24:MI'), '-') || ' '
                    || coalesce(leased_by, '-') || ' ' || coalesce(sent_at IS NOT NULL, false) || ' '
                    || coalesce(app_account_token::text, '-') || ' ' || coalesce(http_status::text, '-') || ' '
                    || coalesce(store_error_code::text, '-') || ' ' || coalesce(last_error, '-')
                FROM store_obligations ORDER BY obligation_id
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(
                rows == [
                    "app_store set_app_account_token Production o1 o1 erin 2 - - retry 3 01:00 00:05 poll-1 false - - - -",
                    "app_store finish_transaction Production o9 c1 erin 0 - - sent 1 - - - true "
                        + "0b9d6f52-3c1e-4b7a-9d2f-5e8a7c6b4d3e 200 - -",
                    "app_store finish_transaction Sandbox c2 c2 fred 0 - - failed 1 - - - false - 404 4040010 "
                        + "transaction not found",
                    "google_play acknowledge_subscription Production GPA.0 GPA.1 gina 0 token-1 pro retry 2 00:30 - - "
                        + "false - 503 - unavailable",
                    "google_play consume_product Production GPA.2 GPA.2 gina 0 token-2 coins pending 0 - - - false - - - -",
                ])
            let gone = try await pool.query(
                "SELECT to_regclass('apple_write_backs') IS NULL AND to_regclass('google_play_acknowledgements') IS NULL"
            )
            #expect(try gone.single().decode(Bool.self, at: 0))

            // Due at 01:00 (the lease ran out at 00:05): the three waiting, oldest first, whatever their store.
            let due = try await StoreObligationStore(pool: pool).claimDue(
                limit: 10, lease: .seconds(60), worker: "poll-2", now: Instant(millisecondsSince1970: 1_767_229_200_000)
            )
            #expect(due.map(\.obligation.kind) == [.setAppAccountToken, .acknowledgeSubscription, .consumeProduct])
            #expect(due.map(\.attempts) == [3, 2, 0])
            #expect(
                due.map(\.obligation.payload) == [
                    .appStore(bindingSequence: 2), .googlePlay(purchaseToken: "token-1", productID: "pro"),
                    .googlePlay(purchaseToken: "token-2", productID: "coins"),
                ])
        }
    }

    /// Step 49 queues the answer of every consumption request still waiting (pending or retry) as a store obligation,
    /// with the request's attempts and backoff, and none for a request answered before; the obligation store then
    /// claims it as a consumption answer naming its request.
    @Test func everyWaitingConsumptionRequestIsOwedItsAnswerAfterStep49() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            // On Citus (scripts/citus-test), the upgrade of a cluster distributed at step 48.
            let bundled = try await Migrator.bundled(before: 49, on: pool)
            let app = try await Self.appBeforeToday(on: pool)
            for (index, transaction, state, attempts, next) in [
                (1, "t1", "pending", 0, "NULL"), (2, "t2", "retry", 2, "'2026-01-01T00:10:00Z'"),
                (3, "t3", "sent", 1, "NULL"), (4, "t4", "skipped_no_consent", 0, "NULL"),
            ] {
                try await pool.execute(
                    script: """
                        INSERT INTO notifications (app_id, notification_id, version, notification_type, body)
                        VALUES (\(app.appID), 'n\(index)', 'v2', 'CONSUMPTION_REQUEST', '{}');
                        INSERT INTO consumption_requests (app_id, notification_row_id, environment, transaction_id,
                            original_transaction_id, requested_at, deadline_at, state, attempts, next_attempt_at,
                            leased_until, leased_by)
                        SELECT \(app.appID), notification_row_id, 'Production', '\(transaction)', 'o\(index)',
                            '2026-01-01T00:00:0\(index)Z', '2026-01-01T12:00:0\(index)Z', '\(state)', \(attempts),
                            \(next), '2026-01-01T00:05:00Z', 'poll-1'
                        FROM notifications WHERE notification_id = 'n\(index)';
                        """)
            }

            try await bundled.migrate(pool)
            let rows = try await pool.query(
                """
                SELECT o.store || ' ' || o.kind || ' ' || o.transaction_id || ' ' || o.original_transaction_id || ' '
                    || coalesce(o.account_id, '-') || ' ' || o.state || ' ' || o.attempts || ' '
                    || coalesce(to_char(o.next_attempt_at AT TIME ZONE 'UTC', 'HH24:MI'), '-') || ' '
                    || (o.consumption_request_id = r.request_id)
                FROM store_obligations o JOIN consumption_requests r ON r.request_id = o.consumption_request_id
                ORDER BY o.obligation_id
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(
                rows == [
                    "app_store send_consumption_information t1 o1 - pending 0 - true",
                    "app_store send_consumption_information t2 o2 - retry 2 00:10 true",
                ])
            // The requests' own leases are no longer used: the obligation is leased instead.
            let leased = try await pool.query("SELECT count(*) FROM consumption_requests WHERE leased_by IS NOT NULL")
            #expect(try leased.single().decode(Int64.self, at: 0) == 0)

            let due = try await StoreObligationStore(pool: pool).claimDue(
                limit: 10, lease: .seconds(60), worker: "serve-1",
                now: Instant(millisecondsSince1970: 1_767_226_800_000))  // 2026-01-01T00:20:00Z
            #expect(due.map(\.obligation.kind) == [.sendConsumptionInformation, .sendConsumptionInformation])
            #expect(due.map(\.obligation.account) == [nil, nil])
            #expect(due.map(\.attempts) == [0, 2])
            let requests = try await pool.query(
                "SELECT request_id FROM consumption_requests WHERE state IN ('pending', 'retry') ORDER BY request_id"
            ).map { try $0.decode(Int64.self, at: 0) }
            #expect(due.map(\.obligation.payload) == requests.map { .consumptionRequest(id: $0) })
            let waiting = try await ConsumptionStore(pool: pool).request(try #require(requests.first))
            #expect(waiting?.waiting == true)
            #expect(waiting?.transactionID == "t1")
        }
    }

    /// The fixtures' app stored in a schema of before step 50, which today's `CatalogStore` (writing the Stripe
    /// secrets' columns) cannot write to: its row as step 42 holds it.
    static func appBeforeToday(on pool: PostgresPool) async throws -> (appID: Int64, bundleID: String) {
        let appID = try await pool.query(
            """
            INSERT INTO apps (bundle_id, catalog) VALUES (\(F.bundleID), '{}') RETURNING app_id
            """
        ).single().decode(Int64.self, at: 0)
        return (appID, F.bundleID)
    }
}
