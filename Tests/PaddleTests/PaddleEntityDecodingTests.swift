import Foundation
import Paddle
import SubLedgerCore
import Testing

/// Each entity SubLedger reads decodes from Paddle's documented shape and from paddle-sim's.
@Suite struct PaddleEntityDecodingTests {
    static func instant(_ text: String) throws -> Instant { try #require(Instant(acceptedRFC3339: text)) }

    @Test func aDocumentedTransaction() throws {
        let transaction = try PaddleDecoding.decode(
            PaddleTransaction.self, from: Fixtures.data("transaction_documented"))
        #expect(transaction.id == "txn_01hv8wptq8987qeep44cyrewp9")
        #expect(transaction.status == .completed && transaction.status.isPaid)
        #expect(transaction.origin == .web)
        #expect(transaction.customerID == "ctm_01hv8wt8nffez4p2t6typn4a5j")
        #expect(transaction.subscriptionID == "sub_01hv8x29kz0t586xy6zn1a62ny")
        // Text entries are kept; a number and a null are the seller's own.
        #expect(transaction.customData == ["subledger_order": "order-7", "subledger_app": "com.example.notes"])
        #expect(transaction.currencyCode == "EUR")
        // Microseconds are read to the millisecond, truncated; a fraction of 4 or 1 digits too.
        #expect(transaction.billedAt == Instant(millisecondsSince1970: 1_712_917_128_294))
        #expect(transaction.createdAt == Instant(millisecondsSince1970: 1_712_916_753_201))
        #expect(transaction.billingPeriod?.startsAt == (try Self.instant("2024-04-12T10:18:47.635Z")))
        #expect(transaction.billingPeriod?.endsAt == (try Self.instant("2024-05-12T10:18:47.635Z")))
        let item = try #require(transaction.items.first)
        #expect(item.price.id == "pri_01gsz8x8sawmvhz1pv30nge1ke")
        #expect(item.price.productID == "pro_01gsz4t5hdjse780zja8vvr7jg")
        #expect(item.price.billingCycle == PaddleDuration(interval: .month, frequency: 1))
        #expect(item.quantity == 1)
        let totals = try #require(transaction.details?.totals)
        #expect(
            totals
                == PaddleTransaction.Totals(
                    subtotal: 3000, discount: 0, tax: 570, total: 3570, grandTotal: 3570, fee: 229, earnings: 2771,
                    currencyCode: "EUR"))
        #expect(
            transaction.details?.payoutTotals
                == PaddleTransaction.PayoutTotals(
                    subtotal: 3261, tax: 620, total: 3881, fee: 249, earnings: 3012, currencyCode: "USD"))
    }

    @Test func aSimulatedTransaction() throws {
        let transaction = try PaddleDecoding.decode(
            PaddleTransaction.self, from: Fixtures.data("transaction_simulated"))
        #expect(transaction.status == .completed && transaction.origin == .api)
        #expect(transaction.customData.isEmpty)
        #expect(transaction.billingPeriod?.startsAt == (try Self.instant("2025-01-01T00:00:00Z")))
        #expect(transaction.details?.totals?.fee == 105 && transaction.details?.totals?.earnings == 895)
        #expect(transaction.details?.payoutTotals?.currencyCode == "USD")
    }

    @Test func aDraftTransactionStatesNoCustomerPeriodOrFeeYet() throws {
        var draft = try Fixtures.object("transaction_simulated")
        draft["status"] = "draft"
        draft["customer_id"] = NSNull()
        draft["subscription_id"] = NSNull()
        draft["billing_period"] = NSNull()
        draft["billed_at"] = NSNull()
        var details = try #require(draft["details"] as? [String: Any])
        var totals = try #require(details["totals"] as? [String: Any])
        totals["fee"] = NSNull()
        totals["earnings"] = NSNull()
        details["totals"] = totals
        details["payout_totals"] = NSNull()
        draft["details"] = details
        let transaction = try PaddleDecoding.decode(
            PaddleTransaction.self, from: JSONSerialization.data(withJSONObject: draft))
        #expect(transaction.status == .draft && !transaction.status.isPaid)
        #expect(transaction.customerID == nil && transaction.billingPeriod == nil && transaction.billedAt == nil)
        #expect(transaction.details?.totals?.fee == nil && transaction.details?.payoutTotals == nil)
    }

    @Test func aDocumentedSubscription() throws {
        let subscription = try PaddleDecoding.decode(
            PaddleSubscription.self, from: Fixtures.data("subscription_documented"))
        #expect(subscription.id == "sub_01hv8x29kz0t586xy6zn1a62ny" && subscription.status == .active)
        #expect(subscription.customerID == "ctm_01hv8wt8nffez4p2t6typn4a5j")
        #expect(subscription.customData == ["subledger_order": "order-7"])
        #expect(subscription.currencyCode == "EUR")
        #expect(subscription.startedAt == (try Self.instant("2024-04-12T10:18:47.635Z")))
        #expect(subscription.firstBilledAt == subscription.startedAt)
        #expect(subscription.nextBilledAt == (try Self.instant("2024-05-12T10:18:47.635Z")))
        #expect(subscription.pausedAt == nil && subscription.canceledAt == nil)
        #expect(subscription.currentBillingPeriod?.endsAt == subscription.nextBilledAt)
        #expect(subscription.billingCycle == PaddleDuration(interval: .month, frequency: 1))
        #expect(
            subscription.scheduledChange
                == PaddleSubscription.ScheduledChange(
                    action: .cancel, effectiveAt: try Self.instant("2024-05-12T10:18:47.635Z")))
        #expect(subscription.items.count == 1 && subscription.items[0].status == "active")
        #expect(subscription.productID == "pro_01gsz4t5hdjse780zja8vvr7jg")
    }

    @Test func aSimulatedPausedSubscription() throws {
        let subscription = try PaddleDecoding.decode(
            PaddleSubscription.self, from: Fixtures.data("subscription_simulated"))
        #expect(subscription.status == .paused)
        #expect(subscription.pausedAt == (try Self.instant("2025-02-01T00:00:00Z")))
        #expect(subscription.nextBilledAt == nil && subscription.currentBillingPeriod == nil)
        #expect(subscription.scheduledChange?.action == .resume)
        #expect(subscription.scheduledChange?.resumeAt == (try Self.instant("2025-03-01T00:00:00Z")))
        #expect(subscription.items[0].quantity == 2)
        #expect(subscription.items[0].price.trialPeriod == PaddleDuration(interval: .day, frequency: 14))
    }

    @Test func aDocumentedAdjustment() throws {
        let adjustment = try PaddleDecoding.decode(PaddleAdjustment.self, from: Fixtures.data("adjustment_documented"))
        #expect(adjustment.id == "adj_01hvgf2s84dr6reszzg29zbvcm")
        #expect(adjustment.action == .refund && adjustment.type == .partial && adjustment.status == .approved)
        #expect(adjustment.transactionID == "txn_01hv8wptq8987qeep44cyrewp9")
        #expect(adjustment.subscriptionID == "sub_01hv8x29kz0t586xy6zn1a62ny")
        #expect(
            adjustment.totals
                == PaddleAdjustment.Totals(
                    subtotal: 1000, tax: 190, total: 1190, fee: 76, earnings: 924, retainedFee: 0,
                    currencyCode: "EUR"))
        #expect(
            adjustment.payoutTotals
                == PaddleAdjustment.PayoutTotals(
                    subtotal: 1087, tax: 207, total: 1294, fee: 83, chargebackFee: 0, earnings: 1004,
                    currencyCode: "USD"))
        #expect(adjustment.createdAt == (try Self.instant("2024-04-15T08:48:20.239Z")))
        #expect(adjustment.updatedAt == (try Self.instant("2024-04-15T09:01:12.500Z")))
    }

    @Test func aSimulatedChargeback() throws {
        let adjustment = try PaddleDecoding.decode(PaddleAdjustment.self, from: Fixtures.data("adjustment_simulated"))
        #expect(adjustment.action == .chargeback && adjustment.type == .full)
        #expect(adjustment.payoutTotals == nil && adjustment.totals.total == 1100)
    }

    @Test func anAdjustmentActionPaddleAddsLaterIsKept() throws {
        let data = try Fixtures.data("adjustment_documented", setting: ["action"], to: "chargeback_warning_reverse")
        let adjustment = try PaddleDecoding.decode(PaddleAdjustment.self, from: data)
        #expect(adjustment.action.rawValue == "chargeback_warning_reverse")
        let untyped = try Fixtures.data("adjustment_documented", setting: ["type"], to: nil)
        #expect(try PaddleDecoding.decode(PaddleAdjustment.self, from: untyped).type == nil)
    }

    @Test func eventsCarryTheirEntity() throws {
        let transaction = try Fixtures.object("transaction_documented")
        let event = try PaddleDecoding.decode(
            PaddleEvent.self, from: Fixtures.event(type: "transaction.completed", entity: transaction))
        #expect(event.eventID == "evt_01hv8x2a3dk5yk6v6e1gqypv3h")
        #expect(event.eventType == .transactionCompleted && event.eventType.isFollowed)
        #expect(event.occurredAt == (try Self.instant("2024-04-12T10:18:49.738Z")))
        #expect(event.notificationID == nil)
        guard case .transaction(let read) = event.entity else {
            Issue.record("not a transaction: \(event.entity)")
            return
        }
        #expect(read.id == "txn_01hv8wptq8987qeep44cyrewp9")
        #expect(event.transactionID == read.id && event.subscriptionID == read.subscriptionID)

        let subscription = try PaddleDecoding.decode(
            PaddleEvent.self,
            from: Fixtures.event(type: "subscription.canceled", entity: Fixtures.object("subscription_documented")))
        #expect(subscription.subscriptionID == "sub_01hv8x29kz0t586xy6zn1a62ny" && subscription.transactionID == nil)
        let adjustment = try PaddleDecoding.decode(
            PaddleEvent.self,
            from: Fixtures.event(type: "adjustment.updated", entity: Fixtures.object("adjustment_documented")))
        #expect(adjustment.transactionID == "txn_01hv8wptq8987qeep44cyrewp9")
    }

    @Test func anEventOfAnEntityNotFollowedIsKeptAsOther() throws {
        let event = try PaddleDecoding.decode(
            PaddleEvent.self,
            from: Fixtures.event(type: "customer.imported", entity: ["id": "ctm_1", "anything": [1, 2]]))
        #expect(event.entity == .other && !event.eventType.isFollowed)
        #expect(event.eventType.rawValue == "customer.imported" && event.eventType.entityName == "customer")
        #expect(event.subscriptionID == nil && event.transactionID == nil)
        // A new event type of a followed entity is read (its entity is), though not followed by name.
        let revised = try PaddleDecoding.decode(
            PaddleEvent.self,
            from: Fixtures.event(type: "transaction.revised", entity: Fixtures.object("transaction_simulated")))
        #expect(!revised.eventType.isFollowed && revised.transactionID == "txn_0000000000000000000000000a")
    }

    @Test func aNotificationNeedsItsNotificationID() throws {
        let entity = try Fixtures.object("subscription_simulated")
        let notification = try PaddleNotification(
            body: Fixtures.event(type: "subscription.paused", entity: entity, notificationID: "ntf_01hv8x2a3dk"))
        #expect(notification.notificationID == "ntf_01hv8x2a3dk")
        #expect(notification.event.eventType == .subscriptionPaused)
        #expect(throws: PaddleWireError(.missingField, "notification_id")) {
            try PaddleNotification(body: Fixtures.event(type: "subscription.paused", entity: entity))
        }
    }

    @Test func aPageNamesTheNextCursor() throws {
        let body = Data(
            #"""
            {"data": [{"id": "a"}], "meta": {"request_id": "r", "pagination": {"per_page": 1,
             "next": "https://api.paddle.com/events?per_page=1&after=evt_01hv8x2a3dk5yk6v6e1gqypv3h", "has_more": true,
             "estimated_total": 3}}}
            """#.utf8)
        struct Named: Decodable, Sendable { var id: String }
        let page = try PaddleDecoding.decode(PaddlePage<Named>.self, from: body)
        #expect(page.hasMore && page.nextAfter == "evt_01hv8x2a3dk5yk6v6e1gqypv3h" && page.estimatedTotal == 3)
        let odd = Data(
            #"{"data": [], "meta": {"pagination": {"next": "https://x/?after=%00bad", "has_more": false}}}"#.utf8)
        let empty = try PaddleDecoding.decode(PaddlePage<Named>.self, from: odd)
        #expect(empty.nextAfter == nil && !empty.hasMore)
    }

    @Test func paddlesErrorEnvelopeDecodes() throws {
        let body = Data(
            #"""
            {"error": {"type": "request_error", "code": "not_found", "detail": "Entity txn_1 not found",
             "documentation_url": "https://developer.paddle.com/v1/errors/shared/not_found",
             "errors": [{"field": "id", "message": "unknown"}]}, "meta": {"request_id": "9f6b1c2e"}}
            """#.utf8)
        let error = try PaddleDecoding.decode(PaddleErrorBody.self, from: body)
        #expect(error.error.code == "not_found" && error.error.type == "request_error")
        #expect(error.error.documentationURL?.hasSuffix("not_found") == true)
        #expect(error.error.errors?.first?.field == "id" && error.meta?.requestID == "9f6b1c2e")
    }
}
