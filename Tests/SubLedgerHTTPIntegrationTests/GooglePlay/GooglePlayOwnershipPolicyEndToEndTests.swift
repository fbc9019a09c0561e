import CatalogFile
import Foundation
import GooglePlaySimulator
import HTTPTypes
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// docs/ownership.md's stories under each catalog `ownership` policy on Google Play, through play-sim: the same rule
/// as the App Store's (`OwnershipPolicyEndToEndTests`), reached through a purchase token's lineage. The purchases carry
/// no obfuscated account id, so nothing but the submitting account attributes them and the policy decides.
@Suite struct GooglePlayOwnershipPolicyEndToEndTests {
    typealias G = GooglePlayPurchaseEndToEndTests
    typealias Expectation = OwnershipPolicyEndToEndTests.Expectation

    /// Applies the test catalog again with `policy` written under `ownership:`; the stored service account key is
    /// kept.
    static func apply(_ policy: OwnershipPolicy, _ h: G.Harness) async throws {
        let (catalog, _) = try CatalogFile.read(CatalogText.setting(policy, for: G.bundleID, in: G.catalogYAML))
        try await h.catalog.applyCatalog(catalog)
        #expect(try await h.catalog.app(bundleID: G.bundleID)?.definition.ownershipPolicy == policy)
    }

    /// The results of a submission's answer, one per order Google's reading carried.
    static func results(_ answer: (status: HTTPResponse.Status, json: [String: Any])) -> [String] {
        #expect(answer.status == .ok, "\(answer.json)")
        return (answer.json["transactions"] as? [[String: Any]] ?? []).compactMap { $0["result"] as? String }
    }

    static func expectOnly(_ result: String, in answer: (status: HTTPResponse.Status, json: [String: Any])) {
        let results = Self.results(answer)
        #expect(!results.isEmpty && results.allSatisfy { $0 == result }, "\(answer.json)")
    }

    func transfers(_ h: G.Harness) async throws -> [String] {
        try await h.pool.query(
            "SELECT kind, account_id FROM ledger_entries WHERE kind IN ('transfer_out', 'transfer_in') ORDER BY entry_id"
        ).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1))" }
    }

    /// Story 1: alice's active subscription, restored by bob on the same phone and Google account.
    @Test(arguments: OwnershipPolicyEndToEndTests.expectations)
    func aRestoreOfAnActiveSubscriptionByAnotherAccount(_ expected: Expectation) async throws {
        try await G.run { h in
            try await Self.apply(expected.policy, h)
            let bought = try await h.buy("pro", account: nil)
            Self.expectOnly("applied", in: try await h.submit("alice", bought))
            #expect(try await h.owner(ofToken: bought.purchaseToken) == "alice")

            let bobTakes = expected.renewingOwnerLoses
            Self.expectOnly(
                OwnershipPolicyEndToEndTests.result(submitterGetsIt: bobTakes), in: try await h.submit("bob", bought))
            #expect(try await h.owner(ofToken: bought.purchaseToken) == (bobTakes ? "bob" : "alice"))
            #expect(try await h.entitlements(bobTakes ? "bob" : "alice") == ["pro"])
            #expect(try await h.entitlements(bobTakes ? "alice" : "bob") == [])
            #expect(try await transfers(h) == (bobTakes ? ["transfer_out alice", "transfer_in bob"] : []))
        }
    }

    /// Story 2: alice stops renewing; bob signs up again on the same Google account before her period ends (a new
    /// token linked to hers, on her chain); on day 55, after bob's renewal at Google, alice restores the new token.
    @Test(arguments: OwnershipPolicyEndToEndTests.expectations)
    func aResignupAfterTheOwnerStoppedRenewingThenTheFormerOwnersRestore(_ expected: Expectation) async throws {
        try await G.run { h in
            try await Self.apply(expected.policy, h)
            let bought = try await h.buy("pro", account: nil)
            Self.expectOnly("applied", in: try await h.submit("alice", bought))
            // Acknowledged, so Google keeps the purchase past three days.
            #expect(try await h.sender.runCycle().sent == 1)
            let app = try #require(try await h.catalog.app(bundleID: G.bundleID))
            let chain = ChainKey(environment: .production, chainID: bought.orderId)

            // Day 10: alice turns renewal off; the poller learns it from Google (no submitter: nothing moves).
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 10))
            _ = try await h.sim.control.cancel(bought.purchaseToken)
            let polled = try await h.ingestion.pollChain(chain, app: app)
            #expect(polled?.decision.bindingChanges.isEmpty == true)
            #expect(try await h.entitlements("alice") == ["pro"])

            // Day 20: bob signs up again on the same Google account.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 10))
            let resigned = try await h.sim.control.changePlan(
                bought.purchaseToken, ChangePlanRequest(productId: "pro", basePlanId: "monthly"))
            #expect(resigned.linkedPurchaseToken == bought.purchaseToken)
            let bobTakes = expected.lapsedOwnerLoses
            Self.expectOnly(
                OwnershipPolicyEndToEndTests.result(submitterGetsIt: bobTakes), in: try await h.submit("bob", resigned))
            #expect(try await h.owner(ofToken: resigned.purchaseToken) == (bobTakes ? "bob" : "alice"))
            #expect(try await h.entitlements(bobTakes ? "bob" : "alice") == ["pro"])
            #expect(try await h.entitlements(bobTakes ? "alice" : "bob") == [])
            // The new token is acknowledged whoever it was credited to.
            #expect(try await h.sender.runCycle().sent == 1)

            // Day 55: bob's (or, kept, alice's) period renewed at Google; alice restores the new token.
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 35))
            let aliceHasIt = !bobTakes || expected.renewingOwnerLoses
            let restored = try await h.submit("alice", resigned)
            if bobTakes {
                Self.expectOnly(OwnershipPolicyEndToEndTests.result(submitterGetsIt: aliceHasIt), in: restored)
            } else {
                // Alice owned the chain throughout: her restore is hers, whatever it newly brings.
                #expect(Self.results(restored).allSatisfy { $0 != "belongs_to_another_account" }, "\(restored.json)")
            }
            #expect(try await h.owner(ofToken: resigned.purchaseToken) == (aliceHasIt ? "alice" : "bob"))
            #expect(try await h.entitlements(aliceHasIt ? "alice" : "bob") == ["pro"])
            #expect(try await h.entitlements(aliceHasIt ? "bob" : "alice") == [])
            let moves =
                (bobTakes ? ["transfer_out alice", "transfer_in bob"] : [])
                + (bobTakes && aliceHasIt ? ["transfer_out bob", "transfer_in alice"] : [])
            #expect(try await transfers(h) == moves)
        }
    }
}
