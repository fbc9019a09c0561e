import Foundation
import Testing

/// Whole customer lives on the web (`StripeLifeWorld`): worlds generated from seeds, each an app selling a monthly
/// subscription through SubLedger's Stripe checkout to a few accounts, who buy, renew, cancel at period end and
/// resume, see their card decline and pay again, are refunded in full or in part, are granted `pro` by support (and
/// have it revoked), are merged and erased, while Stripe's webhooks are dropped, sent twice, or read back late and
/// out of order from the events list. After every step SubLedger must agree with `StripeReferenceModel` on who holds
/// every subscription and who is entitled, with one grant or extension per paid invoice and gap-free webhook
/// numbering; at the end of each world the revenue report must equal what stripe-sim charged, refunded and kept as
/// its fee, `ledger verify` must be clean and no erased id may be left in any table.
///
/// The same variables as `CustomerLifeSimulationTests`: `SIMULATION_SEEDS` (a count, or seeds separated by commas),
/// `SIMULATION_STEPS`, `SIMULATION_FIRST_SEED`, `SIMULATION_VERBOSE=1`, `SIMULATION_SHRINK=1` (a failing
/// world's plan shrunk first). By default CI runs 8 worlds of 30 steps.
@Suite struct StripeLifeSimulationTests {
    static let steps = SimulationRun.steps(default: 30)
    static let seeds = SimulationRun.seeds(default: 8)

    @Test(arguments: seeds)
    func aStripeWorldKeepsTheLedgersInvariants(seed: UInt64) async throws {
        guard let violation = try await StripeLifeWorld(seed: seed, steps: Self.steps).run() else { return }
        await SimulationRun.report(violation.description, plan: violation.plan, seed: seed) { plan in
            try await StripeLifeWorld(seed: seed, plan: plan).run()?.description
        }
    }
}
