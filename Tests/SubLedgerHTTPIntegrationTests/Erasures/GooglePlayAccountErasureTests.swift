import Foundation
import GooglePlaySimulator
import HTTPTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// Erasing an account that bought on Google Play, through play-sim and PostgreSQL (docs/guides/accounts.md, "Erasing
/// an account"): neither the account id nor the obfuscated account id the app gave Google is left anywhere in the
/// database, and `account.erased` reaches the app's webhook receiver, as do the account's earlier events, all under
/// the pseudonym.
@Suite struct GooglePlayAccountErasureTests {
    /// Distinctive, so that a dump holding them anywhere is told apart from one holding similar text.
    static let customer = "gp-customer-3a91d7"
    static let obfuscated = "obf-5e02c8b1f4"

    @Test func aGooglePlayCustomerIsErasedAndTheReceiverGetsAccountErased() async throws {
        try await GooglePlayPurchaseEndToEndTests.run { h in
            let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                received.accept(request) == nil ? .empty(status: 400) : .empty(status: 204)
            }) { receiver in
                let appID = try #require(
                    try await h.catalog.app(bundleID: GooglePlayPurchaseEndToEndTests.bundleID)
                ).appID
                try await h.pool.query(
                    """
                    INSERT INTO webhook_endpoints (endpoint_id, app_id, url, allow_private_network, secret)
                    VALUES (\(UUID()), \(appID), \(receiver.baseURL + "/hooks"), true, \(WebhookDeliveryHarness.secret))
                    """)
                for product in ["pro", "coins"] {
                    let purchase = try await h.sim.control.purchase(
                        PurchaseRequest(
                            packageName: GooglePlayPurchaseEndToEndTests.packageName, productId: product,
                            basePlanId: nil, obfuscatedExternalAccountId: Self.obfuscated))
                    #expect(try await h.submit(Self.customer, purchase).status == .ok)
                }
                #expect(try await h.entitlements(Self.customer) == ["pro"])
                let before = try AccountErasureTests.dump()
                #expect(before.contains(Self.customer) && before.contains(Self.obfuscated), "the dump holds the data")

                let erased = try await GrantTests.send(
                    h.client, .delete,
                    "/v1/accounts/\(Self.customer)?bundle_id=\(GooglePlayPurchaseEndToEndTests.bundleID)", key: admin)
                #expect(erased.status == .ok)
                let pseudonym = try #require(erased.json["pseudonym"] as? String)

                // Every event the app's endpoint is owed, delivered (bounded: a few rounds suffice on loopback).
                let deliverer = WebhookDeliverer(
                    configuration: WebhookDeliverer.Configuration(worker: "erasure-test"),
                    store: WebhookDeliveryStore(pool: h.pool, secretKeys: SecretKeyring()),
                    resolver: .system, logger: TestDatabase.logger)
                func erasedEvents() -> [[String: Any]] {
                    receiver.requests.compactMap {
                        try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any]
                    }.filter { $0["type"] as? String == "account.erased" }
                }
                for _ in 0..<200 where erasedEvents().isEmpty {
                    _ = try await deliverer.deliverDue()
                    try await Task.sleep(for: .milliseconds(20))
                }
                let announced = erasedEvents()
                #expect(announced.count == 1)
                #expect(received.badSignatures == 0)
                let body = String(
                    decoding: try JSONSerialization.data(withJSONObject: announced.first ?? [:]), as: UTF8.self)
                #expect(body.contains(pseudonym))
                for request in receiver.requests {
                    let text = String(decoding: request.body, as: UTF8.self)
                    #expect(!text.contains(Self.customer) && !text.contains(Self.obfuscated), "\(text.prefix(300))")
                }

                // The whole database, deliveries and their attempts included: neither id.
                let dump = try AccountErasureTests.dump()
                for line in dump.split(separator: "\n")
                where line.contains(Self.customer) || line.contains(Self.obfuscated) {
                    Issue.record("the dump still holds an erased identifier: \(line.prefix(300))")
                }
                let store = LedgerStore(pool: h.pool)
                #expect(try await store.verifyLedgerChain(appID: nil, since: nil).isIntact)
            }
        }
    }
}
