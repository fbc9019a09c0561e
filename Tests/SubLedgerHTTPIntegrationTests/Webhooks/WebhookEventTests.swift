import AppStore
import AppStoreSimulator
import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// The outbox over real HTTP: SubLedger on PostgreSQL with appstore-sim as Apple. Each input writes the
/// events its effects call for, in the effects' transaction, once; a replay of the input writes nothing.
@Suite struct WebhookEventTests {
    typealias E = EndToEndHarness

    /// One stored event: its columns and its body as delivered.
    struct StoredEvent {
        var type: String
        var account: String?
        var sequence: Int64?
        var causeKind: String
        var causeID: String?
        var body: [String: Any]
        var text: String

        var data: [String: Any] { body["data"] as? [String: Any] ?? [:] }
        var entitlements: [[String: Any]] { body["entitlements"] as? [[String: Any]] ?? [] }
    }

    static func events(_ e: EndToEndHarness, account: String? = nil) async throws -> [StoredEvent] {
        let rows = try await e.service.pool.query(
            """
            SELECT event_type, account_id, account_sequence, cause_kind, cause_id, body FROM webhook_events
            WHERE \(account)::text IS NULL OR account_id = \(account) ORDER BY created_at, account_sequence NULLS
                FIRST, event_id
            """)
        return try rows.map { row in
            let text = try row.decode(String.self, at: 5)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            return StoredEvent(
                type: try row.decode(String.self, at: 0), account: try row.decode(String?.self, at: 1),
                sequence: try row.decode(Int64?.self, at: 2), causeKind: try row.decode(String.self, at: 3),
                causeID: try row.decode(String?.self, at: 4), body: body, text: text)
        }
    }

    /// The account's events, in sequence order.
    static func timeline(_ e: EndToEndHarness, _ account: String) async throws -> [StoredEvent] {
        try await events(e, account: account).sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
    }

    /// The last event of `account` carries exactly the entitlements `GET /v1/accounts/{id}/entitlements`
    /// answers now (compared as JSON, whatever computes or encodes either).
    static func expectEntitlementsMatchGET(
        _ e: EndToEndHarness, _ account: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws
    {
        let last = try #require(try await timeline(e, account).last, sourceLocation: sourceLocation)
        let got = try await e.entitlements(account)["entitlements"] as? [[String: Any]] ?? []
        #expect(
            NSArray(array: last.entitlements).isEqual(to: got),
            "event \(last.type): \(last.entitlements) vs GET: \(got)", sourceLocation: sourceLocation)
    }

    /// Sequences of one account are 1, 2, 3, ... with no gap and the body says the same as the column.
    static func expectSequencesCount(
        _ e: EndToEndHarness, _ account: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws
    {
        let timeline = try await timeline(e, account)
        #expect(
            timeline.map(\.sequence) == (1...Int64(max(timeline.count, 1))).prefix(timeline.count).map { $0 },
            sourceLocation: sourceLocation)
        for event in timeline {
            #expect((event.body["sequence"] as? NSNumber)?.int64Value == event.sequence, sourceLocation: sourceLocation)
            #expect(event.body["account_id"] as? String == account, sourceLocation: sourceLocation)
        }
    }

    static func count(_ e: EndToEndHarness) async throws -> Int64 {
        try await e.service.pool.query("SELECT count(*) FROM webhook_events").single().decode(Int64.self, at: 0)
    }

    static func webhookClock(_ e: EndToEndHarness) -> WebhookClock {
        WebhookClock(
            store: e.service.store, logger: TestDatabase.logger,
            now: { Instant(millisecondsSince1970: e.control.clock().now) })
    }

    /// Runs clock passes until no moment is due: a pass skips a chain that an apply holds at that instant
    /// (a notification the simulator retries meanwhile), and a later pass settles it.
    static func settleClock(_ e: EndToEndHarness) async throws -> Int {
        var written = 0
        for _ in 0..<100 {
            written += try await webhookClock(e).runPass()
            let due = try await e.service.store.dueWebhookMoments(
                now: Instant(millisecondsSince1970: e.control.clock().now), limit: 1)
            if due.isEmpty { return written }
            try await Task.sleep(for: .milliseconds(50))
        }
        return written
    }

