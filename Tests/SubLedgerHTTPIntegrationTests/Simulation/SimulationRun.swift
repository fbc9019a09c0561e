import Foundation

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
