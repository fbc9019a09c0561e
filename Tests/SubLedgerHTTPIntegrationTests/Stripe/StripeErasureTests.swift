import Foundation
import HTTPTypes
import PostgresLibPQ
import StripeClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// A Checkout Session is one purchase, its buyer's (docs/guides/stripe.md, "A purchase"; docs/guides/accounts.md,
/// "Erasing an account"): submitted again by another account, before the buyer is erased or after, it moves nothing.
/// The erasure keeps the buyer's Stripe orders under the pseudonym, so the order in the subscription's metadata names
/// the pseudonym, and removes the buyer's App Store orders (their ids are app account tokens). Found by the Stripe
/// worlds of the customer-life simulation (`StripeLifeSimulationTests`, seeds 1009, 1015, … of 1001 to 1100).
@Suite struct StripeErasureTests {
    typealias Context = StripeEndToEndTests.Context

    /// Starts a checkout for `account` and pays it: the session and its subscription.
    static func buy(_ c: Context, _ account: String) async throws -> (session: String, subscription: String) {
        let session = try await c.checkout(account)
        return (session, try await c.sim.control.completeCheckout(session))
    }

    /// `account` submits `session` (the success page's `POST /v1/purchases/stripe`): the status, the results of its
    /// transactions and the entitlements it answers with.
    static func submit(_ c: Context, _ session: String, as account: String) async throws -> (
        status: HTTPResponse.Status, results: [String], entitlements: Int
    ) {
        let answer = try await c.h.call(
            .post, "/v1/purchases/stripe", json: ["account_id": account, "checkout_session_id": session])
        let transactions = answer.json["transactions"] as? [[String: Any]] ?? []
        return (
            answer.status, transactions.compactMap { $0["result"] as? String },
            (answer.json["entitlements"] as? [Any])?.count ?? -1
        )
    }

    static func erase(_ c: Context, _ account: String, admin: String) async throws -> [String: Any] {
        let answer = try await c.h.client.call(
            .delete, "/v1/accounts/\(account)?bundle_id=\(StripeHarness.bundleID)", key: admin)
        #expect(answer.status == .ok, "\(answer.json)")
        return answer.json
    }

    /// The accounts of the stored orders, each with its product.
    static func orders(_ c: Context) async throws -> [String] {
        try await c.h.pool.query("SELECT account_id || ' ' || product_id FROM orders ORDER BY 1").map {
            try $0.decode(String.self, at: 0)
        }
    }

    static func accounts(of subscription: String, _ c: Context) async throws -> [String?] {
        try await c.h.pool.query(
            "SELECT account_id FROM transactions WHERE original_transaction_id = \(subscription) ORDER BY purchase_date"
        ).map { try $0.decode(String?.self, at: 0) }
    }

    /// The buyer's subscription is set to end, the buyer is erased, and another account submits the buyer's session:
    /// it gets nothing, and is answered as it was before the erasure (the session belongs to another account).
    @Test func anErasedBuyersSessionSubmittedByAnotherAccountStaysWithThePseudonym() async throws {
        try await StripeEndToEndTests.run { c in
            let admin = try await APIKeys(store: APIKeyStore(pool: c.h.pool)).create(bundleID: nil, name: "ops").secret
            let (session, subscription) = try await Self.buy(c, "alice")
            // alice also has an App Store order: its id is an app account token.
            let appStoreOrder = try await c.h.call(
                .post, "/v1/orders", json: ["account_id": "alice", "product_id": "pro.monthly"])
            #expect(appStoreOrder.status == .created || appStoreOrder.status == .ok)
            let token = try #require(appStoreOrder.json["app_account_token"] as? String)
            // Not renewing: the ownership rule would give the subscription to another account that claimed it.
            try await c.sim.control.updateSubscription(subscription, "cancel_at_period_end=true")
            #expect(try await c.h.entitlements("alice") == ["pro"])

            let before = try await Self.submit(c, session, as: "bob")
            #expect(before.status == .ok)
            #expect(!before.results.isEmpty)
            #expect(before.results.allSatisfy { $0 == "belongs_to_another_account" }, "\(before.results)")
            #expect(before.entitlements == 0)
            #expect(try await c.owner(of: subscription) == "alice")

            let erased = try await Self.erase(c, "alice", admin: admin)
            let pseudonym = try #require(erased["pseudonym"] as? String)
            // Two orders: the Stripe one rewritten, the App Store one removed.
            #expect((erased["erased"] as? [String: Any])?["orders"] as? Int == 2)
            #expect(try await Self.orders(c) == ["\(pseudonym) \(StripeHarness.product)"])
            #expect(
                try await c.h.pool.query(
                    "SELECT count(*) FROM orders WHERE order_id = \(token)::uuid"
                ).single().decode(Int64.self, at: 0) == 0)

            let after = try await Self.submit(c, session, as: "bob")
            #expect(after.status == before.status)
            #expect(after.results == before.results)
            #expect(after.entitlements == 0)
            #expect(try await c.h.entitlements("bob") == [])
            #expect(try await c.owner(of: subscription) == pseudonym)
            #expect(try await Self.accounts(of: subscription, c) == [pseudonym])
            let verification = try await LedgerStore(pool: c.h.pool).verifyLedgerChain(appID: nil, since: nil)
            #expect(verification.isIntact, "\(verification.breaks)")
        }
    }

    /// A session bought by an id later merged into the erased account: its order names the erased account's
    /// pseudonym (the one its chain went to), not one of the merged id's own, so a third account's submission of it
    /// moves nothing either.
    @Test func aMergedIdsSessionStaysWithTheErasedAccountsPseudonym() async throws {
        try await StripeEndToEndTests.run { c in
            let admin = try await APIKeys(store: APIKeyStore(pool: c.h.pool)).create(bundleID: nil, name: "ops").secret
            let (session, subscription) = try await Self.buy(c, "anon")
            try await c.sim.control.updateSubscription(subscription, "cancel_at_period_end=true")
            let merged = try await c.h.client.call(
                .post, "/v1/accounts/alice/merge", key: admin,
                json: ["bundle_id": StripeHarness.bundleID, "from": "anon"])
            #expect(merged.status == .ok, "\(merged.json)")
            #expect(try await c.owner(of: subscription) == "alice")

            let erased = try await Self.erase(c, "alice", admin: admin)
            let pseudonym = try #require(erased["pseudonym"] as? String)
            #expect(erased["aliases"] as? Int == 1)
            #expect(try await Self.orders(c) == ["\(pseudonym) \(StripeHarness.product)"])

            let carol = try await Self.submit(c, session, as: "carol")
            #expect(carol.status == .ok)
            #expect(!carol.results.isEmpty)
            #expect(carol.results.allSatisfy { $0 == "belongs_to_another_account" }, "\(carol.results)")
            #expect(try await c.h.entitlements("carol") == [])
            #expect(try await c.owner(of: subscription) == pseudonym)
            #expect(try await Self.accounts(of: subscription, c) == [pseudonym])
        }
    }
}
