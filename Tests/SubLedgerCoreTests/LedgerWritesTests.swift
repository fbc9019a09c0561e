import SubLedgerCore
import Testing

/// `Ledger.writes`: one call gives everything an apply writes, each part what its own derivation gives for
/// the decision (so the store decides nothing), and the accounts the rows name that the snapshot does not show.
@Suite struct LedgerWritesTests {
    typealias F = Fixtures

    /// The app with both write-backs on, the state of its ledger, and `input`'s snapshot taken from it.
    struct World {
        var app: App
        var state: LedgerState

        init() {
            var app = F.app()
            app.writeBack = WriteBackPolicy(appAccountTokens: true, finishTransactions: true)
            self.app = app
            state = LedgerState(catalog: Catalog(apps: [app]))
        }

        func snapshot(for input: LedgerInput) -> LedgerSnapshot {
            LedgerSnapshot(
                chains: input.chainKeys.compactMap { state.chains[$0] },
                accountsByToken: state.accountsByToken[F.bundleID] ?? [:])
        }

        /// What applying `input` at `now` writes, then `input` applied to the state as the store would commit it.
        mutating func apply(_ input: LedgerInput, now: Instant) throws -> LedgerWrites {
            let cause = WebhookEventCause(kind: .notification)
            let writes = try Ledger.writes(
                applying: input, to: snapshot(for: input), app: app, cause: cause, now: now)
            let decision = try state.apply(input, now: now)
            #expect(writes.decision == decision)
            return writes
        }
    }

    @Test func aFirstPurchaseNamesItsNewAccountAndEveryPartFollowsTheDecision() throws {
        var world = World()
        let input = F.receipt(by: F.alice, [F.subscription("o1", chain: "o1", from: 0, to: 30)], observedOn: 1)
        let snapshot = world.snapshot(for: input)
        let writes = try world.apply(input, now: F.day(1))
        let decision = writes.decision

        #expect(writes.newAccounts == [F.alice])
        #expect(writes.accountsByTransaction == ["o1": F.alice])
        #expect(writes.periods.map(\.chain) == decision.updatedChains.map(\.key))
        #expect(writes.periods.first?.accounts == [F.alice])
        #expect(writes.periods.first?.periods == decision.updatedChains.first?.entitlementPeriods(in: world.app))
        #expect(writes.periods.first?.periods.isEmpty == false)
        #expect(writes.obligations == StoreObligation.owed(by: decision, on: snapshot, app: world.app))
        #expect(
            writes.events
                == WebhookEventDerivation.drafts(
                    input: input, cause: WebhookEventCause(kind: .notification), before: snapshot.chains,
                    decision: decision, app: world.app, now: F.day(1)))
        #expect(!writes.events.isEmpty)
        #expect(
            writes.clockMoments
                == WebhookClockDerivation.moments(
                    before: snapshot.chains, decision: decision, app: world.app, now: F.day(1)))
    }

    @Test func aRenewalOfAnOwnedChainNamesNoNewAccount() throws {
        var world = World()
        _ = try world.apply(
            F.receipt(by: F.alice, [F.subscription("o1", chain: "o1", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        let renewal = try world.apply(
            F.notification([F.subscription("r2", chain: "o1", from: 30, to: 60)], observedOn: 30), now: F.day(30))
        #expect(renewal.newAccounts.isEmpty)
        #expect(renewal.accountsByTransaction == ["r2": F.alice])
        #expect(renewal.periods.first?.accounts == [F.alice])
    }

    @Test func aTransferNamesTheNewOwnerAndKeepsThePreviousOnesPeriodsInScope() throws {
        var world = World()
        _ = try world.apply(
            F.receipt(
                by: F.alice, [F.subscription("o1", chain: "o1", from: 0, to: 30)],
                renewals: [F.renewal(chain: "o1", willAutoRenew: false, observedOn: 1)], observedOn: 1),
            now: F.day(1))
        let moved = try world.apply(
            F.receipt(by: F.bob, [F.subscription("r2", chain: "o1", from: 30, to: 60)], observedOn: 31),
            now: F.day(31))
        #expect(moved.newAccounts == [F.bob])
        #expect(moved.accountsByTransaction == ["r2": F.bob])
        // Alice's rows of the chain are rewritten too: she held it, so her old periods are replaced.
        #expect(moved.periods.first?.accounts == [F.alice, F.bob])
    }
}
