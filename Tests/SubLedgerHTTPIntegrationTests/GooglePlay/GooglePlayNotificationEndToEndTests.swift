import Foundation
import GooglePlay
import GooglePlayClients
import GooglePlaySimulator
import GooglePlayStore
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing
import _CryptoExtras

/// Google Play's real-time developer notifications through play-sim's Pub/Sub pushes (OIDC tokens signed by its
/// key, served as a JWKS), PostgreSQL and a live server: read back from the Developer API before anything is
/// applied, deduplicated by message id, refused with no state change when the token or package is wrong, and voided
/// purchases revoking exactly what they granted, from a notification or from the polled list.
@Suite struct GooglePlayNotificationEndToEndTests {
    typealias E2E = GooglePlayPurchaseEndToEndTests

    /// The ledger's entries, as `kind transaction_id account`, in a stable order.
    static func entries(_ h: E2E.Harness) async throws -> [String] {
        try await h.pool.query(
            """
            SELECT kind || ' ' || coalesce(transaction_id, '-') || ' ' || coalesce(account_id, '-')
            FROM ledger_entries ORDER BY kind, transaction_id, account_id
            """
        ).map { try $0.decode(String.self, at: 0) }
    }

    static func notificationRows(_ h: E2E.Harness) async throws -> [(type: String, status: String)] {
        try await h.pool.query(
            "SELECT notification_type, status FROM notifications WHERE version = 'google_rtdn' ORDER BY notification_row_id"
        ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
    }

    /// A push token as Pub/Sub signs one, signed with `key` (play-sim's push key unless given) under its key id.
    static func pushToken(
        _ h: E2E.Harness, audience: String = E2E.pushAudience, email: String = E2E.pushServiceAccount,
        issuedAt: Instant = Instant.systemNow(), lifetime: Int64 = 3600,
        key: _RSA.Signing.PrivateKey? = nil
    ) throws -> String {
        struct Claims: Encodable {
            var aud: String
            var email: String
            var email_verified: Bool
            var exp: Int64
            var iat: Int64
            var iss: String
            var sub: String
        }
        let signingKey = try key ?? _RSA.Signing.PrivateKey(pemRepresentation: h.sim.pushSigningKeyPEM)
        let kid = try #require(h.sim.pushKeySet.keys.keys.first)
        let iat = issuedAt.millisecondsSince1970 / 1000
        return try RS256.sign(
            header: CompactJWT.Header(alg: "RS256", kid: kid),
            claims: Claims(
                aud: audience, email: email, email_verified: true, exp: iat + lifetime, iat: iat,
                iss: "https://accounts.google.com", sub: "1"),
            with: signingKey)
    }

    /// Posts a push of `notification` (the base64 `data` as play-sim publishes it) as message `messageID`.
    static func push(
        _ h: E2E.Harness, data: String, messageID: String, token: String?
    ) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        let body = try JSONSerialization.data(withJSONObject: [
            "message": ["data": data, "messageId": messageID, "publishTime": "2025-01-01T00:00:00Z"],
            "subscription": "projects/p/subscriptions/rtdn",
        ])
        let answer = try await h.client.call(
            .post, "/v1/notifications/google", key: token, raw: ByteBuffer(bytes: body))
        return (answer.status, answer.json)
    }

    static func data(of notification: DeveloperNotification) throws -> String {
        try JSONEncoder().encode(notification).base64EncodedString()
    }

    @Test func aPurchaseItsRenewalAndItsRefundArriveAsNotificationsAndAreReadBackFromGoogle() async throws {
        try await E2E.run(pushes: true) { h in
            let bought = try await h.buy("pro", account: "alice")
            // SUBSCRIPTION_PURCHASED was pushed and applied before anyone submitted: the chain exists, unclaimed.
            #expect(try await Self.notificationRows(h).map(\.status) == ["applied"])
            #expect(try await h.entitlements("alice") == [])
            #expect(try await h.submit("alice", bought).status == .ok)
            #expect(try await h.entitlements("alice") == ["pro"])
            #expect(try await h.sender.runCycle().sent == 1)

            // The renewal is pushed at the period's end and extends alice's subscription.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 31))
            let renewal = try h.sim.control.describe(bought.purchaseToken)
            let renewedOrder = renewal.orderId
            #expect(renewedOrder == bought.orderId + "..0")
            #expect(try await h.entitlements("alice") == ["pro"])
            #expect(
                try await Self.notificationRows(h).map(\.type) == ["SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_RENEWED"])

            // Refunded and revoked by the developer: SUBSCRIPTION_REVOKED and the voided purchase are pushed; the
            // renewal's order is revoked, the purchase's own order is not (it was not refunded).
            _ = try await h.sim.control.refund(bought.purchaseToken, RefundRequest())
            #expect(try await h.entitlements("alice") == [])
            let rows = try await Self.notificationRows(h)
            #expect(rows.map(\.status).allSatisfy { $0 == "applied" })
            #expect(Set(rows.map(\.type)).isSuperset(of: ["SUBSCRIPTION_REVOKED", "VOIDED_PURCHASE"]))
            let entries = try await Self.entries(h)
            #expect(entries.contains("revoke \(renewedOrder) alice"))
            #expect(!entries.contains("revoke \(bought.orderId) alice"))
            #expect(entries.filter { $0.hasPrefix("revoke ") }.count == 1)
            let subscriptions = try await h.client.call(.get, "/v1/accounts/alice/subscriptions", key: h.key)
            let state = (subscriptions.json["subscriptions"] as? [[String: Any]])?.first?["state"] as? String
            #expect(state == "revoked", "\(subscriptions.json)")
            // The poller reads the subscription again later: Google states no refund on the order, which reverses
            // nothing.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(hours: 1))
            _ = try await h.ingestion.pollChain(
                ChainKey(environment: .production, chainID: bought.orderId),
                app: try #require(await h.catalog.app(bundleID: E2E.bundleID)))
            #expect(try await Self.entries(h) == entries)
        }
    }