    /// Every notification is delivered twice (Apple retries): each still makes its events once.
    @Test func purchaseClaimRenewalAutoRenewRefundAndReversalEachMakeTheirEventsOnce() async throws {
        try await E.run { e in
            _ = await e.control.updateNotificationSettings(.init(duplicate: true))
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let original = try #require(bought.originalTransactionID)
            // Apple's SUBSCRIBED came first and named no account.
            let unclaimed = try await Self.events(e).filter { $0.type == "transaction.unclaimed" }
            #expect(unclaimed.count == 1)
            #expect(unclaimed.first?.account == nil && unclaimed.first?.sequence == nil)
            #expect(unclaimed.first?.body["account_id"] is NSNull)
            #expect(unclaimed.first?.data["transaction_id"] as? String == bought.transactionID)
            #expect(unclaimed.first?.causeKind == "notification")

            _ = try await e.submitReceipt(bought.receiptData, account: "alice")
            var alice = try await Self.timeline(e, "alice")
            #expect(alice.map(\.type) == ["entitlement.granted", "transaction.claimed"])
            #expect(alice.first?.causeKind == "receipt")
            #expect(alice.first?.data["reason"] as? String == "purchase")
            #expect(alice.first?.data["original_transaction_id"] as? String == original)
            #expect(alice.first?.body["app"] as? String == E.bundleID)
            #expect(alice.first?.body["environment"] as? String == "Production")
            try await Self.expectEntitlementsMatchGET(e, "alice")

            // The same receipt again: nothing new.
            let before = try await Self.count(e)
            _ = try await e.submitReceipt(bought.receiptData, account: "alice")
            #expect(try await Self.count(e) == before)

            let renewed = try await e.control.renew(original)
            await e.deliverNotifications()
            alice = try await Self.timeline(e, "alice")
            #expect(alice.map(\.type).last == "entitlement.extended")
            let extended = try #require(alice.last)
            #expect(extended.data["transaction_id"] as? String == renewed.transactionID)
            #expect(extended.causeKind == "notification")
            let notified = try await e.service.pool.query(
                "SELECT count(*) FROM notifications WHERE notification_id = \(extended.causeID)"
            ).single()
            #expect(try notified.decode(Int64.self, at: 0) == 1)
            #expect((extended.body["cause"] as? [String: Any])?["id"] as? String == extended.causeID)
            try await Self.expectEntitlementsMatchGET(e, "alice")

            // Apple signs each change later than the one before (the simulator's clock stands still otherwise).
            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.setAutoRenew(original, enabled: false)
            await e.deliverNotifications()
            alice = try await Self.timeline(e, "alice")
            #expect(alice.last?.type == "subscription.renewal_status_changed")
            #expect(alice.last?.data["will_auto_renew"] as? Bool == false)
            try await Self.expectEntitlementsMatchGET(e, "alice")
            // Apple signs each change later than the one before (the simulator's clock stands still otherwise).
            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.setAutoRenew(original, enabled: true)
            await e.deliverNotifications()
            alice = try await Self.timeline(e, "alice")
            #expect(alice.last?.type == "subscription.renewal_status_changed")
            #expect(alice.last?.data["will_auto_renew"] as? Bool == true)

            let renewal = try #require(renewed.transactionID)
            // Apple signs each change later than the one before (the simulator's clock stands still otherwise).
            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.refund(renewal)
            await e.deliverNotifications()
            alice = try await Self.timeline(e, "alice")
            #expect(alice.last?.type == "entitlement.revoked")
            #expect(alice.last?.data["reason"] as? String == "refund")
            #expect(alice.last?.entitlements.isEmpty == true)
            try await Self.expectEntitlementsMatchGET(e, "alice")

            // Apple signs each change later than the one before (the simulator's clock stands still otherwise).
            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.reverseRefund(renewal)
            await e.deliverNotifications()
            alice = try await Self.timeline(e, "alice")
            #expect(alice.last?.type == "entitlement.restored")
            try await Self.expectEntitlementsMatchGET(e, "alice")

            #expect(
                alice.map(\.type) == [
                    "entitlement.granted", "transaction.claimed", "entitlement.extended",
                    "subscription.renewal_status_changed", "subscription.renewal_status_changed", "entitlement.revoked",
                    "entitlement.restored",
                ])
            try await Self.expectSequencesCount(e, "alice")
            // Every event has its own id, and the body's id is the row's.
            let ids = try await e.service.pool.query("SELECT event_id::text, body FROM webhook_events").map { row in
                (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1))
            }
            #expect(Set(ids.map(\.0)).count == ids.count)
            for (id, body) in ids { #expect(body.contains("\"id\":\"\(id)\"")) }

            // Replaying every notification Apple sent (as Apple's retries would) changes nothing.
            let total = try await Self.count(e)
            for notification in e.control.notifications() {
                _ = try await e.client.call(
                    .post, "/v1/notifications/appstore", key: nil, json: ["signedPayload": notification.signedPayload])
            }
            #expect(try await Self.count(e) == total)
        }
    }

    /// Billing retry with a grace period, its end by the clock, then recovery.
    @Test func billingIssueGraceEndAndRecovery() async throws {
        try await E.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let original = try #require(bought.originalTransactionID)
            _ = try await e.submitReceipt(bought.receiptData, account: "gina")
            _ = try await e.control.failBilling(original)
            _ = await e.control.advanceClock(.init(days: 32))
            await e.deliverNotifications()
            var gina = try await Self.timeline(e, "gina")
            let issue = try #require(gina.last { $0.type == "subscription.billing_issue" })
            #expect(issue.data["status"] as? String == "grace_period")
            #expect(issue.data["grace_period_expires_at"] is String)
            // The period ended, but the grace period goes on: the clock has nothing to say yet.
            #expect(try await Self.settleClock(e) == 0)
            #expect(!(try await Self.timeline(e, "gina")).contains { $0.type == "entitlement.expired" })

            _ = await e.control.advanceClock(.init(days: 17))
            await e.deliverNotifications()
            let written = try await Self.settleClock(e)
            gina = try await Self.timeline(e, "gina")
            #expect(written == 2, "\(gina.map { ($0.type, $0.data) })")
            let expired = try #require(gina.first { $0.type == "entitlement.expired" })
            #expect(expired.causeKind == "clock")
            #expect(expired.data["grace_period_ended"] as? Bool == true)
            #expect(expired.data["reason"] as? String == "billing_retry")
            #expect(expired.entitlements.isEmpty)
            #expect(
                gina.contains {
                    $0.type == "subscription.billing_issue" && $0.data["status"] as? String == "grace_period_ended"
                })
            try await Self.expectEntitlementsMatchGET(e, "gina")
            #expect(try await Self.settleClock(e) == 0)

            _ = try await e.control.recoverBilling(original)
            await e.deliverNotifications()
            gina = try await Self.timeline(e, "gina")
            #expect(
                gina.contains { $0.type == "subscription.billing_issue" && $0.data["status"] as? String == "recovered" }
            )
            #expect(gina.contains { $0.type == "entitlement.extended" })
            try await Self.expectEntitlementsMatchGET(e, "gina")
            try await Self.expectSequencesCount(e, "gina")
        }
    }

    /// An expiry with three clocks running at once yields one event, within seconds of the moment; a chain
    /// renewed before its moment yields none.
    @Test func expiryWithThreeClocksYieldsOneEventAndARenewalPreventsIt() async throws {
        try await E.run { e in
            let lapsing = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(lapsing.receiptData, account: "lars")
            _ = try await e.control.setAutoRenew(try #require(lapsing.originalTransactionID), enabled: false)
            let renewing = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(renewing.receiptData, account: "rita")
            await e.deliverNotifications()
            let moment = try #require(try EndToEndTests.expiry(of: lapsing))
            // `poll` runs the clock every 10 s, so an event is written well within 60 s of its moment.
            #expect(WebhookClock.Configuration().interval == .seconds(10))

            // Just before the moment nothing is due.
            let now = e.control.clock().now
            _ = await e.control.advanceClock(.init(milliseconds: moment - now - 1_000))
            #expect(try await Self.settleClock(e) == 0)
            // Five seconds after it, three clocks at once.
            _ = await e.control.advanceClock(.init(seconds: 6))
            await e.deliverNotifications()
            async let first = Self.webhookClock(e).runPass()
            async let second = Self.webhookClock(e).runPass()
            async let third = Self.webhookClock(e).runPass()
            let written = try await [first, second, third].reduce(0, +) + Self.settleClock(e)
            #expect(written == 1)
            let expired = try await Self.events(e).filter { $0.type == "entitlement.expired" }
            #expect(expired.count == 1)
            #expect(expired.first?.account == "lars")
            #expect(expired.first?.data["reason"] as? String == "voluntary")
            #expect(expired.first?.body["occurred_at"] as? String == EndToEndTests.iso(moment))
            #expect(expired.first?.data["expired_at"] as? String == EndToEndTests.iso(moment))
            try await Self.expectEntitlementsMatchGET(e, "lars")

            // Rita's renewal came at her period's end: later passes find no expiry for her.
            _ = await e.control.advanceClock(.init(days: 2))
            await e.deliverNotifications()
            _ = try await Self.settleClock(e)
            #expect(try await Self.events(e).filter { $0.type == "entitlement.expired" }.count == 1)
            #expect(try await Self.timeline(e, "rita").contains { $0.type == "entitlement.extended" })
        }
    }

    /// A crossgrade, consumable credits bought and refunded, and Apple's refund request.
    @Test func productChangeCreditsAndRefundRequest() async throws {
        try await E.run { e in
            _ = try e.control.addProduct(
                bundleID: E.bundleID,
                ProductDefinition(
                    productID: "pro.plus", type: .autoRenewable, subscriptionGroupID: "g1", duration: .oneMonth,
                    price: 19_990, currency: "USD"))
            let catalog = ServiceHarness.catalogYAML.replacingOccurrences(
                of: "      - { product_id: coins.100,",
                with:
                    "      - { product_id: pro.plus, type: auto_renewable, subscription_group_id: \"g1\", entitlements: [pro, plus] }\n      - { product_id: coins.100,"
            )
            let (definitions, secrets) = try CatalogFile.read(catalog)
            try await e.service.catalog.applyCatalog(definitions, secrets: secrets)

            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "pia")
            _ = try await e.control.changeProduct(try #require(bought.originalTransactionID), to: "pro.plus")
            await e.deliverNotifications()
            let pia = try await Self.timeline(e, "pia")
            let changed = try #require(pia.first { $0.type == "subscription.product_changed" })
            #expect(changed.data["kind"] as? String == "crossgrade")
            #expect(changed.data["from_product_id"] as? String == "pro.monthly")
            #expect(changed.data["to_product_id"] as? String == "pro.plus")
            #expect(!pia.contains { $0.type == "entitlement.revoked" })
            try await Self.expectEntitlementsMatchGET(e, "pia")

            let coins = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "coins.100"))
            _ = try await e.submitReceipt(coins.receiptData, account: "cody")
            var cody = try await Self.timeline(e, "cody")
            let credited = try #require(cody.first { $0.type == "credits.changed" })
            #expect((credited.data["delta"] as? NSNumber)?.int64Value == 100)
            #expect((credited.data["balance"] as? NSNumber)?.int64Value == 100)

            let coinsID = try #require(coins.transactionID)
            let asked = try await e.control.requestConsumption(coinsID)
            await e.deliverNotifications()
            cody = try await Self.timeline(e, "cody")
            let request = try #require(cody.first { $0.type == "refund.requested" })
            #expect(request.data["transaction_id"] as? String == coinsID)
            #expect(request.causeKind == "notification")
            #expect(asked.notificationUUIDs.contains(request.causeID ?? ""))

            // Apple declines that request: the purchase stands, and the app server is told.
            _ = try await e.control.declineRefund(coinsID)
            await e.deliverNotifications()
            cody = try await Self.timeline(e, "cody")
            let declined = try #require(cody.last { $0.type == "refund.declined" })
            #expect(declined.data["transaction_id"] as? String == coinsID)
            #expect(declined.data["declined_at"] is String)
            #expect(
                !cody.contains { $0.type == "credits.changed" && ($0.data["delta"] as? NSNumber)?.int64Value == -100 })

            _ = try await e.control.refund(coinsID)
            await e.deliverNotifications()
            cody = try await Self.timeline(e, "cody")
            let debited = try #require(cody.last { $0.type == "credits.changed" })
            #expect((debited.data["delta"] as? NSNumber)?.int64Value == -100)
            #expect((debited.data["balance"] as? NSNumber)?.int64Value == 0)
            try await Self.expectSequencesCount(e, "cody")
            try await Self.expectSequencesCount(e, "pia")
        }
    }

    /// The ownership rule moves a lapsed chain to the account that resubscribed: each account gets its own
    /// events, and the losing account's never names the winner.
    @Test func transferTellsBothAccountsWithoutNamingTheWinnerToTheLoser() async throws {
        try await E.run { e in
            await e.loseNotifications()
            let phone = try e.appleID()
            let first = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(first.receiptData, account: "cleo")
            let chain = try #require(first.originalTransactionID)
            _ = try await e.control.setAutoRenew(chain, enabled: false)
            _ = await e.control.advanceClock(.init(days: 35))
            let again = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(again.receiptData, account: "dan")
            let before = try await Self.count(e)
            _ = try await e.submitReceipt(again.receiptData, account: "dan")
            #expect(try await Self.count(e) == before)

            let cleo = try await Self.timeline(e, "cleo")
            let out = try #require(cleo.first { $0.type == "ownership.transferred" })
            #expect(out.data["direction"] as? String == "out")
            #expect(cleo.contains { $0.type == "entitlement.revoked" && $0.data["reason"] as? String == "transferred" })
            for event in cleo { #expect(!event.text.contains("dan"), "\(event.type) names the winner") }

            let dan = try await Self.timeline(e, "dan")
            let into = try #require(dan.first { $0.type == "ownership.transferred" })
            #expect(into.data["direction"] as? String == "in")
            #expect(into.data["previous_account_id"] as? String == "cleo")
            #expect(dan.contains { $0.type == "entitlement.granted" && $0.data["reason"] as? String == "transferred" })
            try await Self.expectEntitlementsMatchGET(e, "dan")
            try await Self.expectEntitlementsMatchGET(e, "cleo")
            try await Self.expectSequencesCount(e, "dan")
            try await Self.expectSequencesCount(e, "cleo")
        }
    }

    /// A signed transaction's events name the transaction as their cause; the renewal job's name the poll;
    /// submitting or polling the same again writes nothing.
    @Test func signedTransactionsAndPollsAreCausesAndTheirRepeatsWriteNothing() async throws {
        try await E.run { e in
            await e.loseNotifications()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let transactionID = try #require(bought.transactionID)
            let signed = try e.control.signedTransaction(transactionID)
            let body = ["account_id": "sam", "signed_transaction": signed]
            #expect(try await e.client.call(.post, "/v1/transactions", key: e.key, json: body).status == .ok)
            let sam = try await Self.timeline(e, "sam")
            #expect(sam.map(\.type) == ["entitlement.granted"])
            #expect(sam.first?.causeKind == "transaction")
            #expect(sam.first?.causeID == transactionID)
            #expect((sam.first?.body["cause"] as? [String: Any])?["kind"] as? String == "transaction")
            _ = try await e.client.call(.post, "/v1/transactions", key: e.key, json: body)
            #expect(try await Self.timeline(e, "sam").count == 1)

            // Apple's renewal of a receipt's subscription reaches SubLedger only through the renewal job.
            let polled = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(polled.receiptData, account: "paul")
            _ = await e.control.advanceClock(.init(days: 32))
            #expect(try await EndToEndTests.poller(e).runCycle().renewed >= 1)
            let paul = try await Self.timeline(e, "paul")
            #expect(paul.last?.type == "entitlement.extended")
            #expect(paul.last?.causeKind == "poll")
            #expect(paul.last?.causeID == nil)
            try await Self.expectEntitlementsMatchGET(e, "paul")
            let total = try await Self.count(e)
            _ = await e.control.advanceClock(.init(hours: 2))
            _ = try await EndToEndTests.poller(e).runCycle()
            #expect(try await Self.count(e) == total)
            try await Self.expectSequencesCount(e, "paul")
            try await Self.expectSequencesCount(e, "sam")
        }
    }

    /// Family Sharing: the member's account is granted the shared subscription, and revoked with the
    /// reason when the purchaser stops sharing.
    @Test func familySharingRevokedIsARevocationWithItsReason() async throws {
        try await E.run { e in
            let member = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "olga")
            let purchaseID = try #require(bought.transactionID)
            _ = try await e.control.shareWithFamily(purchaseID, with: member)
            let memberReceipt = try await e.control.receipt(appleID: member, bundleID: E.bundleID)
            _ = try await e.submitReceipt(memberReceipt.receiptData, account: "fay")
            var fay = try await Self.timeline(e, "fay")
            #expect(fay.contains { $0.type == "entitlement.granted" })
            #expect(fay.last?.entitlements.first?["ownership_type"] as? String == "FAMILY_SHARED")

            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.revokeFamilySharing(purchaseID, from: member)
            await e.deliverNotifications()
            fay = try await Self.timeline(e, "fay")
            // Apple's REVOKE also says the member's copy no longer renews (renewal_status_changed follows).
            let revoked = try #require(fay.first { $0.type == "entitlement.revoked" })
            #expect(revoked.data["reason"] as? String == "family_sharing_revoked")
            #expect(revoked.entitlements.isEmpty)
            try await Self.expectEntitlementsMatchGET(e, "fay")
            try await Self.expectSequencesCount(e, "fay")
            // The purchaser keeps what they bought, and was told nothing about the member.
            #expect(try await Self.timeline(e, "olga").map(\.type) == ["entitlement.granted", "transaction.claimed"])
        }
    }

    /// A failure after the outbox insert (at commit) rolls back the event and the effect together; applied
    /// again, both are there once.
    @Test func anEventAndItsEffectCommitOrRollBackTogether() async throws {
        try await E.run { e in
            try await e.service.pool.query(
                """
                CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'injected failure at commit'; END $$
                """)
            try await e.service.pool.query(
                """
                CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON webhook_events
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit()
                """)
            await e.loseNotifications()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let failed = try await e.submitReceipt(bought.receiptData, account: "ada")
            #expect(failed.status.code >= 500)
            #expect(try await Self.count(e) == 0)
            let entries: PostgresQuery = "SELECT count(*) FROM ledger_entries WHERE account_id = 'ada'"
            #expect(try await e.service.pool.query(entries).single().decode(Int64.self, at: 0) == 0)

            try await e.service.pool.query("DROP TRIGGER fail_at_commit ON webhook_events")
            let applied = try await e.submitReceipt(bought.receiptData, account: "ada")
            #expect(applied.status == .ok)
            #expect(try await Self.timeline(e, "ada").map(\.type) == ["entitlement.granted"])
            #expect(try await e.service.pool.query(entries).single().decode(Int64.self, at: 0) == 1)
            try await Self.expectSequencesCount(e, "ada")
        }
    }
}
