import SubLedgerCore
import Testing

/// Inputs older than what is stored never move state backwards.
@Suite struct StaleInputTests {
    typealias F = Fixtures
    let alice = Fixtures.alice

    @Test func olderRenewalInfoIsIgnored() throws {
        var state = try F.state(applying: [
            (
                F.receipt(
                    by: alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "s1", willAutoRenew: false, observedOn: 10)], observedOn: 10),
                F.day(10)
            )
        ])
        let decision = try state.apply(
            F.notification([], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 5)], observedOn: 5),
            now: F.day(11))
        #expect(decision.renewalInfoOutcomes.map(\.result) == [.stale])
        #expect(state.chain("s1")?.header.renewalInfo?.willAutoRenew == false)
        #expect(state.chain("s1")?.header.renewalInfo?.observedAt == F.day(10))
    }

    @Test func newerRenewalInfoReplacesTheStoredOne() throws {
        var state = try F.state(applying: [
            (
                F.receipt(
                    by: alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 1)], observedOn: 1), F.day(1)
            )
        ])
        let decision = try state.apply(
            F.notification(
                [],
                renewals: [
                    F.renewal(chain: "s1", willAutoRenew: false, observedOn: 2),
                    F.renewal(chain: "s1", willAutoRenew: true, observedOn: 1, observedHours: 3),
                ],
                observedOn: 2),
            now: F.day(2))
        #expect(decision.renewalInfoOutcomes.map(\.result) == [.applied, .stale])
        #expect(state.chain("s1")?.header.renewalInfo?.willAutoRenew == false)
    }

    /// A legacy renewal state (a receipt's `pending_renewal_info`) states no price: the price a StoreKit 2 renewal
    /// info stated for the same next product stays; once the next product changes, it is unknown.
    @Test func aNewerRenewalStateWithoutAPriceKeepsThePriceOfTheSameNextProduct() throws {
        var priced = F.renewal(chain: "s1", willAutoRenew: true, observedOn: 1)
        priced.renewalPrice = 9_990
        priced.currency = "EUR"
        var state = try F.state(applying: [
            (
                F.receipt(
                    by: alice, [F.subscription("s1", chain: "s1", from: 0, to: 30)], renewals: [priced], observedOn: 1),
                F.day(1)
            )
        ])
        _ = try state.apply(
            F.notification([], renewals: [F.renewal(chain: "s1", willAutoRenew: false, observedOn: 2)], observedOn: 2),
            now: F.day(2))
        #expect(state.chain("s1")?.header.renewalInfo?.willAutoRenew == false)
        #expect(state.chain("s1")?.header.renewalInfo?.renewalPrice == 9_990)
        #expect(state.chain("s1")?.header.renewalInfo?.currency == "EUR")

        var repriced = F.renewal(chain: "s1", willAutoRenew: true, observedOn: 3)
        repriced.renewalPrice = 12_990
        repriced.currency = "EUR"
        _ = try state.apply(F.notification([], renewals: [repriced], observedOn: 3), now: F.day(3))
        #expect(state.chain("s1")?.header.renewalInfo?.renewalPrice == 12_990)

        var otherProduct = F.renewal(chain: "s1", willAutoRenew: true, observedOn: 4)
        otherProduct.autoRenewProductID = "other.product"
        _ = try state.apply(F.notification([], renewals: [otherProduct], observedOn: 4), now: F.day(4))
        #expect(state.chain("s1")?.header.renewalInfo?.renewalPrice == nil)
        #expect(state.chain("s1")?.header.renewalInfo?.currency == nil)
    }

    @Test func olderTransactionVersionDoesNotReplaceANewerOne() throws {
        var upgraded = F.subscription("s1", chain: "s1", from: 0, to: 30, upgradedOn: 5)
        upgraded.signedDate = F.day(6)
        var stale = F.subscription("s1", chain: "s1", from: 0, to: 30)
        stale.signedDate = F.day(1)
        var state = try F.state(applying: [(F.receipt(by: alice, [upgraded], observedOn: 6), F.day(6))])
        let decision = try state.apply(F.receipt(by: alice, [stale], observedOn: 1), now: F.day(7))
        #expect(decision.outcome("s1") == .duplicate)
        #expect(state.chain("s1")?.transaction("s1")?.transaction.isUpgraded == true)
    }

    @Test func renewalInfoOfUnknownProductsOrOtherEnvironmentsIsFlagged() throws {
        var state = LedgerState(catalog: F.catalog())
        var sandbox = F.renewal(chain: "s1", willAutoRenew: true, observedOn: 1)
        sandbox.environment = .sandbox
        let decision = try state.apply(
            F.notification(
                [],
                renewals: [
                    F.renewal(
                        chain: "s9", product: "gone.product", willAutoRenew: true,
                        observedOn: 1), sandbox,
                ], observedOn: 1),
            now: F.day(1))
        #expect(
            decision.renewalInfoOutcomes.map(\.result) == [.ignored(.unknownProduct), .ignored(.environmentMismatch)])
        #expect(state.chains.isEmpty)
    }
}
