import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// An erasure leaves no form of the id behind (docs/guides/accounts.md, "Erasing an account"): not a lookup's
/// percent-encoded path, not a grant's reason or Idempotency-Key; and every later write naming the id is refused as
/// erased (410 `account_erased`), an order's and a consent's included, so no purchase can be credited to it again.
@Suite struct AccountErasureFormsTests {
    typealias H = ServiceHarness

    /// An email-like id, so that its percent-encoded form (`%40`) differs from the id.
    static let customer = "erasable.5c1f9e@example.com"

    /// Every form the id may take in a dump, lower-cased: as is, and percent-encoded (`@` and `.` as escapes).
    static func forms(of id: String) -> [String] {
        let lowered = id.lowercased()
        return [
            lowered, lowered.replacingOccurrences(of: "@", with: "%40"),
            lowered.replacingOccurrences(of: "@", with: "%40").replacingOccurrences(of: ".", with: "%2e"),
            lowered.replacingOccurrences(of: "@", with: "\\u0040"),
        ]
    }

    /// Records an issue for each line of the database's dump that holds a form of `id`, in any letter case.
    static func expectNowhere(_ id: String, _ comment: String) throws {
        let dump = try AccountErasureTests.dump()
        #expect(dump.contains("bystander"), "the dump holds the data")
        for line in dump.split(separator: "\n") {
            let lowered = line.lowercased()
            for form in forms(of: id) where lowered.contains(form) {
                Issue.record("\(comment): the dump holds '\(form)': \(line.prefix(300))")
            }
        }
    }

    static func buy(_ client: some TestClientProtocol, _ harness: H, account: String, id: String) async throws {
        let bought = try await AccountErasureTests.submit(
            client, harness, account: account,
            try harness.signedTransaction(id: id, purchasedOnDay: 1, expiresOnDay: 31))
        #expect(bought.status == .ok)
    }

    /// A lookup sent percent-encoded, as docs/guides/accounts.md shows it, is audited with the id decoded; the
    /// erasure rewrites it, and an entry written encoded (as before schema step 55), in another hex case, too.
    @Test func aLookupSentPercentEncodedIsAuditedDecodedAndErased() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            try await Self.buy(client, harness, account: Self.customer, id: "9101")
            try await Self.buy(client, harness, account: "bystander", id: "9102")
            let encoded = Self.customer.replacingOccurrences(of: "@", with: "%40")
            let lookup = try await client.call(
                .get, "/v1/admin/lookup/account/\(encoded)?bundle_id=\(H.appOne)", key: admin)
            #expect(lookup.status == .ok)
            let targets = try await harness.pool.query(
                "SELECT target->>'id' FROM audit_log WHERE route = '/v1/admin/lookup/account/{id}'"
            ).map { try $0.decode(String?.self, at: 0) }
            #expect(targets == [Self.customer])
            // As an entry of a release before step 55 holds it: encoded, `.` as `%2E`.
            let older = Self.customer.replacingOccurrences(of: "@", with: "%40")
                .replacingOccurrences(of: ".com", with: "%2Ecom")
            try await harness.pool.query(
                """
                INSERT INTO audit_log (occurred_at, key_id, key_name, scope, method, route, target, status,
                    client_address, request_id)
                VALUES (now(), gen_random_uuid(), 'ops', 'admin', 'GET', '/v1/admin/lookup/account/{id}',
                    jsonb_build_object('id', \(older)::text, 'bundle_id', \(H.appOne)::text), 200, NULL, 'older')
                """)

