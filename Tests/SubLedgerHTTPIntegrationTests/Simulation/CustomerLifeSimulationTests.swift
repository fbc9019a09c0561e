import Foundation
import Testing

/// Whole customer lives, simulated (`CustomerLifeWorld`): worlds generated from seeds, each an app under one
/// ownership policy whose customers share Apple IDs, buy with and without order tokens, restore, renew, lapse,
/// resubscribe, are refunded and merged, while Apple's notifications arrive at once, late (retried on Apple's
/// schedule after SubLedger was unreachable) or twice. After every step SubLedger must agree with the reference
/// model (`ReferenceModel`) on who holds every purchase and who is entitled, with one grant or extension per
/// credited purchase and gap-free webhook numbering; at the end of each world `ledger verify` must be clean.
///
/// `SIMULATION_SEEDS` (a count, or a comma-separated list of seeds to replay) and `SIMULATION_STEPS` run it longer
/// (`scripts/simulate`); by default CI runs a bounded number of worlds. A violation prints the world's plan through the
/// failing step; with `SIMULATION_SHRINK=1` the plan is first shrunk to a short one that still fails.
@Suite struct CustomerLifeSimulationTests {
    static let steps = SimulationRun.steps(default: 40)
    static let seeds = SimulationRun.seeds(default: 16)

    @Test(arguments: seeds)
    func aWorldKeepsTheLedgersInvariants(seed: UInt64) async throws {
        guard let violation = try await CustomerLifeWorld(seed: seed, steps: Self.steps).run() else { return }
        await SimulationRun.report(violation.description, plan: violation.plan, seed: seed) { plan in
            try await CustomerLifeWorld(seed: seed, plan: plan).run()?.description
        }
    }
}
