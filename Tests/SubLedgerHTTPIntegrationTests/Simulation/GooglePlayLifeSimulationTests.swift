import Foundation
import Testing

/// Whole customer lives on Google Play (`GooglePlayLifeWorld`): worlds generated from seeds, each an app under one
/// ownership policy whose customers share Google accounts, subscribe with and without an order token as the
/// obfuscated account id, sign up again on a cancelled subscription (a linked token), submit each other's tokens,
/// renew, cancel and restart, are refunded, merged and erased, while real-time developer notifications arrive at
/// once or late, after Pub/Sub's retries. After every step SubLedger must agree with `GooglePlayReferenceModel` on
/// who holds every order and who is entitled, with one grant or extension per credited order and gap-free webhook
/// numbering; at the end of each world `ledger verify` must be clean and no erased id left in any table.
///
/// The same variables as `CustomerLifeSimulationTests`: `SIMULATION_SEEDS` (a count, or seeds separated by commas),
/// `SIMULATION_STEPS`, `SIMULATION_FIRST_SEED`, `SIMULATION_VERBOSE=1`, `SIMULATION_SHRINK=1` (a failing
/// world's plan shrunk first) (each world's steps printed). By default CI
/// runs 8 worlds of 30 steps.
@Suite struct GooglePlayLifeSimulationTests {
    static let steps = SimulationRun.steps(default: 30)
    static let seeds = SimulationRun.seeds(default: 8)

    @Test(arguments: seeds)
    func aGooglePlayWorldKeepsTheLedgersInvariants(seed: UInt64) async throws {
        guard let violation = try await GooglePlayLifeWorld(seed: seed, steps: Self.steps).run() else { return }
        await SimulationRun.report(violation.description, plan: violation.plan, seed: seed) { plan in
            try await GooglePlayLifeWorld(seed: seed, plan: plan).run()?.description
        }
    }
}
