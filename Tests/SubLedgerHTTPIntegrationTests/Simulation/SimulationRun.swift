import Foundation
import SeededRandom
import Testing

/// What a simulation suite runs, from the environment `scripts/simulate` sets: `SIMULATION_SEEDS` (a count of seeds
/// from `SIMULATION_FIRST_SEED`, or seeds separated by commas to replay), `SIMULATION_STEPS`, and the suite's own
/// defaults for CI's short form.
enum SimulationRun {
    static let environment = ProcessInfo.processInfo.environment

    /// `SIMULATION_STEPS`, else `defaultSteps`.
    static func steps(default defaultSteps: Int) -> Int {
        environment["SIMULATION_STEPS"].flatMap(Int.init) ?? defaultSteps
    }

    /// `SIMULATION_SEEDS=40` runs seeds 1…40 (from `SIMULATION_FIRST_SEED`); `SIMULATION_SEEDS=7,19` replays those two;
    /// unset, `defaultCount` seeds.
    static func seeds(default defaultCount: UInt64) -> [UInt64] {
        let first = environment["SIMULATION_FIRST_SEED"].flatMap(UInt64.init) ?? 1
        let text = environment["SIMULATION_SEEDS"] ?? "\(defaultCount)"
        if text.contains(",") { return text.split(separator: ",").compactMap { UInt64($0) } }
        return Array(first..<(first + (UInt64(text) ?? defaultCount)))
    }
}

extension SimulationRun {
    /// With `SIMULATION_SHRINK=1` a failing world's plan is shrunk (`SimulationShrinking`) before it is reported.
    static let shrinks = environment["SIMULATION_SHRINK"] == "1"

    /// Records a world's violation (`description`, the plan through its failing step `plan`) as the test's issue, or,
    /// with `SIMULATION_SHRINK=1`, shrinks the plan with `replay` (the world of the same seed living a candidate plan,
    /// answering its violation or nil) and lets the checker record the shortest failing plan.
    static func report(
        _ description: String, plan: [SimulationStep], seed: UInt64,
        replay: ([SimulationStep]) async throws -> String?
    ) async {
        guard shrinks else {
            Issue.record("\(description)")
            return
        }
        guard let shortest = await SimulationShrinking.shrink(plan, failing: replay) else {
            // The world broke, but its plan held when replayed: the break needed two concurrent requests to overlap as
            // they did. It is reported all the same, unshrunk.
            Issue.record("\(description)\n(its replay held: a break of concurrent requests' timing; not shrunk)")
            return
        }
        print("seed \(seed): shrunk from \(plan.count) steps to \(shortest.count)")
    }
}

/// One step of a world's plan: which action (`kind`, a roll of 0…99 against the world's action table) and the entropy
/// every choice the action makes is drawn from (which account, which store identity, how many days, which server). A
/// step whose action cannot happen in the world as it then is does nothing, so any subsequence of a plan is a life
/// too: that is what lets a failing plan be shrunk (`SimulationShrinking`). Every world (App Store, Google Play,
/// Stripe) lives a plan of these; its seed draws only its setup.
struct SimulationStep: Hashable, Sendable, CustomStringConvertible, CustomTestStringConvertible {
    var kind: UInt8
    var entropy: UInt64
    /// As Swift source, so a shrunk plan pastes into a regression test.
    var description: String { ".init(kind: \(kind), entropy: 0x\(String(entropy, radix: 16)))" }
    var testDescription: String { description }

    /// The steps `seed` draws: a generator of their own, apart from the setup's.
    static func plan(seed: UInt64, steps: Int) -> [SimulationStep] {
        var random = SplitMix64(seed: seed ^ 0x9E37_79B9_7F4A_7C15)
        return (0..<max(0, steps)).map { _ in SimulationStep(kind: UInt8(random.next() % 100), entropy: random.next()) }
    }
}
