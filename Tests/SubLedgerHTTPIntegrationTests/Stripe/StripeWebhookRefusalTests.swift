import Foundation
import HTTPTypes
import PostgresLibPQ
import Stripe
import StripeStore
import SubLedgerCore
import SubLedgerStore
import Testing

/// `POST /v1/notifications/stripe` before Stripe is asked anything: refusals that store nothing, an event kept when
/// Stripe cannot be reached, an event about nothing the ledger follows, and the app's Stripe secrets sealed at rest.
/// Stripe's API here is a port nothing listens on.
@Suite struct StripeWebhookRefusalTests {
    static let unreachable = "http://127.0.0.1:9"

    static func event(_ id: String, type: String, object: String) -> Data {
        Data(
            #"{"id":"\#(id)","object":"event","type":"\#(type)","created":1764201600,"livemode":false,"data":{"object":\#(object)}}"#
                .utf8)
    }

    static func signature(_ body: Data, secret: String = StripeHarness.webhookSecret, at: Instant = Instant.systemNow())
        -> String
    {
        StripeSignature.header(body: body, timestamp: at.millisecondsSince1970 / 1000, secrets: [secret])
    }

    @Test func aMissingStaleOrForeignSignatureIsRefusedAndNothingIsStored() async throws {
        try await StripeHarness.run(stripeURL: Self.unreachable, stripeTimeout: .seconds(1)) { h in
            let body = Self.event(
                "evt_refused", type: "customer.subscription.updated", object: #"{"object":"subscription","id":"sub_1"}"#
            )
            let missing = try await h.deliver(body, signature: nil)
            #expect(missing.status == .unauthorized)
            #expect((missing.json["error"] as? [String: Any])?["code"] as? String == "invalid_signature")
            #expect(missing.headers[.wwwAuthenticate] == #"Stripe-Signature realm="Stripe webhooks""#)
            let foreign = try await h.deliver(body, signature: Self.signature(body, secret: "whsec_someone_else"))
            #expect(foreign.status == .unauthorized)
            let stale = try await h.deliver(
                body, signature: Self.signature(body, at: Instant.systemNow().adding(milliseconds: -600_000)))
            #expect(stale.status == .unauthorized)
            // Signed for another body.
            let other = Self.event(
                "evt_other", type: "customer.created", object: #"{"object":"customer","id":"cus_1"}"#)
            #expect(try await h.deliver(body, signature: Self.signature(other)).status == .unauthorized)
            #expect(try await h.storedEvents() == [])
        }
    }

    @Test func anUnsignedOrForgedBodyIsRefusedWhateverItHolds() async throws {
        try await StripeHarness.run(stripeURL: Self.unreachable, stripeTimeout: .seconds(1)) { h in
            // The signature is checked before the body is read: no JSON, JSON that is no event, an event.
            let event = Self.event(
                "evt_unsigned", type: "customer.created", object: #"{"object":"customer","id":"cus_1"}"#)
            for body in [
                Data("not json at all".utf8), Data(), Data([0xFF, 0xFE, 0x00]), Data("{}".utf8), Data("[1]".utf8),
                event,
            ] {
                let forged = Self.signature(body, secret: "whsec_someone_else")
                for signature in [nil, forged, "t=1,v1=00", "garbage"] {
                    let answer = try await h.deliver(body, signature: signature)
                    #expect(answer.status == .unauthorized, "\(String(decoding: body, as: UTF8.self))")
                    #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "invalid_signature")
                }
            }
            #expect(try await h.storedEvents() == [])
        }
    }

    @Test func aBodyThatIsNoEventIsABadRequest() async throws {
        try await StripeHarness.run(stripeURL: Self.unreachable, stripeTimeout: .seconds(1)) { h in
            for body in [
                Data("{}".utf8), Data("[1]".utf8),
                Data(#"{"id":"","type":"x","created":1,"data":{"object":{"object":"x"}}}"#.utf8),
            ] {
                let answer = try await h.deliver(body, signature: Self.signature(body))
                #expect(answer.status == .badRequest)
                #expect((answer.json["error"] as? [String: Any])?["code"] as? String == "malformed_json")
            }
            #expect(try await h.storedEvents() == [])
        }
    }

    @Test func anEventStripeCannotBeAskedAboutIsKeptAndAnsweredUnavailable() async throws {
        try await StripeHarness.run(stripeURL: Self.unreachable, stripeTimeout: .seconds(1)) { h in
            let body = Self.event(
                "evt_kept", type: "invoice.paid",
                object:
                    #"{"object":"invoice","id":"in_1","parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_1"}}}"#
            )
            let first = try await h.deliver(body, signature: Self.signature(body))
            #expect(first.status == .serviceUnavailable)
            #expect((first.json["error"] as? [String: Any])?["code"] as? String == "stripe_unavailable")
            #expect(first.headers[.retryAfter] != nil)
            #expect(try await h.storedEvents() == ["invoice.paid retry 1"])
            // Stripe's retry finds the stored row: another attempt, not another row.
            _ = try await h.deliver(body, signature: Self.signature(body))
            #expect(try await h.storedEvents() == ["invoice.paid retry 2"])
        }
    }

    @Test func anEventAboutNothingTheLedgerFollowsIsStoredAppliedAndThenADuplicate() async throws {
        try await StripeHarness.run(stripeURL: Self.unreachable, stripeTimeout: .seconds(1)) { h in
            let body = Self.event(
                "evt_customer", type: "customer.created", object: #"{"object":"customer","id":"cus_1"}"#)
            let first = try await h.deliver(body, signature: Self.signature(body))
            #expect(first.status == .ok)
            #expect(first.json["status"] as? String == "applied")
            #expect(first.json["event_type"] as? String == "customer.created")
            let again = try await h.deliver(body, signature: Self.signature(body))
            #expect(again.json["status"] as? String == "duplicate")
            #expect(try await h.storedEvents() == ["customer.created applied 1"])
        }
    }

    @Test func theAppsStripeSecretsAreSealedAtRestAndOpenAsGiven() async throws {
        try await StripeHarness.run(stripeURL: Self.unreachable, stripeTimeout: .seconds(1)) { h in
            let row = try await h.pool.query(
                """
                SELECT count(*) FILTER (WHERE s.plaintext IS NULL AND s.sealed IS NOT NULL),
                    string_agg(s.name, ',' ORDER BY s.name)
                FROM app_store_secrets s JOIN apps a ON a.app_id = s.app_id
                WHERE a.bundle_id = \(StripeHarness.bundleID) AND s.store = 'stripe'
                """
            ).single()
            #expect(try row.decode(Int64.self, at: 0) == 2)
            #expect(try row.decode(String.self, at: 1) == "secret_key,webhook_secret")
            let app = try #require(try await h.catalog.app(bundleID: StripeHarness.bundleID))
            #expect(app.stripe?.secretKey == StripeHarness.secretKey)
            #expect(app.stripe?.webhookSecret == StripeHarness.webhookSecret)
            #expect(!"\(app)".contains(StripeHarness.secretKey))
            #expect(
                try await h.catalog.apps(holding: .stripe, secrets: ["secret_key", "webhook_secret"]).map(\.bundleID)
                    == [StripeHarness.bundleID])
        }
    }

    @Test func aCheckoutOrPurchaseTheAppCannotSellThroughStripeIsRefused() async throws {
        try await StripeHarness.run(stripeURL: Self.unreachable, stripeTimeout: .seconds(1)) { h in
            let appStoreProduct = try await h.call(
                .post, "/v1/checkout/stripe",
                json: [
                    "account_id": "alice", "product_id": "pro.monthly", "price": "price_1",
                    "success_url": "https://example.com/paid",
                ])
            #expect(appStoreProduct.status == .unprocessableContent)
            let badPrice = try await h.call(
                .post, "/v1/checkout/stripe",
                json: [
                    "account_id": "alice", "product_id": StripeHarness.product, "price": "1",
                    "success_url": "https://example.com/paid",
                ])
            #expect(badPrice.status == .badRequest)
            let badURL = try await h.call(
                .post, "/v1/checkout/stripe",
                json: [
                    "account_id": "alice", "product_id": StripeHarness.product, "price": "price_1",
                    "success_url": "javascript:alert(1)",
                ])
            #expect(badURL.status == .badRequest)
            let badSession = try await h.call(
                .post, "/v1/purchases/stripe", json: ["account_id": "alice", "checkout_session_id": "pi_1"])
            #expect(badSession.status == .badRequest)
            // Stripe unreachable: the submission is kept for the renewal job and the client told to retry.
            let kept = try await h.call(
                .post, "/v1/purchases/stripe", json: ["account_id": "alice", "checkout_session_id": "cs_test_1"])
            #expect(kept.status == .serviceUnavailable)
            #expect(
                try await h.pool.query("SELECT kind, status FROM receipts").map {
                    "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1))"
                } == ["stripe_checkout retry"])
        }
    }
}
