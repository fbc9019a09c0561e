import SeededRandom

/// The suites' seeded generator (`SplitMix64`) with byte-level mutations, so fuzz-style tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var base: SplitMix64

    init(seed: UInt64) { base = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { base.next() }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) }
    }

    /// One random edit: replace, insert, delete or truncate.
    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var output = input
        guard !output.isEmpty else { return bytes(Int.random(in: 1...16, using: &self)) }
        let position = Int.random(in: 0..<output.count, using: &self)
        switch Int.random(in: 0..<4, using: &self) {
        case 0:
            var replacement = UInt8.random(in: .min ... .max, using: &self)
            if replacement == output[position] { replacement &+= 1 }
            output[position] = replacement
        case 1: output.insert(UInt8.random(in: .min ... .max, using: &self), at: position)
        case 2: output.remove(at: position)
        default: output.removeSubrange(position...)
        }
        return output
    }
}
