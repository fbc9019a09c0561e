import SubLedgerCore
import Testing

/// Refunds, Family Sharing revocations, their reversals, and upgrades ending a product.
@Suite struct RevocationTests {
    typealias F = Fixtures
    let alice = Fixtures.alice

    struct ProductCase: CustomTestStringConvertible, Sendable {
        var name: String
        var clean: Transaction
        var revoked: Transaction
        var revokeKey: String
        var restoreKey: String
        var entitlement: [String]
        var credits: Int64
        var testDescription: String { name }
    }

    static let productCases: [ProductCase] = [
        ProductCase(
            name: "auto-renewable", clean: F.subscription("t1", chain: "t1", from: 0, to: 30),
            revoked: F.subscription("t1", chain: "t1", from: 0, to: 30, revokedOn: 5),
            revokeKey: "revoke:Production:t1:\(F.day(5).millisecondsSince1970)",
            restoreKey: "restore:Production:t1:\(F.day(5).millisecondsSince1970)", entitlement: ["pro"], credits: 0),
        ProductCase(
            name: "non-renewing", clean: F.purchase("t1", product: F.pass, on: 0),
            revoked: F.purchase("t1", product: F.pass, on: 0, revokedOn: 5),
            revokeKey: "revoke:Production:t1:\(F.day(5).millisecondsSince1970)",
            restoreKey: "restore:Production:t1:\(F.day(5).millisecondsSince1970)", entitlement: ["pro"], credits: 0),
        ProductCase(
            name: "non-consumable", clean: F.purchase("t1", product: F.lifetime, on: 0),
            revoked: F.purchase("t1", product: F.lifetime, on: 0, revokedOn: 5),
            revokeKey: "revoke:Production:t1:\(F.day(5).millisecondsSince1970)",
            restoreKey: "restore:Production:t1:\(F.day(5).millisecondsSince1970)", entitlement: ["lifetime"],
            credits: 0),
        ProductCase(
            name: "consumable", clean: F.purchase("t1", product: F.coins, on: 0),
            revoked: F.purchase("t1", product: F.coins, on: 0, revokedOn: 5),
            revokeKey: "debit:Production:t1:\(F.day(5).millisecondsSince1970)",
            restoreKey: "credit:Production:t1:reversal:\(F.day(5).millisecondsSince1970)", entitlement: [],
            credits: 100),
    ]

