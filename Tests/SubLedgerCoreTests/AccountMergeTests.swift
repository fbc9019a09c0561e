import SubLedgerCore
import Testing

/// `AccountMerge`: the merged account's chains move with a binding change and transfer entries whatever the
/// ownership policy, its credits move as a debit and a credit, and the periods of the read model follow.
@Suite struct AccountMergeDecisionTests {
    typealias F = Fixtures

    @Test func everyOwnedChainMovesAtTheMergeAndOnlyThose() throws {
        let app = F.app()
        var state = LedgerState(catalog: Catalog(apps: [app]))
        _ = try state.apply(
            F.receipt(by: F.alice, [F.subscription("a1", chain: "a1", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        _ = try state.apply(
            F.receipt(by: F.bob, [F.subscription("b1", chain: "b1", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        let chains = Array(state.chains.values)

        let decision = AccountMerge.decision(
            chains: chains, credits: [:], from: F.alice, into: F.carol, app: app, now: F.day(5))
        #expect(decision.updatedChains.map(\.key.chainID) == ["a1"])
        #expect(decision.updatedChains.first?.header.owner == F.carol)
        #expect(decision.bindingChanges.map(\.reason) == [.accountMerge])
        #expect(decision.entries.map(\.kind) == [.transferOut, .transferIn])
        #expect(decision.entries.map(\.account) == [F.alice, F.carol])
        #expect(decision.entries.allSatisfy { $0.reason == .accountMerge && $0.effectiveAt == F.day(5) })

        // The read model: alice's period of the chain ends at the merge, carol's begins there.
        let periods = try #require(decision.updatedChains.first).entitlementPeriods(in: app)
        #expect(periods.filter { $0.account == F.alice }.allSatisfy { $0.until == F.day(5) })
        #expect(periods.contains { $0.account == F.carol && $0.from == F.day(5) })
    }

    @Test func creditsMoveAsADebitAndACreditAndAMergeIntoItselfIsRefused() throws {
        let app = F.app()
        var state = LedgerState(catalog: Catalog(apps: [app]))
        _ = try state.apply(
            F.receipt(by: F.alice, [F.subscription("a1", chain: "a1", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        let key = try #require(state.chains.keys.first)
        let decision = AccountMerge.decision(
            chains: Array(state.chains.values), credits: [key: 300], from: F.alice, into: F.bob, app: app,
            now: F.day(2))
        let moved = decision.entries.filter { $0.kind == .debit || $0.kind == .credit }
        #expect(moved.map(\.kind) == [.debit, .credit])
        #expect(moved.map(\.account) == [F.alice, F.bob])
        #expect(moved.allSatisfy { $0.credits == 300 })
        #expect(Set(decision.entries.map(\.idempotencyKey)).count == decision.entries.count)
        #expect(throws: AccountMerge.Refusal.sameAccount) { try AccountMerge.check(from: F.alice, into: F.alice) }
    }

    /// The merged account's purchases follow it: every transaction attributed to it is attributed to the account
    /// merged into, on the chains it owns and on one another account owns now (which changes hands no further and
    /// gets no entry); the accounts' transactions elsewhere stay theirs.
    @Test func everyTransactionOfTheMergedAccountIsTheOtherAccountsWhoeverOwnsItsChain() throws {
        let app = F.app()
        var state = LedgerState(catalog: Catalog(apps: [app]))
        _ = try state.apply(
            F.receipt(by: F.alice, [F.subscription("a1", chain: "a1", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        _ = try state.apply(
            F.receipt(by: F.alice, [F.subscription("a2", chain: "a2", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        _ = try state.apply(
            F.receipt(by: F.bob, [F.subscription("b1", chain: "b1", from: 0, to: 30)], observedOn: 1), now: F.day(1))
        // a2 is bob's now (as a transfer would leave it): alice's purchase on it is still hers.
        let chains = state.chains.values.map { chain in
            var chain = chain
            if chain.key.chainID == "a2" { chain.header.owner = F.bob }
            return chain
        }

        let decision = AccountMerge.decision(
            chains: chains, credits: [:], from: F.alice, into: F.carol, app: app, now: F.day(5))
        #expect(decision.updatedChains.map(\.key.chainID) == ["a1", "a2"])
        for chain in decision.updatedChains {
            #expect(chain.transactions.map(\.account) == [F.carol], "\(chain.key.chainID)")
        }
        #expect(decision.updatedChains.map(\.header.owner) == [F.carol, F.bob])
        #expect(decision.bindingChanges.map(\.chain.chainID) == ["a1"])
        #expect(Set(decision.entries.map(\.chainID)) == ["a1"])
    }
}
