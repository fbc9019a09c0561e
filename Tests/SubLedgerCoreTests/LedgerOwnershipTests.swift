import SubLedgerCore
import Testing

/// The ownership rule as the ledger applies it to whole inputs.
@Suite struct LedgerOwnershipTests {
    typealias F = Fixtures
    let alice = Fixtures.alice
    let bob = Fixtures.bob

    /// Alice's chain o1 from day 0, renewed on day 30; renewal state as given, all known from alice's receipt.
    func aliceOwns(
        renewal: RenewalInfo,
        periods: [Transaction] = [Fixtures.subscription("o1", chain: "o1", from: 0, to: 30)],
        policy: OwnershipPolicy = .activeAutoRenewerKeeps
    ) throws -> LedgerState {
        try F.state(
            policy: policy, applying: [(F.receipt(by: alice, periods, renewals: [renewal], observedOn: 1), F.day(1))])
    }

    @Test func firstSubmitterBecomesOwner() throws {
        var state = LedgerState(catalog: F.catalog())
        let decision = try state.apply(
            F.receipt(by: bob, [F.subscription("o1", chain: "o1", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        #expect(decision.outcome("o1") == .applied(to: bob))
        #expect(state.chain("o1")?.header.owner == bob)
        #expect(decision.bindingChanges.map(\.reason) == [.firstClaim])
        #expect(state.entry("grant:Production:o1")?.account == bob)
        #expect(state.entitlementIDs(of: bob, at: F.day(2)) == ["pro"])
    }

    @Test func ownerResubmittingIsADuplicate() throws {
        var state = try aliceOwns(renewal: F.renewal(chain: "o1", willAutoRenew: true, observedOn: 1))
        let decision = try state.apply(
            F.receipt(by: alice, [F.subscription("o1", chain: "o1", from: 0, to: 30)], observedOn: 1), now: F.day(2))
        #expect(decision.outcome("o1") == .duplicate)
        #expect(decision.entries.isEmpty)
        #expect(decision.bindingChanges.isEmpty)
    }

    struct KeepCase: CustomTestStringConvertible, Sendable {
        var name: String
        var periods: [Transaction]
        var renewal: RenewalInfo
        var arriving: Transaction
        var now: Instant
        var aliceEntitled: Bool
        var testDescription: String { name }
    }

    static let keepCases: [KeepCase] = [
        KeepCase(
            name: "active", periods: [F.subscription("o1", chain: "o1", from: 0, to: 30)],
            renewal: F.renewal(chain: "o1", willAutoRenew: true, observedOn: 1),
            arriving: F.subscription("r2", chain: "o1", from: 30, to: 60), now: F.day(31), aliceEntitled: true),
        KeepCase(
            name: "grace period", periods: [F.subscription("o1", chain: "o1", from: 0, to: 30)],
            renewal: F.renewal(
                chain: "o1", willAutoRenew: true, observedOn: 30, billingRetry: true, graceUntil: 46),
            arriving: F.subscription("o1", chain: "o1", from: 0, to: 30), now: F.day(35),
            aliceEntitled: true),
        KeepCase(
            name: "billing retry", periods: [F.subscription("o1", chain: "o1", from: 0, to: 30)],
            renewal: F.renewal(chain: "o1", willAutoRenew: true, observedOn: 30, billingRetry: true),
            arriving: F.subscription("o1", chain: "o1", from: 0, to: 30), now: F.day(40),
            aliceEntitled: false),
    ]

    @Test(arguments: keepCases)
    func ownerStillAutoRenewingKeepsTheChain(_ rule: KeepCase) throws {
        var state = try aliceOwns(renewal: rule.renewal, periods: rule.periods)
        let decision = try state.apply(F.receipt(by: bob, [rule.arriving], observedOn: 30), now: rule.now)
        #expect(decision.outcome(rule.arriving.transactionID) == .belongsToAnotherAccount)
        #expect(decision.bindingChanges.isEmpty)
        #expect(state.chain("o1")?.header.owner == alice)
        #expect(state.chain("o1")?.transaction(rule.arriving.transactionID)?.account == alice)
        #expect(state.entitlementIDs(of: bob, at: rule.now).isEmpty)
        #expect(state.entitlementIDs(of: alice, at: rule.now) == (rule.aliceEntitled ? ["pro"] : []))
    }

    struct TransferCase: CustomTestStringConvertible, Sendable {
        var name: String
        var periods: [Transaction]
        var renewal: RenewalInfo
        var arriving: Transaction
        var now: Instant
        var aliceEntitledBefore: Bool
        var bobEntitled: Bool
        var testDescription: String { name }
    }

    static let transferCases: [TransferCase] = [
        TransferCase(
            name: "auto-renew off", periods: [F.subscription("o1", chain: "o1", from: 0, to: 30)],
            renewal: F.renewal(chain: "o1", willAutoRenew: false, observedOn: 5),
            arriving: F.subscription("o1", chain: "o1", from: 0, to: 30), now: F.day(10),
            aliceEntitledBefore: true, bobEntitled: true),
        TransferCase(
            name: "expired", periods: [F.subscription("o1", chain: "o1", from: 0, to: 30)],
            renewal: F.renewal(chain: "o1", willAutoRenew: true, observedOn: 5),
            arriving: F.subscription("n1", chain: "o1", from: 45, to: 75), now: F.day(46),
            aliceEntitledBefore: false, bobEntitled: true),
        TransferCase(
            name: "revoked", periods: [F.subscription("o1", chain: "o1", from: 0, to: 30, revokedOn: 8)],
            renewal: F.renewal(chain: "o1", willAutoRenew: true, observedOn: 5),
            arriving: F.subscription("o1", chain: "o1", from: 0, to: 30, revokedOn: 8), now: F.day(10),
            aliceEntitledBefore: false, bobEntitled: false),
    ]

    @Test(arguments: transferCases)
    func ownerNotAutoRenewingLosesTheChainAtTheTransfer(_ rule: TransferCase) throws {
        var state = try aliceOwns(renewal: rule.renewal, periods: rule.periods)
        let aliceBefore = state.entitlementIDs(of: alice, at: rule.now.adding(milliseconds: -1))
        #expect(aliceBefore == (rule.aliceEntitledBefore ? ["pro"] : []))
        let decision = try state.apply(F.receipt(by: bob, [rule.arriving], observedOn: 9), now: rule.now)

        #expect(decision.outcome(rule.arriving.transactionID) == .applied(to: bob))
        let change = try #require(decision.bindingChanges.first)
        #expect(change.from == alice && change.to == bob)
        #expect(change.reason == .ownerNotActivelyAutoRenewing)
        #expect(change.at == rule.now)
        #expect(state.chain("o1")?.header.owner == bob)
        let transferKeys = decision.entries.filter { $0.kind == .transferOut || $0.kind == .transferIn }
            .map(\.idempotencyKey).sorted()
        let trigger = rule.arriving.transactionID
        #expect(
            transferKeys == [
                "transferIn:Production:o1:1:alice->bob:\(trigger)", "transferOut:Production:o1:1:alice->bob:\(trigger)",
            ])
        #expect(decision.entries.first { $0.kind == .transferOut }?.account == alice)
        // Alice's entitlement from the chain ends exactly at the transfer; what she had before is kept.
        #expect(state.entitlementIDs(of: alice, at: rule.now).isEmpty)
        #expect(Set(aliceBefore).isSubset(of: state.entitlementIDs(of: alice, at: rule.now.adding(milliseconds: -1))))
        #expect(state.entitlementIDs(of: bob, at: rule.now) == (rule.bobEntitled ? ["pro"] : []))
    }

    @Test func arrivalWithoutSubmitterGoesToTheOwner() throws {
        var state = try aliceOwns(renewal: F.renewal(chain: "o1", willAutoRenew: false, observedOn: 1))
        let decision = try state.apply(
            F.notification([F.subscription("r2", chain: "o1", from: 30, to: 60, signedOn: 30)], observedOn: 30),
            now: F.day(30))
        #expect(decision.outcome("r2") == .applied(to: alice))
        #expect(state.chain("o1")?.transaction("r2")?.account == alice)
        #expect(state.entry("extend:Production:r2")?.account == alice)
    }

    @Test func arrivalWithoutSubmitterOrOwnerStaysUnclaimedUntilAnAccountSubmitsIt() throws {
        var state = LedgerState(catalog: F.catalog())
        let notified = try state.apply(
            F.notification([F.subscription("o1", chain: "o1", from: 0, to: 30, signedOn: 0)], observedOn: 0),
            now: F.day(0))
        #expect(notified.outcome("o1") == .unclaimed)
        #expect(notified.entries.isEmpty)
        #expect(state.chain("o1")?.header.owner == nil)

        let renewed = try state.apply(
            F.notification([F.subscription("r2", chain: "o1", from: 30, to: 60, signedOn: 30)], observedOn: 30),
            now: F.day(30))
        #expect(renewed.outcome("r2") == .unclaimed)

        let claimed = try state.apply(
            F.receipt(by: bob, [F.subscription("r2", chain: "o1", from: 30, to: 60)], observedOn: 31), now: F.day(31))
        #expect(claimed.outcome("r2") == .applied(to: bob))
        #expect(claimed.bindingChanges.map(\.reason) == [.firstClaim])
        // Both the submitted renewal and the earlier unclaimed purchase are now bob's.
        #expect(Set(claimed.entries.map(\.idempotencyKey)) == ["grant:Production:o1", "extend:Production:r2"])
        #expect(claimed.entries.allSatisfy { $0.account == bob })
    }

    @Test func tokenNamingAnAccountAttributesANotification() throws {
        var state = LedgerState(catalog: F.catalog())
        let token = "0A1B2C3D-0000-4000-8000-00000000000A"
        state.register(try #require(AccountToken(token)), for: alice, bundleID: F.bundleID)
        let decision = try state.apply(
            F.notification(
                [F.subscription("o1", chain: "o1", from: 0, to: 30, appAccountToken: token, signedOn: 0)],
                observedOn: 0),
            now: F.day(0))
        #expect(decision.outcome("o1") == .applied(to: alice))
        #expect(state.chain("o1")?.header.owner == alice)
    }

    @Test func tokenWinsOverTheSubmitterAndTheSubmitterIsNotToldWho() throws {
        var state = LedgerState(catalog: F.catalog())
        state.register(try #require(AccountToken("alice-token")), for: alice, bundleID: F.bundleID)
        let decision = try state.apply(
            F.receipt(
                by: bob, [F.subscription("o1", chain: "o1", from: 0, to: 30, applicationUsername: "alice-token")],
                observedOn: 1),
            now: F.day(1))
        #expect(decision.outcome("o1") == .belongsToAnotherAccount)
        #expect(state.chain("o1")?.header.owner == alice)
    }

    @Test func tokenOfAnotherAppIsIgnoredInFavourOfTheSubmitter() throws {
        var state = LedgerState(catalog: F.catalog())
        let foreignOrder = Order(
            id: F.orderID(9), account: alice, productID: F.proMonthly, bundleID: "com.other.app", createdAt: F.day(0))
        state.place(foreignOrder)
        let decision = try state.apply(
            F.receipt(
                by: bob,
                [
                    F.subscription(
                        "o1", chain: "o1", from: 0, to: 30,
                        appAccountToken: foreignOrder.id.rawValue)
                ], observedOn: 1),
            now: F.day(1))
        #expect(decision.outcome("o1") == .applied(to: bob))
        #expect(decision.fulfilledOrders.isEmpty)
    }

    @Test func unresolvedTokenWithoutSubmitterIsDeferredThenClaimedOnceKnown() throws {
        var state = LedgerState(catalog: F.catalog())
        let token = "5e0f0000-0000-4000-8000-000000000001"
        let notification = F.notification(
            [F.purchase("c1", product: F.coins, on: 0, appAccountToken: token, signedOn: 0)], observedOn: 0)
        let deferred = try state.apply(notification, now: F.day(0))
        #expect(deferred.outcome("c1") == .deferred)
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(1)) == 0)

        state.register(try #require(AccountToken(token)), for: alice, bundleID: F.bundleID)
        let claimed = try state.apply(notification, now: F.day(1))
        #expect(claimed.outcome("c1") == .applied(to: alice))
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(1)) == 100)
    }

    @Test func emptyApplicationUsernameFallsBackToTheSubmittersPendingOrder() throws {
        var state = LedgerState(catalog: F.catalog())
        let older = Order(
            id: F.orderID(1), account: alice, productID: F.coins, bundleID: F.bundleID,
            createdAt: F.day(0, hours: 1))
        let newer = Order(
            id: F.orderID(2), account: alice, productID: F.coins, bundleID: F.bundleID,
            createdAt: F.day(0, hours: 2))
        let otherProduct = Order(
            id: F.orderID(3), account: alice, productID: F.lifetime, bundleID: F.bundleID,
            createdAt: F.day(0))
        for order in [older, newer, otherProduct] { state.place(order) }
        let decision = try state.apply(
            F.receipt(by: alice, [F.purchase("c1", product: F.coins, on: 1, applicationUsername: "")], observedOn: 1),
            now: F.day(1))
        #expect(decision.fulfilledOrders.map(\.id) == [older.id])
        #expect(state.orders[older.id]?.state == .fulfilled)
        #expect(state.orders[older.id]?.fulfilledBy == "c1")
        #expect(state.orders[newer.id]?.state == .pending)
        #expect(state.orders[otherProduct.id]?.state == .pending)
    }

    @Test func orderNamedByAppAccountTokenIsFulfilledOnceAndCreditedOnce() throws {
        var state = LedgerState(catalog: F.catalog())
        let order = Order(id: F.orderID(4), account: bob, productID: F.coins, bundleID: F.bundleID, createdAt: F.day(0))
        state.place(order)
        let purchase = F.purchase(
            "c1", product: F.coins, on: 0, quantity: 2,
            appAccountToken: order.id.rawValue.uppercased(), signedOn: 0)
        let first = try state.apply(F.notification([purchase], observedOn: 0), now: F.day(0))
        #expect(first.outcome("c1") == .applied(to: bob))
        #expect(first.fulfilledOrders == [order.fulfilled(by: "c1")])
        // The same transaction in two later receipts: no new fulfilment, no second credit.
        for day in [1, 2] {
            let again = try state.apply(F.receipt(by: bob, [purchase], observedOn: day), now: F.day(day))
            #expect(again.fulfilledOrders.isEmpty)
            #expect(again.entries.isEmpty)
        }
        #expect(state.creditBalance(for: bob, bundleID: F.bundleID, at: F.day(3)) == 200)
    }

    @Test func orderRenewalArrivingFirstIsRepointedToThePurchase() throws {
        var state = LedgerState(catalog: F.catalog())
        let order = Order(
            id: F.orderID(5), account: bob, productID: F.proMonthly, bundleID: F.bundleID,
            createdAt: F.day(0))
        state.place(order)
        let token = order.id.rawValue
        try state.apply(
            F.notification(
                [F.subscription("r2", chain: "o1", from: 30, to: 60, appAccountToken: token, signedOn: 30)],
                observedOn: 30),
            now: F.day(30))
        #expect(state.orders[order.id]?.fulfilledBy == "r2")
        try state.apply(
            F.receipt(
                by: bob, [F.subscription("o1", chain: "o1", from: 0, to: 30, appAccountToken: token)],
                observedOn: 31),
            now: F.day(31))
        #expect(state.orders[order.id]?.fulfilledBy == "o1")
    }

    struct PolicyCase: CustomTestStringConvertible, Sendable {
        var policy: OwnershipPolicy
        var willAutoRenew: Bool
        var expectedOutcome: TransactionOutcome.Result
        var expectedOwner: AccountID
        var testDescription: String { "\(policy.rawValue), owner renewing: \(willAutoRenew)" }
    }

    static let policyCases: [PolicyCase] = [
        PolicyCase(
            policy: .activeAutoRenewerKeeps, willAutoRenew: true, expectedOutcome: .belongsToAnotherAccount,
            expectedOwner: Fixtures.alice),
        PolicyCase(
            policy: .activeAutoRenewerKeeps, willAutoRenew: false, expectedOutcome: .applied(to: Fixtures.bob),
            expectedOwner: Fixtures.bob),
        PolicyCase(
            policy: .originalAccountKeeps, willAutoRenew: true, expectedOutcome: .belongsToAnotherAccount,
            expectedOwner: Fixtures.alice),
        PolicyCase(
            policy: .originalAccountKeeps, willAutoRenew: false, expectedOutcome: .belongsToAnotherAccount,
            expectedOwner: Fixtures.alice),
        PolicyCase(
            policy: .latestSubmitterTakes, willAutoRenew: true, expectedOutcome: .applied(to: Fixtures.bob),
            expectedOwner: Fixtures.bob),
        PolicyCase(
            policy: .latestSubmitterTakes, willAutoRenew: false, expectedOutcome: .applied(to: Fixtures.bob),
            expectedOwner: Fixtures.bob),
    ]

    @Test(arguments: policyCases)
    func eachPolicyDecidesAConflict(_ rule: PolicyCase) throws {
        var state = try aliceOwns(
            renewal: F.renewal(chain: "o1", willAutoRenew: rule.willAutoRenew, observedOn: 1), policy: rule.policy)
        let decision = try state.apply(
            F.receipt(by: bob, [F.subscription("o1", chain: "o1", from: 0, to: 30)], observedOn: 2), now: F.day(2))
        #expect(decision.outcome("o1") == rule.expectedOutcome)
        #expect(state.chain("o1")?.header.owner == rule.expectedOwner)
        #expect(state.entitlementIDs(of: rule.expectedOwner, at: F.day(2)) == ["pro"])
    }

    @Test func consumableCreditsStayWithTheFirstAccount() throws {
        var state = try F.state(
            policy: .latestSubmitterTakes,
            applying: [
                (F.receipt(by: alice, [F.purchase("c1", product: F.coins, on: 0)], observedOn: 0), F.day(0))
            ])
        let decision = try state.apply(
            F.receipt(by: bob, [F.purchase("c1", product: F.coins, on: 0)], observedOn: 1), now: F.day(1))
        #expect(decision.outcome("c1") == .belongsToAnotherAccount)
        #expect(state.creditBalance(for: alice, bundleID: F.bundleID, at: F.day(1)) == 100)
        #expect(state.creditBalance(for: bob, bundleID: F.bundleID, at: F.day(1)) == 0)
    }

    @Test func chainMovingBackAndForthRecordsEveryMove() throws {
        var state = try aliceOwns(
            renewal: F.renewal(chain: "o1", willAutoRenew: true, observedOn: 1), policy: .latestSubmitterTakes)
        let receipt = [F.subscription("o1", chain: "o1", from: 0, to: 30)]
        try state.apply(F.receipt(by: bob, receipt, observedOn: 2), now: F.day(2))
        try state.apply(F.receipt(by: alice, receipt, observedOn: 3), now: F.day(3))
        try state.apply(F.receipt(by: bob, receipt, observedOn: 4), now: F.day(4))
        #expect(state.chain("o1")?.bindingChanges.map(\.to) == [alice, bob, alice, bob])
        #expect(state.entries.values.filter { $0.kind == .transferIn }.count == 3)
        #expect(state.chain("o1")?.owner(at: F.day(3)) == alice)
        #expect(state.chain("o1")?.owner(at: F.day(0)) == alice)
    }
}
