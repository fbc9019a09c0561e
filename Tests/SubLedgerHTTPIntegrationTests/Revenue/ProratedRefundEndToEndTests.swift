import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import SubLedgerUseCases
import Testing

/// A yearly subscription bought for 99.99 and refunded in part by Apple (`REFUND_PRORATED`, 25 % of the price
/// as `revocationPercentage` 25 000), with appstore-sim as Apple and SubLedger on PostgreSQL over HTTP: access
/// ends at the refund like any refund, and every money figure gives back 24.998 (99.99 × 25 %, rounded half up),
/// not the whole price: the revenue report's refunds and net, the cohort report's refunded and net money, the
/// refunds report, and the `refund` data of the webhook; the MRR report counts the subscriber as churned in the month of the refund.
@Suite struct ProratedRefundEndToEndTests {
    typealias E = EndToEndHarness

    @Test func aProratedRefundNetsOnlyTheRefundedShareInEveryMoneyFigure() async throws {
        try await E.run { e in
            let admin = try await e.service.keys.create(bundleID: nil, name: "ops").secret
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.yearly"))
            let transactionID = try #require(bought.transactionID)
            let claimed = try await e.client.call(
                .post, "/v1/transactions", key: e.key,
                json: ["account_id": "alice", "signed_transaction": try #require(bought.signedTransaction)])
            #expect(claimed.status == .ok)
            await e.deliverNotifications()

            // Ninety days in, Apple refunds a quarter of the price.
            _ = await e.control.advanceClock(.init(seconds: 90 * 86_400))
            _ = try await e.control.refund(transactionID, RefundRequest(reason: 0, percentage: 25_000))
            await e.deliverNotifications()

            // Access ends at the refund, as with any refund.
            let entitlements = try await e.entitlements("alice")
            #expect((entitlements["entitlements"] as? [Any])?.isEmpty == true)

            // The account's transactions show the refund and its share.
            let history = try await e.client.call(.get, "/v1/accounts/alice/transactions", key: e.key)
            let refunded = try #require((history.json["transactions"] as? [[String: Any]])?.first)
            #expect(refunded["revocation_date"] is String)
            #expect(refunded["revocation_percentage"] as? Int == 25_000)

            // The webhook: the refunded share and amount as Apple stated them.
            let revoked = try #require(
                try await WebhookEventTests.timeline(e, "alice").last { $0.type == "entitlement.revoked" })
            #expect(revoked.data["reason"] as? String == "refund")
            let refund = try #require(revoked.data["refund"] as? [String: Any])
            #expect(refund["revocation_percentage"] as? Int == 25_000)
            #expect(refund["price_milli"] as? Int == 99_990)
            #expect(refund["refunded_milli"] as? Int == 24_998)
            #expect(refund["currency"] as? String == "USD")

            // The revenue report: gross 99.99, refunds 24.998, net 74.992 (once the report projector caught up).
            try await e.service.projectReports()
            let revenue = try await e.client.call(
                .get, "/v1/admin/reports/revenue?from=2025-01-01&to=2025-07-01&by=month&app=\(E.bundleID)", key: admin)
            #expect(revenue.status == .ok)
            let totals = try #require((revenue.json["totals"] as? [[String: Any]])?.first)
            let amounts = try #require(totals["amounts"] as? [String: Any])
            #expect(amounts["gross_milli"] as? Int == 99_990)
            #expect(amounts["refunds_milli"] as? Int == 24_998)
            #expect(amounts["net_milli"] as? Int == 74_992)
            // The refund's proceeds are the sale's rates on 24.998: 30 % commission, no tax loaded.
            #expect(amounts["proceeds_milli"] as? Int == 69_993 - 17_499)

            // The cohort report: the January 2025 cohort paid 99.99 and got 24.998 back.
            let retention = try await e.client.call(
                .get, "/v1/admin/reports/retention?from=2025-01-01&to=2025-02-01&months=6&app=\(E.bundleID)",
                key: admin)
            #expect(retention.status == .ok)
            let cohort = try #require((retention.json["cohorts"] as? [[String: Any]])?.first)
            let money = try #require((cohort["money"] as? [[String: Any]])?.first)
            #expect(money["currency"] as? String == "USD")
            #expect(money["gross_milli"] as? Int == 99_990)
            #expect(money["refunded_milli"] as? Int == 24_998)
            #expect(money["net_milli"] as? Int == 74_992)

            // The refunds report: the row and the totals give back the refunded share.
            let refunds = try await e.client.call(
                .get, "/v1/admin/reports/refunds?from=2025-01-01&to=2025-07-01&app=\(E.bundleID)", key: admin)
            #expect(refunds.status == .ok)
            let row = try #require((refunds.json["rows"] as? [[String: Any]])?.first)
            #expect(row["price_milli"] as? Int == 99_990)
            #expect(row["refunded_milli"] as? Int == 24_998)
            #expect(row["revocation_percentage"] as? Int == 25_000)
            let refundTotals = try #require(refunds.json["totals"] as? [String: Any])
            let byCurrency = try #require((refundTotals["amounts"] as? [[String: Any]])?.first)
            #expect(byCurrency["amount_milli"] as? Int == 24_998)

            // The MRR report: 99.99 a year is 8.333 a month from January; the refund in April churns it.
            let mrr = try await e.client.call(
                .get, "/v1/admin/reports/mrr?from=2025-01-01&to=2025-05-01&app=\(E.bundleID)", key: admin)
            #expect(mrr.status == .ok)
            let months = (mrr.json["rows"] as? [[String: Any]] ?? []).map { row in
                let movement = row["movement_milli"] as? [String: Any] ?? [:]
                return [
                    row["month"] as? String ?? "", "\(row["mrr_milli"] ?? "")", "\(movement["new"] ?? "")",
                    "\(movement["churned"] ?? "")",
                ]
            }
            #expect(
                months == [
                    ["2025-01", "8333", "8333", "0"], ["2025-02", "8333", "0", "0"], ["2025-03", "8333", "0", "0"],
                    ["2025-04", "0", "0", "8333"],
                ])
        }
    }
}
