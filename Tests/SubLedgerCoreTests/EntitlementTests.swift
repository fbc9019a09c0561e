import SubLedgerCore
import Testing

@Suite struct EntitlementTests {
    typealias F = Fixtures
    let alice = Fixtures.alice

    @Test func activeSubscriptionReportsItsSourceAndRenewal() throws {
        let state = try F.state(applying: [
            (
                F.receipt(
                    by: alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 0)], observedOn: 0), F.day(0)
            )
        ])
        let entitlement = try #require(state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(3)).first)
        #expect(entitlement.entitlementID == "pro")
        #expect(entitlement.productID == F.proMonthly)
        #expect(entitlement.chainID == "s1")
        #expect(entitlement.state == .active)
        #expect(entitlement.expiresAt == F.day(30))
        #expect(entitlement.gracePeriodExpiresAt == nil)
        #expect(entitlement.willAutoRenew == true)
        #expect(entitlement.ownershipType == .purchased)
        #expect(state.entitlementIDs(of: alice, at: F.day(30)).isEmpty)
    }

    struct RetryCase: CustomTestStringConvertible, Sendable {
        var name: String
        var renewal: RenewalInfo
        var at: Instant
        var expectedState: ChainState
        var entitled: Bool
        var testDescription: String { name }
    }

    static let retryCases: [RetryCase] = [
        RetryCase(
            name: "in grace period",
            renewal: F.renewal(
                chain: "s1", willAutoRenew: true, observedOn: 30,
                billingRetry: true, graceUntil: 46),
            at: F.day(40), expectedState: .gracePeriod, entitled: true),
        RetryCase(
            name: "billing retry after grace",
            renewal: F.renewal(
                chain: "s1", willAutoRenew: true,
                observedOn: 30, billingRetry: true,
                graceUntil: 36),
            at: F.day(40), expectedState: .billingRetry, entitled: false),
        RetryCase(
            name: "billing retry without grace",
            renewal: F.renewal(
                chain: "s1", willAutoRenew: true,
                observedOn: 30, billingRetry: true),
            at: F.day(31), expectedState: .billingRetry, entitled: false),
        RetryCase(
            name: "expired after billing error",
            renewal: F.renewal(
                chain: "s1", willAutoRenew: false,
                observedOn: 90, expirationIntent: 2),
            at: F.day(91), expectedState: .expired(.billingError), entitled: false),
        RetryCase(
            name: "expired with an intent Apple added later",
            renewal: F.renewal(chain: "s1", willAutoRenew: false, observedOn: 31, expirationIntent: 9),
            at: F.day(31), expectedState: .expired(.unknown(9)), entitled: false),
    ]

    @Test(arguments: retryCases)
    func gracePeriodEntitlesButBillingRetryAloneDoesNot(_ rule: RetryCase) throws {
        let state = try F.state(applying: [
            (
                F.receipt(
                    by: alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)], renewals: [rule.renewal],
                    observedOn: 30), F.day(30)
            )
        ])
        #expect(state.chain("s1")?.state(at: rule.at, in: F.app()) == rule.expectedState)
        let entitlements = state.entitlements(for: alice, bundleID: F.bundleID, at: rule.at)
        #expect(entitlements.map(\.entitlementID) == (rule.entitled ? ["pro"] : []))
        if rule.expectedState == .gracePeriod {
            #expect(entitlements.first?.gracePeriodExpiresAt == F.day(46))
            #expect(entitlements.first?.accessEndsAt == F.day(46))
        }
    }

    @Test func upgradeDuringTrialYieldsOneEntryPerEntitlementFromTheNewProduct() throws {
        // The trial's transaction is not (yet) marked upgraded: both periods cover day 3.
        let trial = F.subscription("u1", chain: "u1", from: 0, to: 7, trial: true)
        let upgrade = F.subscription("u2", chain: "u1", product: F.premiumMonthly, from: 2, to: 32)
        let state = try F.state(applying: [(F.receipt(by: alice, [trial, upgrade], observedOn: 2), F.day(2))])
        let entitlements = state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(3))
        #expect(entitlements.map(\.entitlementID) == ["premium", "pro"])
        #expect(entitlements.allSatisfy { $0.productID == F.premiumMonthly && $0.expiresAt == F.day(32) })
    }

    @Test func sameEntitlementFromTwoChainsPicksTheBestWhateverTheOrder() throws {
        let shared = F.subscription("f1", chain: "f1", from: 0, to: 20, ownership: .familyShared)
        let ownPremium = F.subscription("p1", chain: "p1", product: F.premiumMonthly, from: 0, to: 40)
        let ownPass = F.purchase("n1", product: F.pass, on: 0)
        for inputs in [[shared, ownPremium, ownPass], [ownPass, ownPremium, shared]] {
            let state = try F.state(applying: [(F.receipt(by: alice, inputs, observedOn: 0), F.day(0))])
            let pro = try #require(
                state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(5)).first {
                    $0.entitlementID == "pro"
                })
            #expect(pro.chainID == "p1")
            #expect(pro.expiresAt == F.day(40))
        }
    }

    @Test func equalExpiriesPreferTheHigherGroupLevel() throws {
        let pro = F.subscription("a1", chain: "a1", from: 0, to: 30)
        let premium = F.subscription("b1", chain: "b1", product: F.premiumMonthly, from: 0, to: 30)
        let state = try F.state(applying: [(F.receipt(by: alice, [pro, premium], observedOn: 0), F.day(0))])
        let entitlement = state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(1)).first {
            $0.entitlementID == "pro"
        }
        #expect(entitlement?.productID == F.premiumMonthly)
    }

    @Test func nonRenewingPassLastsItsCatalogDuration() throws {
        let state = try F.state(applying: [
            (F.receipt(by: alice, [F.purchase("n1", product: F.pass, on: 0)], observedOn: 0), F.day(0))
        ])
        #expect(state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(29)).first?.expiresAt == F.day(30))
        #expect(state.entitlementIDs(of: alice, at: F.day(30)).isEmpty)
        #expect(state.entry("grant:Production:n1")?.periodEnd == F.day(30))
        #expect(state.chain("n1")?.state(at: F.day(30), in: F.app()) == .expired(.periodEnded))
    }

    @Test func nonConsumableNeverExpires() throws {
        let state = try F.state(applying: [
            (F.receipt(by: alice, [F.purchase("l1", product: F.lifetime, on: 0)], observedOn: 0), F.day(0))
        ])
        let entitlement = state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(10_000)).first
        #expect(entitlement?.entitlementID == "lifetime")
        #expect(entitlement?.expiresAt == nil)
        #expect(entitlement?.willAutoRenew == nil)
    }

    @Test func consumableCreditsSumPerUnitAndGrantNoEntitlement() throws {
        let state = try F.state(applying: [
            (
                F.receipt(
                    by: alice,
                    [
                        F.purchase("c1", product: F.coins, on: 0),
                        F.purchase("c2", product: F.coins, on: 2, quantity: 2),
                    ], observedOn: 2), F.day(2)
            )
        ])
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(1)) == 100)
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(2)) == 300)
        #expect(state.entitlementIDs(of: alice, at: F.day(3)).isEmpty)
    }

    @Test func otherEnvironmentsAreFilteredOnRequest() throws {
        let sandbox = F.subscription("x1", chain: "x1", from: 0, to: 30, environment: .sandbox)
        var state = LedgerState(catalog: F.catalog())
        try state.apply(
            LedgerInput(
                kind: .receipt, bundleID: F.bundleID, environment: .sandbox, submitter: alice,
                transactions: [sandbox], observedAt: F.day(0)),
            now: F.day(0))
        #expect(state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(1), environment: .production).isEmpty)
        #expect(state.entitlements(for: alice, bundleID: F.bundleID, at: F.day(1), environment: .sandbox).count == 1)
    }
}
