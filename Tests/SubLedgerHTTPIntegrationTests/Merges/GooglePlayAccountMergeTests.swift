import Foundation
import HTTPTypes
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// An account merge with Google Play purchases, through play-sim and PostgreSQL (docs/guides/accounts.md, "Merging
/// accounts"): the anonymous account's subscription and credits move to the signed-in account, and a purchase the
/// app submits later under the anonymous id is credited to the signed-in account.
@Suite struct GooglePlayAccountMergeTests {
    @Test func anonymousGooglePurchasesFollowTheSignedInAccountAndLaterOnesLandThere() async throws {
        try await GooglePlayPurchaseEndToEndTests.run { h in
            let support = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "desk").secret
            let subscription = try await h.buy("pro", account: "anon-g")
            #expect(try await h.submit("anon-g", subscription).status == .ok)
            let coins = try await h.buy("coins", account: "anon-g")
            #expect(try await h.submit("anon-g", coins).status == .ok)
            #expect(try await h.entitlements("anon-g") == ["pro"])
            #expect(try await h.credits("anon-g") == 100)

            let merged = try await GrantTests.send(
                h.client, .post, "/v1/accounts/alice/merge", key: support,
                ["bundle_id": GooglePlayPurchaseEndToEndTests.bundleID, "from": "anon-g"])
            #expect(merged.status == .ok)
            #expect((merged.json["chains"] as? [Any])?.count == 2)
            #expect((merged.json["credits"] as? NSNumber)?.int64Value == 100)
            #expect(try await h.owner(ofToken: subscription.purchaseToken) == "alice")
            #expect(try await h.entitlements("alice") == ["pro"])
            #expect(try await h.credits("alice") == 100)
            #expect(try await h.entitlements("anon-g").isEmpty)
            #expect(try await h.credits("anon-g") == 0)

            // A purchase the app still submits under the anonymous id is the signed-in account's.
            let later = try await h.buy("coins", account: "anon-g")
            #expect(try await h.submit("anon-g", later).status == .ok)
            #expect(try await h.owner(ofToken: later.purchaseToken) == "alice")
            #expect(try await h.credits("alice") == 200)
            #expect(try await h.credits("anon-g") == 0)

            let store = LedgerStore(pool: h.pool)
            #expect(try await store.verifyLedgerChain(appID: nil, since: nil).isIntact)
        }
    }
}
