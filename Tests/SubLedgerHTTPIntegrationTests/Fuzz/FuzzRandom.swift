import Foundation
import SubLedgerTestSupport

/// A deterministic random source (SplitMix64): the same seed gives the same campaign on every machine,
/// so a failure printed with its seed can be replayed exactly.
struct FuzzRandom: RandomNumberGenerator {
    private var base: SplitMix64

    init(seed: UInt64) {
        base = SplitMix64(seed: seed)
    }

    /// A generator for one case of a campaign, independent of how many draws the earlier cases made.
    init(seed: UInt64, stream: String, index: Int) {
        var mixed = seed ^ 0x5DEE_CE66_D1CE_4E5B
        for byte in stream.utf8 { mixed = (mixed ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        mixed ^= UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
        base = SplitMix64(seed: mixed)
        _ = next()
    }

    mutating func next() -> UInt64 { base.next() }

    /// `true` with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[int(0...(items.count - 1))]
    }

    mutating func byte() -> UInt8 {
        UInt8(truncatingIfNeeded: next())
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in byte() }
    }
}

/// How much fuzzing to do: a short, fixed campaign by default (part of `scripts/test`); `scripts/fuzz`
/// runs longer ones through the environment.
///
/// - `SUBLEDGER_FUZZ_SEED`: the seed (decimal or 0x-hex); default a fixed one.
/// - `SUBLEDGER_FUZZ_ITERATIONS`: requests per route; default `defaultIterations`.
struct FuzzSettings: Sendable, CustomStringConvertible {
    static let seedVariable = "SUBLEDGER_FUZZ_SEED"
    static let iterationsVariable = "SUBLEDGER_FUZZ_ITERATIONS"
    static let defaultSeed: UInt64 = 20_261_122

    var seed: UInt64
    var iterations: Int

    static func fromEnvironment(defaultIterations: Int) -> FuzzSettings {
        let environment = ProcessInfo.processInfo.environment
        var seed = defaultSeed
        if let text = environment[seedVariable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            if text.lowercased().hasPrefix("0x"), let value = UInt64(text.dropFirst(2), radix: 16) {
                seed = value
            } else if let value = UInt64(text) {
                seed = value
            }
        }
        var iterations = defaultIterations
        if let text = environment[iterationsVariable], let value = Int(text), value > 0 { iterations = value }
        return FuzzSettings(seed: seed, iterations: iterations)
    }

    var description: String {
        "\(Self.seedVariable)=\(seed) \(Self.iterationsVariable)=\(iterations)"
    }
}
