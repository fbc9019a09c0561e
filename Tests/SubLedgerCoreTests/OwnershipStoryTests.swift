import SubLedgerCore
import Testing

/// The two stories of the ownership documents, step by step.
@Suite struct OwnershipStoryTests {
    typealias F = Fixtures
    let alice = Fixtures.alice
    let bob = Fixtures.bob

    /// Story 1: A's renewal is submitted while B is signed in on the same Apple ID; A still auto-renews, so
    /// the renewal goes to A and B gets nothing from it.
    @Test(arguments: [29, 31])
    func renewalSubmittedByAnotherAccountGoesToTheOwnerWhoStillAutoRenews(submittedOnDay: Int) throws {
        var state = LedgerState(catalog: F.catalog())
        let purchase = F.subscription("s1", chain: "s1", from: 0, to: 30)
        try state.apply(
            F.receipt(
                by: alice, [purchase], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 0)],
                observedOn: 0),
            now: F.day(0))

        // The renewal is charged at the end of the period (Apple may charge a little early); the device's
        // receipt, now carrying it, is uploaded by bob before or after alice's first period ends.
        let renewal = F.subscription("s2", chain: "s1", from: 30, to: 60)
        let decision = try state.apply(
            F.receipt(
                by: bob, [purchase, renewal],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: submittedOnDay)],
                observedOn: submittedOnDay),
            now: F.day(submittedOnDay))

        #expect(decision.outcome("s2") == .belongsToAnotherAccount)
        #expect(decision.outcome("s1") == .belongsToAnotherAccount)
        #expect(decision.bindingChanges.isEmpty)
        #expect(state.chain("s1")?.header.owner == alice)
        #expect(state.entry("extend:Production:s2")?.account == alice)
        #expect(state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(45)).first?.expiresAt == F.day(60))
        #expect(state.entitlementIDs(of: bob, at: F.day(45)).isEmpty)
    }

    /// Story 2: A turned auto-renew off; B then bought on the same Apple ID, so the chain moves to B; A's later
    /// upload of B's renewal goes to B.
    @Test func purchaseAfterOwnerStoppedRenewingMovesTheChainAndLaterUploadsStayWithTheNewOwner() throws {
        var state = LedgerState(catalog: F.catalog())
        let purchase = F.subscription("s1", chain: "s1", from: 0, to: 30)
        try state.apply(
            F.receipt(
                by: alice, [purchase], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 0)],
                observedOn: 0),
            now: F.day(0))
        // DID_CHANGE_RENEWAL_STATUS: alice turns auto-renew off on day 10.
        try state.apply(
            F.notification(
                [],
                renewals: [
                    F.renewal(
                        chain: "s1", willAutoRenew: false, observedOn: 10,
                        expirationIntent: 1)
                ], observedOn: 10),
            now: F.day(10))
        #expect(state.chain("s1")?.state(at: F.day(35), in: F.app()) == .expired(.voluntary))

        // Bob, signed in on the same Apple ID, subscribes on day 40: Apple files it under the same chain.
        let bobsPurchase = F.subscription("s3", chain: "s1", from: 40, to: 70)
        let bought = try state.apply(
            F.receipt(
                by: bob, [purchase, bobsPurchase],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 40)], observedOn: 40),
            now: F.day(40))
        #expect(bought.outcome("s3") == .applied(to: bob))
        #expect(bought.bindingChanges.map(\.reason) == [.ownerNotActivelyAutoRenewing])
        #expect(state.chain("s1")?.header.owner == bob)
        #expect(state.entitlementIDs(of: bob, at: F.day(41)) == ["pro"])
        #expect(state.entitlementIDs(of: alice, at: F.day(41)).isEmpty)

        // Bob's renewal on day 70, uploaded by alice (signed in again on the same device).
        let bobsRenewal = F.subscription("s4", chain: "s1", from: 70, to: 100)
        let uploaded = try state.apply(
            F.receipt(
                by: alice, [purchase, bobsPurchase, bobsRenewal],
                renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 71)], observedOn: 71),
            now: F.day(71))
        #expect(uploaded.outcome("s4") == .belongsToAnotherAccount)
        #expect(uploaded.bindingChanges.isEmpty)
        #expect(state.chain("s1")?.header.owner == bob)
        #expect(state.entry("extend:Production:s4")?.account == bob)
        #expect(state.entitlements(for: bob, bundleID: F.bundleID, at: F.day(80)).first?.expiresAt == F.day(100))
        #expect(state.entitlementIDs(of: alice, at: F.day(80)).isEmpty)
    }
}
