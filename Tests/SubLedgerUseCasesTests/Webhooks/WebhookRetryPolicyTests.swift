import SubLedgerStore
import Testing

/// The documented retry schedule (docs/guides/webhooks.md, "Delivery"), without a database.
@Suite("Webhook retry policy")
struct WebhookRetryPolicyTests {
    let policy = WebhookRetryPolicy()

    @Test func waitsDoubleFromTenSecondsUpToAnHour() {
        let ceilings = (1...12).map { policy.ceiling(afterAttempts: $0) }
        #expect(ceilings.prefix(4) == [.seconds(10), .seconds(20), .seconds(40), .seconds(80)])
        #expect(ceilings[9] == .seconds(3_600))
        #expect(ceilings[11] == .seconds(3_600))
        #expect(policy.ceiling(afterAttempts: Int.max) == .seconds(3_600))
    }

    @Test func jitterStaysBetweenHalfAndAllOfTheCeiling() {
        for attempts in [1, 3, 10, 50] {
            let ceiling = policy.ceiling(afterAttempts: attempts)
            #expect(policy.delay(afterAttempts: attempts, random: 0) == ceiling / 2)
            #expect(policy.delay(afterAttempts: attempts, random: 0.999_999) <= ceiling)
            for _ in 0..<100 {
                let delay = policy.delay(afterAttempts: attempts)
                #expect(delay >= ceiling / 2 && delay <= ceiling)
            }
        }
    }

    @Test func threeDaysHoldAtLeastEightyAttemptsEvenWithTheLongestWaits() {
        // The slowest schedule (every wait at its ceiling) still tries that often before giving up.
        var elapsed: Duration = .zero
        var attempts = 1
        while elapsed < policy.giveUpAfter {
            elapsed += policy.ceiling(afterAttempts: attempts)
            attempts += 1
        }
        #expect(attempts >= 80)
        #expect(policy.minimumAttempts == 10)
        #expect(policy.giveUpAfter == .seconds(72 * 3_600))
        #expect(policy.pauseAfterFailures == 10 && policy.pauseAfter == .seconds(3_600))
    }
}