    /// On the Citus cluster of `scripts/citus-test`: a Google notification (the renewal Pub/Sub pushes, read back
    /// from the Developer API and applied) sends every statement that touches a distributed table to one shard: the
    /// token's lineage by token, the chain's rows by its id, the read model and the webhook outbox by account.
    @Test(.enabled(if: TestDatabase.isCitus, "runs on the Citus cluster of scripts/citus-test"))
    func aRenewalNotificationSendsNoStatementToMoreThanOneShard() async throws {
        try await E2E.run(pushes: true) { h in
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", bought).status == .ok)
            // Acknowledged, or Google refunds the purchase after three days instead of renewing it.
            #expect(try await h.sender.runCycle().sent == 1)
            let recorded = try await CitusStatements.recorded(on: h.pool) {
                _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 31))
            }
            let rows = try await Self.notificationRows(h)
            #expect(rows.map(\.type) == ["SUBSCRIPTION_PURCHASED", "SUBSCRIPTION_RENEWED"], "\(rows)")
            #expect(rows.map(\.status) == ["applied", "applied"], "\(rows)")
            #expect(
                recorded.everyShard.isEmpty, "sent to every shard:\n\(recorded.everyShard.joined(separator: "\n"))")
            for table in [
                "google_purchase_tokens", "chains", "transactions", "ledger_entries", "account_entitlement_periods",
                "webhook_account_sequences",
            ] {
                #expect(recorded.distributed.contains(table), "\(table) is not distributed")
                #expect(
                    recorded.routed.contains { CitusStatements.words(of: $0).contains(table) },
                    "no statement on \(table) recorded")
            }
            #expect(try await h.entitlements("alice") == ["pro"])
        }
    }

    @Test func duplicatedAndReorderedNotificationsLeaveTheSameState() async throws {
        try await E2E.run { h in
            // Nothing is pushed (no push URL): the notifications are published, and delivered below by hand.
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", bought).status == .ok)
            #expect(try await h.sender.runCycle().sent == 1)
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 31))
            _ = try await h.sim.control.refund(bought.purchaseToken, RefundRequest())
            let published = h.sim.control.notifications()
            #expect(published.count >= 4)
            let before = try await Self.entries(h)

            // Newest first: each is read back from Google's current state, so the order does not matter.
            let token = try Self.pushToken(h)
            for record in published.reversed() {
                // Each read a minute after the one before, as deliveries come.
                _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(minutes: 1))
                let answer = try await Self.push(h, data: record.data, messageID: record.messageId, token: token)
                #expect(answer.status == .ok)
                #expect(answer.json["status"] as? String == "applied")
            }
            let settled = try await Self.entries(h)
            #expect(try await h.entitlements("alice") == [])
            let refundedOrder = try h.sim.control.describe(bought.purchaseToken).orderId
            #expect(settled.contains("revoke \(refundedOrder) alice"))
            #expect(settled.count > before.count)
            // Google's later reads of the refunded order state no refund; they must not read as its reversal.
            #expect(!settled.contains { $0.hasPrefix("restore ") })

            // Every one again, oldest first, twice: duplicates, nothing changes.
            for _ in 0..<2 {
                for record in published {
                    let answer = try await Self.push(h, data: record.data, messageID: record.messageId, token: token)
                    #expect(answer.status == .ok)
                    #expect(answer.json["status"] as? String == "duplicate")
                }
            }
            #expect(try await Self.entries(h) == settled)
            #expect(try await Self.notificationRows(h).count == published.count)
        }
    }

    @Test func forgedExpiredMisaddressedAndForeignPushesAreRefusedWithNoStateChange() async throws {
        try await E2E.run { h in
            let bought = try await h.buy("pro", account: "alice")
            let record = try #require(h.sim.control.notifications().first)
            let entriesBefore = try await Self.entries(h)
            let otherKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let hourAgo = Instant.systemNow().adding(milliseconds: -2 * 3_600_000)
            let cases: [(String, String?)] = [
                ("no token", nil),
                ("forged", try Self.pushToken(h, key: otherKey)),
                ("expired", try Self.pushToken(h, issuedAt: hourAgo)),
                ("wrong audience", try Self.pushToken(h, audience: "https://elsewhere.example/push")),
                ("wrong service account", try Self.pushToken(h, email: "someone@evil.example")),
            ]
            for (name, token) in cases {
                let answer = try await Self.push(h, data: record.data, messageID: record.messageId, token: token)
                #expect(answer.status == .unauthorized, "\(name)")
                #expect(answer.json.errorCode == "invalid_push_token", "\(name)")
            }
            // A valid token for a package SubLedger does not serve.
            var foreign = record.notification
            foreign.packageName = "com.other.app"
            let wrongPackage = try await Self.push(
                h, data: try Self.data(of: foreign), messageID: "9", token: try Self.pushToken(h))
            #expect(wrongPackage.status == .unauthorized)
            // Not a push at all.
            let garbage = try await Self.push(h, data: "not base64!", messageID: "10", token: try Self.pushToken(h))
            #expect(garbage.status == .badRequest)

            #expect(try await Self.notificationRows(h).isEmpty)
            #expect(try await Self.entries(h) == entriesBefore)
            #expect(try await h.entitlements("alice") == [])
            // The same push, properly signed, is taken.
            let good = try await Self.push(
                h, data: record.data, messageID: record.messageId, token: try Self.pushToken(h))
            #expect(good.status == .ok)
            _ = bought
        }
    }

    @Test func aNotificationGoogleCannotAnswerForIsKeptAndAppliedWhenPubSubRedeliversIt() async throws {
        try await E2E.run(pushes: true) { h in
            try h.sim.control.setFault(FaultRule(kind: "http_503"), for: .developerApi)
            let bought = try await h.buy("pro", account: "alice")
            #expect(try await Self.notificationRows(h).map(\.status) == ["retry"])
            h.sim.control.clearFaults()
            // Pub/Sub redelivers after its backoff (10 s on play-sim's clock): stored once, applied now.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(seconds: 20))
            #expect(try await Self.notificationRows(h).map(\.status) == ["applied"])
            #expect(try await h.submit("alice", bought).status == .ok)
            #expect(try await h.entitlements("alice") == ["pro"])
        }
    }

    @Test func aRefundWhoseNotificationWasDroppedIsFoundByTheVoidedPurchasesPoll() async throws {
        try await E2E.run(pushes: true) { h in
            // Three purchases of coins, credited and consumed.
            var bought: [PurchaseDescription] = []
            for account in ["carol", "dave", "erin"] {
                let purchase = try await h.buy("coins", account: account)
                #expect(try await h.submit(account, purchase).status == .ok)
                bought.append(purchase)
            }
            #expect(try await h.sender.runCycle().sent == 3)
            #expect(try await h.credits("carol") == 100)
            // Notifications are lost from here on; carol's and erin's purchases are refunded.
            _ = try await h.sim.control.updateNotificationSettings(NotificationSettingsUpdate(drop: true))
            _ = try await h.sim.control.refund(bought[0].purchaseToken, RefundRequest())
            _ = try await h.sim.control.refund(bought[2].purchaseToken, RefundRequest())
            #expect(try await h.credits("carol") == 100)

            // One voided purchase per page: the poll follows the continuation tokens to the end of the list. The
            // poller's clock runs ten minutes ahead of Google's (Google refuses a list ending in its future).
            var configuration = GooglePlayVoidedPurchases.Configuration(worker: "voided-e2e")
            configuration.pageSize = 1
            let ahead: @Sendable () -> Instant = {
                Instant(millisecondsSince1970: h.sim.control.clock().now).adding(milliseconds: 600_000)
            }
            let poller = GooglePlayVoidedPurchases(
                configuration: configuration,
                ingestion: GooglePlayIngestion(
                    store: LedgerStore(pool: h.pool), gateway: h.gateway, logger: TestDatabase.logger, now: ahead),
                store: GooglePlayRecords(pool: h.pool), catalog: h.catalog, gateway: h.gateway,
                logger: TestDatabase.logger, now: ahead)
            let report = try await poller.runCycle()
            #expect(report.listed == 2)
            #expect(report.revoked == 2)
            #expect(report.pages >= 2)
            #expect(try await h.credits("carol") == 0)
            #expect(try await h.credits("dave") == 100)
            #expect(try await h.credits("erin") == 0)
            let debits = try await Self.entries(h).filter { $0.hasPrefix("debit ") }
            #expect(debits.count == 2)
            // The cursor moved past the window; a poll before the interval reads nothing.
            #expect(try await poller.runCycle().apps == 0)
            let cursor = try await h.pool.query(
                "SELECT polled_through IS NOT NULL, page_token IS NULL, voided_seen FROM google_play_voided_cursors")
            let row = try #require(cursor.first)
            #expect(try row.decode(Bool.self, at: 0))
            #expect(try row.decode(Bool.self, at: 1))
            #expect(try row.decode(Int64.self, at: 2) == 2)
        }
    }
}