            let erased = try await AccountErasureTests.erase(client, Self.customer, key: admin)
            #expect(erased.status == .ok)
            let pseudonym = try #require(erased.json["pseudonym"] as? String)
            let rewritten = try await harness.pool.query(
                "SELECT target->>'id' FROM audit_log WHERE route = '/v1/admin/lookup/account/{id}' ORDER BY audit_id"
            ).map { try $0.decode(String?.self, at: 0) }
            #expect(rewritten == [pseudonym, pseudonym])
            try Self.expectNowhere(Self.customer, "after the erasure")
        }
    }

    /// A grant whose reason and Idempotency-Key name the id: both are rewritten, in the grant and in its ledger
    /// entry, and the ledger still verifies.
    @Test func aGrantsReasonAndIdempotencyKeyNamingTheIdAreErased() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            try await Self.buy(client, harness, account: Self.customer, id: "9201")
            try await Self.buy(client, harness, account: "bystander", id: "9202")
            let granted = try await GrantTests.send(
                client, .post, "/v1/accounts/\(Self.customer)/grants", key: admin,
                [
                    "bundle_id": H.appOne, "entitlement_id": "pro", "duration": "30d",
                    "reason": "goodwill for \(Self.customer.uppercased()) (ticket of \(Self.customer))",
                ], idempotencyKey: "grant-\(Self.customer)-1")
            #expect(granted.status == .created)
            let grantID = try #require(granted.json["grant_id"] as? String)

            let erased = try await AccountErasureTests.erase(client, Self.customer, key: admin)
            #expect(erased.status == .ok)
            let pseudonym = try #require(erased.json["pseudonym"] as? String)
            // Revoking it under the erased id is refused as erased, and audited without the id.
            let revoked = try await GrantTests.send(
                client, .delete, "/v1/accounts/\(Self.customer)/grants/\(grantID)?bundle_id=\(H.appOne)", key: admin)
            #expect(revoked.status == .gone)
            #expect(revoked.json.errorCode == "account_erased")
            let grant = try await harness.pool.query(
                "SELECT reason, idempotency_key FROM entitlement_grants WHERE account_id = \(pseudonym)"
            ).single()
            #expect(try grant.decode(String.self, at: 0) == "goodwill for \(pseudonym) (ticket of \(pseudonym))")
            #expect(try grant.decode(String?.self, at: 1) == "grant-\(pseudonym)-1")
            let verification = try await harness.store.verifyLedgerChain(appID: nil, since: nil)
            #expect(verification.isIntact, "\(verification.breaks)")
            #expect(verification.erased > 0)
            try Self.expectNowhere(Self.customer, "after the erasure")
        }
    }

    /// After the erasure, an order, a consent and a usage report naming the id are refused as erased and store
    /// nothing: no order's token can carry a purchase to the id, whose entitlements stay gone.
    @Test func writesNamingAnErasedIdAreRefused() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            try await Self.buy(client, harness, account: Self.customer, id: "9301")
            try await Self.buy(client, harness, account: "bystander", id: "9302")
            #expect(try await AccountErasureTests.erase(client, Self.customer, key: admin).status == .ok)

            let order = try await client.call(
                .post, "/v1/orders", key: harness.keyOne,
                json: ["account_id": Self.customer, "product_id": "pro.monthly"])
            #expect(order.status == .gone)
            #expect(order.json.errorCode == "account_erased")
            let encoded = Self.customer.replacingOccurrences(of: "@", with: "%40")
            let consent = try await GrantTests.send(
                client, .post, "/v1/accounts/\(encoded)/consent", key: harness.keyOne, ["consented": true])
            #expect(consent.status == .gone)
            #expect(consent.json.errorCode == "account_erased")
            let usage = try await GrantTests.send(
                client, .post, "/v1/accounts/\(encoded)/usage", key: harness.keyOne,
                ["transaction_id": "9301", "consumption_percentage": 50])
            #expect(usage.status == .gone)
            #expect(usage.json.errorCode == "account_erased")
            #expect(try await GrantTests.count("SELECT count(*) FROM orders", harness) == 0)
            #expect(try await GrantTests.count("SELECT count(*) FROM consumption_consents", harness) == 0)
            #expect(try await GrantTests.count("SELECT count(*) FROM consumption_usage_reports", harness) == 0)
            let read = try await client.call(.get, "/v1/accounts/\(encoded)/entitlements", key: harness.keyOne)
            #expect(read.status == .gone)
            #expect(read.json.errorCode == "account_erased")
            // Another account's order is still taken.
            let other = try await client.call(
                .post, "/v1/orders", key: harness.keyOne,
                json: ["account_id": "bystander", "product_id": "pro.monthly"])
            #expect(other.status == .ok || other.status == .created)
            try Self.expectNowhere(Self.customer, "after the refused writes")
        }
    }

    /// Erasing the id again is refused as erased and audited with the account as `(erased)`, as the other refusals.
    @Test func erasingAgainIsAuditedAsErased() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            try await Self.buy(client, harness, account: Self.customer, id: "9401")
            #expect(try await AccountErasureTests.erase(client, Self.customer, key: admin).status == .ok)
            let again = try await AccountErasureTests.erase(client, Self.customer, key: admin)
            #expect(again.status == .gone)
            #expect(AccountErasureTests.code(again) == "account_erased")
            let audited = try await harness.pool.query(
                "SELECT target->>'account_id' FROM audit_log WHERE method = 'DELETE' AND status = 410"
            ).map { try $0.decode(String?.self, at: 0) }
            #expect(audited == ["(erased)"])
        }
    }
}
