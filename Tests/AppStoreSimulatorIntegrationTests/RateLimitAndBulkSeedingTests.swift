import AppStore
import AppStoreClients
import Foundation
import SubLedgerCore
import Testing

@testable import AppStoreSimulator

/// The Server API's per-app rate limits (Apple's 429) and the bulk seeding route for benchmarks.
@Suite struct RateLimitAndBulkSeedingTests {
    /// Beyond the burst, calls are answered 429 with Apple's errorCode 4290000 and a Retry-After in UNIX
    /// milliseconds when a call will be admitted again. The refill (one token per 50 s) is far slower than
    /// three calls take on any machine, so the third call is refused however loaded the machine is.
    @Test func callsBeyondTheLimitAreAnswered429WithRetryAfter() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("limited@example.com")
            let bought = try await fixture.buy("limited@example.com", "pro.monthly")
            let id = try #require(bought.transactionID)
            try fixture.simulator.control.setRateLimits(RateLimitSettings(requestsPerSecond: 0.02, burst: 2))
            let client = try fixture.serverAPIClient()
            _ = try await client.transactionInfo(transactionID: id)
            _ = try await client.transactionInfo(transactionID: id)
            let before = Instant.systemNow()
            do {
                _ = try await client.transactionInfo(transactionID: id)
                Issue.record("the third call within the burst was admitted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .rateLimited)
                #expect(error.apiErrorCode == 4_290_000)
                let retryAfter = try #require(error.retryAfter)
                #expect(retryAfter > before)
                #expect(retryAfter.millisecondsSince1970 - before.millisecondsSince1970 <= 50_000)
            }
            #expect(fixture.simulator.control.rateLimits().refused == 1)
            // Off again: no refusals.
            try fixture.simulator.control.setRateLimits(RateLimitSettings())
            for _ in 0..<5 { _ = try await client.transactionInfo(transactionID: id) }
            #expect(fixture.simulator.control.rateLimits().refused == 0)
        }
    }

    /// The bucket on a clock the test moves: refused until the Retry-After moment, admitted from it on.
    @Test func aRefusedCallIsAdmittedAgainFromItsRetryAfterMoment() throws {
        let limits = ServerAPIRateLimits()
        limits.update(RateLimitSettings(requestsPerSecond: 2, burst: 2))
        let start = ContinuousClock.now
        let wallClock = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(limits.admit(bundleID: "b", now: start, wallClock: wallClock) == nil)
        #expect(limits.admit(bundleID: "b", now: start, wallClock: wallClock) == nil)
        let refusal = try #require(limits.admit(bundleID: "b", now: start, wallClock: wallClock))
        let retryAt = try #require(refusal.retryAfter.flatMap { Int64($0) })
        let waitMilliseconds = retryAt - 1_800_000_000_000
        #expect(waitMilliseconds == 500)
        #expect(
            limits.admit(bundleID: "b", now: start + .milliseconds(waitMilliseconds - 10), wallClock: wallClock) != nil)
        #expect(
            limits.admit(bundleID: "b", now: start + .milliseconds(waitMilliseconds + 1), wallClock: wallClock) == nil)
        #expect(limits.refusedCount == 2)
    }

    @Test func impossibleRateLimitsAreRefused() async throws {
        try await SimulatorFixture.with { fixture in
            for settings in [
                RateLimitSettings(requestsPerSecond: 0), RateLimitSettings(requestsPerSecond: -1),
                RateLimitSettings(perApp: ["x": .infinity]), RateLimitSettings(requestsPerSecond: 1, burst: 0),
            ] {
                #expect(throws: SimulatorError.self) { try fixture.simulator.control.setRateLimits(settings) }
            }
        }
    }

    /// Seeding draws a mix of chains from the seed, each with its history in the Server API, and sends no
    /// notifications; bad requests are refused.
    @Test func bulkSeedingCreatesAMixOfChainsWithoutNotifications() async throws {
        try await SimulatorFixture.with { fixture in
            let control = fixture.simulator.control
            let before = control.notifications().count
            let seeded = try control.seedChains(
                BulkSeedRequest(bundleID: SimulatorFixture.bundleID, count: 40, seed: 9))
            #expect(seeded.chains.count == 40)
            #expect(Set(seeded.chains.map(\.kind)) == ["active", "expired", "refunded", "upgraded"])
            #expect(control.notifications().count == before)
            #expect(seeded.csv.split(separator: "\n").count == 41)
            let client = try fixture.serverAPIClient()
            for chain in seeded.chains.prefix(8) {
                let history = try await client.allTransactionHistory(transactionID: chain.originalTransactionID)
                #expect(history.count == chain.transactions)
                let statuses = try await client.allSubscriptionStatuses(transactionID: chain.originalTransactionID)
                let status = statuses.groups.first?.lastTransactions.first?.status
                switch chain.kind {
                case "active", "upgraded": #expect(status == .active)
                case "expired": #expect(status == .expired)
                default: #expect(status == .revoked)
                }
            }
            for request in [
                BulkSeedRequest(bundleID: SimulatorFixture.bundleID, count: 0),
                BulkSeedRequest(bundleID: "com.example.none", count: 1),
                BulkSeedRequest(bundleID: SimulatorFixture.bundleID, count: 1, productID: "coins"),
                BulkSeedRequest(bundleID: SimulatorFixture.bundleID, count: 1, seed: 9),  // Apple IDs exist already
            ] {
                #expect(throws: SimulatorError.self) { try control.seedChains(request) }
            }
        }
    }
}
