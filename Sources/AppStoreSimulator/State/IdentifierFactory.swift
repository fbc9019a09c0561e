import SeededRandom
import SubLedgerCore

/// Apple-shaped identifiers, deterministic for a seed: numeric transaction and web order line item ids
/// (sandbox ids start with 2000000, production ids with 3000000, as in real answers), order ids, UUIDs.
struct IdentifierFactory: Sendable {
    private var random: SplitMix64
    private var transactionCounter: Int64
    private var webOrderCounter: Int64
    private var appCounter: Int64

    init(seed: UInt64) {
        var random = SplitMix64(seed: seed ^ 0xA5A5_5A5A_0F0F_F0F0)
        transactionCounter = Int64(random.next() % 400_000_000) + 100_000_000
        webOrderCounter = Int64(random.next() % 400_000_000) + 500_000_000
        appCounter = Int64(random.next() % 900_000_000) + 1_000_000_000
        self.random = random
    }

    /// A new transaction id (`2000000123456789`).
    mutating func transactionID(environment: StoreEnvironment) -> String {
        transactionCounter += 1
        return prefix(environment) + String(transactionCounter)
    }

    /// A new web order line item id, one per subscription period.
    mutating func webOrderLineItemID(environment: StoreEnvironment) -> String {
        webOrderCounter += 1
        return prefix(environment) + String(webOrderCounter)
    }

    /// A new Apple app id (`adam_id`), ten digits.
    mutating func appAppleID() -> Int64 {
        appCounter += 7919
        return appCounter
    }

    /// A customer-facing order id like Apple's (`MQ3X7Z1ABC`).
    mutating func orderID() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
        return String((0..<10).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
    }

    /// A lower-case UUID.
    mutating func uuid() -> String { random.uuid() }

    /// A number in `0..<1` for fault draws.
    mutating func unitInterval() -> Double { Double(random.next() >> 11) / Double(1 << 53) }

    /// Opaque random bytes (receipt attribute 4).
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }

    private func prefix(_ environment: StoreEnvironment) -> String {
        environment == .production ? "3000000" : "2000000"
    }
}