    @Test(arguments: productCases)
    func revocationTakesBackExactlyWhatWasGranted(_ rule: ProductCase) throws {
        var state = try F.state(applying: [(F.receipt(by: alice, [rule.clean], observedOn: 0), F.day(0))])
        #expect(state.entitlementIDs(of: alice, at: F.day(4)) == rule.entitlement)
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(4)) == rule.credits)

        let decision = try state.apply(F.notification([rule.revoked], observedOn: 6), now: F.day(6))
        #expect(decision.entries.map(\.idempotencyKey) == [rule.revokeKey])
        #expect(decision.entries.first?.reason == .refund)
        #expect(decision.entries.first?.effectiveAt == F.day(5))
        #expect(decision.entries.first?.credits == (rule.credits > 0 ? rule.credits : nil))
        // Access ends at the revocation date, not before.
        #expect(state.entitlementIDs(of: alice, at: F.day(5).adding(milliseconds: -1)) == rule.entitlement)
        #expect(state.entitlementIDs(of: alice, at: F.day(5)).isEmpty)
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(6)) == 0)
        #expect(state.chain("t1")?.state(at: F.day(6), in: F.app()) == .revoked)
    }

    @Test(arguments: productCases)
    func refundReversalRestoresWhatTheRefundTook(_ rule: ProductCase) throws {
        var state = try F.state(applying: [
            (F.receipt(by: alice, [rule.clean], observedOn: 0), F.day(0)),
            (F.notification([rule.revoked], observedOn: 6), F.day(6)),
        ])
        // REFUND_REVERSED: the transaction again, without a revocation date, observed later.
        let decision = try state.apply(F.notification([rule.clean], observedOn: 8), now: F.day(8))
        #expect(decision.entries.map(\.idempotencyKey) == [rule.restoreKey])
        #expect(decision.entries.first?.reason == .revocationReversed)
        #expect(state.entitlementIDs(of: alice, at: F.day(9)) == rule.entitlement)
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(9)) == rule.credits)
    }

    @Test func reversalArrivingBeforeTheRefundEndsInTheSameState() throws {
        let clean = F.subscription("t1", chain: "t1", from: 0, to: 30)
        let revoked = F.subscription("t1", chain: "t1", from: 0, to: 30, revokedOn: 5)
        let inOrder = try F.state(applying: [
            (F.receipt(by: alice, [clean], observedOn: 0), F.day(9)),
            (F.notification([revoked], observedOn: 6), F.day(9)),
            (F.notification([clean], observedOn: 8), F.day(9)),
        ])
        let reversed = try F.state(applying: [
            (F.notification([clean], observedOn: 8), F.day(9)),
            (F.receipt(by: alice, [clean], observedOn: 0), F.day(9)),
            (F.notification([revoked], observedOn: 6), F.day(9)),
        ])
        #expect(inOrder.entries == reversed.entries)
        #expect(inOrder.chains == reversed.chains)
        #expect(inOrder.entitlementIDs(of: alice, at: F.day(9)) == ["pro"])
    }

    /// Apple's `revocationPercentage` (a prorated refund) is a detail of the revocation: a receipt of the same
    /// refund, which never states it, does not erase it, whichever arrives first and whenever it was made.
    @Test func aStatedRefundPercentageSurvivesReceiptsInAnyOrder() throws {
        var prorated = F.subscription("t1", chain: "t1", from: 0, to: 30, revokedOn: 5)
        prorated.revocationPercentage = 25_000
        let refundedReceipt = F.subscription("t1", chain: "t1", from: 0, to: 30, revokedOn: 5)
        let inputs = [
            (F.receipt(by: alice, [F.subscription("t1", chain: "t1", from: 0, to: 30)], observedOn: 0), F.day(9)),
            (F.notification([prorated], observedOn: 6), F.day(9)),
            (F.receipt(by: alice, [refundedReceipt], observedOn: 8), F.day(9)),
        ]
        var states: [LedgerState] = []
        for order in [[0, 1, 2], [0, 2, 1], [2, 0, 1], [1, 2, 0]] {
            states.append(try F.state(applying: order.map { inputs[$0] }))
        }
        for state in states {
            let known = state.chain("t1")?.transactions.first { $0.transactionID == "t1" }
            #expect(known?.activeRevocation?.revocationPercentage == 25_000)
            #expect(known?.activeRevocation?.revocationDate == F.day(5))
            #expect(state.entitlementIDs(of: alice, at: F.day(5)).isEmpty)
            #expect(state.chains == states[0].chains)
            #expect(state.entries == states[0].entries)
        }
    }

    /// Of two statements of one refund's percentage, the later one wins, in either order.
    @Test func theLaterStatedPercentageWins() throws {
        var early = F.subscription("t1", chain: "t1", from: 0, to: 30, revokedOn: 5)
        early.revocationPercentage = 40_000
        var late = early
        late.revocationPercentage = 25_000
        let first = try F.state(applying: [
            (F.notification([early], observedOn: 6), F.day(9)), (F.notification([late], observedOn: 7), F.day(9)),
        ])
        let second = try F.state(applying: [
            (F.notification([late], observedOn: 7), F.day(9)), (F.notification([early], observedOn: 6), F.day(9)),
        ])
        let percentage = { (state: LedgerState) in
            state.chain("t1")?.transactions.first?.activeRevocation?.revocationPercentage
        }
        #expect(percentage(first) == 25_000)
        #expect(percentage(second) == 25_000)
        #expect(first.chains == second.chains)
    }

    @Test func olderCleanCopyDoesNotUndoARefund() throws {
        var state = try F.state(applying: [
            (F.receipt(by: alice, [F.purchase("t1", product: F.lifetime, on: 0)], observedOn: 0), F.day(0)),
            (F.notification([F.purchase("t1", product: F.lifetime, on: 0, revokedOn: 5)], observedOn: 6), F.day(6)),
        ])
        // A receipt Apple produced on day 4, uploaded late: it predates the refund and restores nothing.
        let decision = try state.apply(
            F.receipt(by: alice, [F.purchase("t1", product: F.lifetime, on: 0)], observedOn: 4), now: F.day(7))
        #expect(decision.entries.isEmpty)
        #expect(decision.outcome("t1") == .duplicate)
        #expect(state.entitlementIDs(of: alice, at: F.day(7)).isEmpty)
    }

    @Test func familySharingRevocationEndsTheSharedEntitlement() throws {
        let shared = F.subscription("f1", chain: "f1", from: 0, to: 30, ownership: .familyShared)
        var state = try F.state(applying: [(F.receipt(by: alice, [shared], observedOn: 0), F.day(0))])
        #expect(
            state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(1)).first?.ownershipType
                == .familyShared)

        let stopped = F.subscription("f1", chain: "f1", from: 0, to: 30, revokedOn: 10, ownership: .familyShared)
        let decision = try state.apply(F.notification([stopped], observedOn: 10), now: F.day(10))
        #expect(decision.entries.map(\.reason) == [.familySharingRevoked])
        #expect(decision.entries.map(\.kind) == [.revoke])
        #expect(state.entitlementIDs(of: alice, at: F.day(10)).isEmpty)
    }

    @Test func upgradeEndsTheOldProductAtTheUpgradeMoment() throws {
        let old = F.subscription("u1", chain: "u1", from: 0, to: 30, upgradedOn: 10)
        let new = F.subscription("u2", chain: "u1", product: F.premiumMonthly, from: 10, to: 40)
        let state = try F.state(applying: [(F.receipt(by: alice, [old, new], observedOn: 11), F.day(11))])
        let before = state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(10).adding(milliseconds: -1))
        #expect(before.map(\.productID) == [F.proMonthly])
        #expect(before.first?.expiresAt == F.day(10))
        let after = state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(10))
        #expect(after.map(\.entitlementID) == ["premium", "pro"])
        #expect(after.allSatisfy { $0.productID == F.premiumMonthly })
        let upgradeEntry = try #require(state.entry("revoke:Production:u1:\(F.day(10).millisecondsSince1970)"))
        #expect(upgradeEntry.reason == .upgrade)
        #expect(state.entry("extend:Production:u2")?.periodEnd == F.day(40))
    }
}
