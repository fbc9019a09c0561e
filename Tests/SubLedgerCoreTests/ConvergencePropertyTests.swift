import SeededRandom
import SubLedgerCore
import Testing

/// The ledger's order-independence, stated as precisely as it holds.
///
/// Fix the evaluation time `now` and a set of inputs.
///
/// **Property 1 (single claimant per chain).** If every chain's transactions are only ever attributed to one
/// account (through a submitter or a token) or to nobody (notifications and polls without a resolving token),
/// then applying the inputs in any order, each any number of times (at least once), gives the same stored
/// chains, entries (by idempotency key and content), orders, entitlements and credit balances. This holds
/// because every stored fact is a join: transaction versions and renewal info keep the newest observation,
/// revocations and reversals are sets of facts, unclaimed transactions join the chain's single claimant
/// whenever it first appears, and entries are a function of those facts. (Two assumptions of the data:
/// a revocation date is reversed at most once, and fallback order matching — first come, first served —
/// has a single candidate transaction per order.)
///
/// **Property 2 (chains claimed by several accounts).** Arrival order is part of the ownership rule's meaning
/// (the first submitter becomes owner; "still auto-renewing" is judged with what is known at arrival), so
/// only this holds: for a chain attributed to more than one account, fix the relative order of the inputs that
/// touch it. Then every interleaving of those inputs with the other inputs (which may be repeated anywhere),
/// where each of the chain's inputs may also be repeated *immediately* after itself, gives the same final
/// state. A repeat placed later is a new arrival and may legitimately move the chain again.
@Suite struct ConvergencePropertyTests {
    typealias Scenario = ConvergenceScenario
    static let permutations = 300

    /// Up to three copies of each input, shuffled.
    static func shuffledWithDuplicates(_ inputs: [LedgerInput], using rng: inout SplitMix64) -> [LedgerInput] {
        inputs.flatMap { input in Array(repeating: input, count: Int.random(in: 1...3, using: &rng)) }
            .shuffled(using: &rng)
    }

    @Test func singleClaimantInputsConvergeInAnyOrderAndMultiplicity() async throws {
        let reference = try Scenario.run(Scenario.singleClaimantInputs)
        let expected = Scenario.Outcome(reference)
        try checkReference(reference)

        var rng = SplitMix64(seed: 0x5EED_0001)
        for permutation in 0..<Self.permutations {
            // Seconds of work in all: leave the test process's few cooperative threads to the others now and then.
            await Task.yield()
            let inputs = Self.shuffledWithDuplicates(Scenario.singleClaimantInputs, using: &rng)
            let outcome = Scenario.Outcome(try Scenario.run(inputs))
            #expect(outcome == expected, "permutation \(permutation) diverged")
            if outcome != expected { break }
        }
    }

    @Test func contestedChainConvergesWhenItsOwnInputsKeepTheirOrder() async throws {
        let reference = try Scenario.run(Scenario.singleClaimantInputs + Scenario.contestedChainInputs)
        let expected = Scenario.Outcome(reference)
        let key = ChainKey(environment: .production, chainID: "s1")
        #expect(reference.chains[key]?.header.owner == Fixtures.bob)
        #expect(reference.chains[key]?.bindingChanges.map(\.to) == [Fixtures.alice, Fixtures.bob])

        var rng = SplitMix64(seed: 0x5EED_0002)
        for permutation in 0..<Self.permutations {
            await Task.yield()
            let others = Self.shuffledWithDuplicates(Scenario.singleClaimantInputs, using: &rng)
            // Place the contested chain's inputs, in order and each possibly repeated at once, at random slots.
            var slots = (0..<Scenario.contestedChainInputs.count).map { _ in
                Int.random(in: 0...others.count, using: &rng)
            }
            slots.sort()
            var inputs: [LedgerInput] = []
            var next = 0
            for (index, input) in others.enumerated() {
                while next < slots.count, slots[next] == index {
                    let copies = Int.random(in: 1...2, using: &rng)
                    inputs += Array(repeating: Scenario.contestedChainInputs[next], count: copies)
                    next += 1
                }
                inputs.append(input)
            }
            while next < slots.count {
                inputs.append(Scenario.contestedChainInputs[next])
                next += 1
            }
            let outcome = Scenario.Outcome(try Scenario.run(inputs))
            #expect(outcome == expected, "interleaving \(permutation) diverged")
            if outcome != expected { break }
        }
    }

    /// Why property 2 fixes the chain's own order: the same three inputs, reordered, end with another owner.
    @Test func twoAccountsSubmittingOneChainDependOnArrivalOrder() throws {
        let aliceFirst = try Scenario.run(Array(Scenario.contestedChainInputs.prefix(3)))
        let bobFirst = try Scenario.run([2, 0, 1].map { Scenario.contestedChainInputs[$0] })
        let key = ChainKey(environment: .production, chainID: "s1")
        // Alice, then her auto-renew off, then bob's purchase: the chain moves to bob.
        #expect(aliceFirst.chains[key]?.bindingChanges.map(\.to) == [Fixtures.alice, Fixtures.bob])
        // Bob first claims it; alice's older receipt then arrives when bob's period has lapsed (at `now`),
        // so it moves to her.
        #expect(bobFirst.chains[key]?.bindingChanges.map(\.to) == [Fixtures.bob, Fixtures.alice])
        #expect(aliceFirst.entries != bobFirst.entries)
    }

    /// The reference run is the scenario's story; checks that the property compares something meaningful.
    func checkReference(_ state: LedgerState) throws {
        typealias F = Fixtures
        // Alice: the refund of a2 was reversed, so she is entitled on day 45; auto-renew on and a4 paid.
        #expect(state.entitlementIDs(of: F.alice, at: F.day(45)).contains("pro"))
        #expect(state.entries.values.contains { $0.kind == .restore && $0.transactionID == "a2" })
        #expect(state.entitlementIDs(of: F.alice, at: F.day(100)) == ["lifetime", "pro"])
        #expect(state.orders[Scenario.aliceCoinsOrder.id]?.fulfilledBy == "x1")
        #expect(state.creditBalance(for: F.alice, bundleID: F.bundleID, at: F.day(100)) == 100)
        // Bob: 200 credits bought, 100 refunded; his pass order fulfilled by token.
        #expect(state.creditBalance(for: F.bob, bundleID: F.bundleID, at: F.day(100)) == 100)
        #expect(state.orders[Scenario.bobPassOrder.id]?.fulfilledBy == "p1")
        #expect(state.entitlementIDs(of: F.bob, at: F.day(75)) == ["pro"])
        // Carol: upgraded to premium on day 10, in a grace period at day 100, shared product revoked on day 50.
        let carol = state.entitlements(for: F.carol, bundleID: F.bundleID, at: F.day(104))
        #expect(carol.map(\.entitlementID) == ["premium", "pro"])
        #expect(carol.allSatisfy { $0.state == .gracePeriod })
        #expect(state.entitlementIDs(of: F.carol, at: F.day(107)).isEmpty)
        #expect(state.entitlementIDs(of: F.carol, at: F.day(5)) == ["lifetime", "pro"])
        #expect(state.orders[Scenario.carolUpgradeOrder.id]?.fulfilledBy == "c2")
        #expect(state.orders[Scenario.carolFirstOrder.id]?.fulfilledBy == "c1")
    }
}
