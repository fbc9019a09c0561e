import AppStoreStore
import Foundation
import Logging
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// The renewal job's sharing of work between pollers, against a real PostgreSQL.
@Suite struct PollerTests {
    typealias H = ServiceHarness

    /// Creates `count` production chains of app one owned by `owner`, each expiring on day 30.
    static func seedChains(_ count: Int, store: LedgerStore, app: StoredApp) async throws {
        let transactions = (0..<count).map { index in
            Transaction(
                transactionID: "9\(index)", chainID: "9\(index)", productID: "pro.monthly",
                bundleID: H.appOne, purchaseDate: H.day(0), expiresDate: H.day(30), subscriptionGroupID: "g1",
                environment: .production, source: .verifyReceipt)
        }
        let renewals = transactions.map {
            RenewalInfo(
                chainID: $0.chainID, productID: "pro.monthly", willAutoRenew: true,
                environment: .production, observedAt: H.day(0))
        }
        let input = LedgerInput(
            kind: .receipt, bundleID: H.appOne, environment: .production, submitter: try AccountID("owner"),
            transactions: transactions, renewalInfo: renewals, observedAt: H.day(0))
        try await store.apply(input, app: app, now: H.day(0))
    }

    static func poller(
        _ harness: ServiceHarness, worker: String, lease: Duration = .seconds(300),
        refresh: @escaping @Sendable (PollQueue.DueChain) async throws -> Void
    ) throws -> RenewalPoller {
        var configuration = RenewalPoller.Configuration(worker: worker)
        configuration.batchSize = 37
        configuration.concurrency = 3
        configuration.requestsPerSecond = 100_000
        configuration.lease = lease
        configuration.once = true
        let gateway = try AppleGateway(configuration: .init(trustAppleRoot: true), logger: TestDatabase.logger)
        let ingestion = Ingestion(
            store: harness.store, catalog: harness.catalog, apple: gateway, logger: TestDatabase.logger,
            now: { harness.clock.now })
        return RenewalPoller(
            configuration: configuration, queue: PollQueue(pool: harness.pool), store: harness.store,
            catalog: harness.catalog, ingestion: ingestion,
            refresher: .init { chain, _ in
                try await refresh(chain)
                return nil
            },
            logger: TestDatabase.logger, now: { harness.clock.now })
    }

    @Test func twoPollersOnAThousandDueChainsCheckEachExactlyOncePerCycle() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            try await Self.seedChains(1_000, store: harness.store, app: app)
            harness.clock.set(H.day(29))  // every chain expires within the one-day window

            let calls = Mutex<[String: Int]>([:])
            let record: @Sendable (PollQueue.DueChain) async throws -> Void = { chain in
                calls.withLock { $0[chain.key.chainID, default: 0] += 1 }
                try await Task.sleep(for: .milliseconds(1))
            }
            let first = try Self.poller(harness, worker: "poller-a", refresh: record)
            let second = try Self.poller(harness, worker: "poller-b", refresh: record)
            async let a = first.runCycle()
            async let b = second.runCycle()
            let (reportA, reportB) = try await (a, b)

            let counts = calls.withLock { $0 }
            #expect(counts.count == 1_000)
            #expect(counts.values.allSatisfy { $0 == 1 })
            #expect(reportA.checked + reportB.checked == 1_000)
            #expect(reportA.checked > 0 && reportB.checked > 0)
            // Nothing stays leased, and a second cycle finds nothing due (each was rescheduled).
            let leased = try await harness.pool.query("SELECT count(*) FROM chains WHERE leased_until IS NOT NULL")
            #expect(try leased.single().decode(Int64.self, at: 0) == 0)
            let again = try await first.runCycle()
            #expect(again.checked == 0)
        }
    }

    /// A poller that dies mid-cycle leaves leases that run out: another poller then takes the work.
    @Test func aPollerKilledMidCycleLeavesNothingLockedForever() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            try await Self.seedChains(20, store: harness.store, app: app)
            harness.clock.set(H.day(29))
            // The dead poller claimed everything and never came back.
            let queue = PollQueue(pool: harness.pool)
            let claimed = try await queue.claimDueChains(
                limit: 100, window: .seconds(86_400), lease: .seconds(60), worker: "dead", now: harness.clock.now)
            #expect(claimed.count == 20)

            let calls = Mutex(0)
            let survivor = try Self.poller(harness, worker: "survivor") { _ in calls.withLock { $0 += 1 } }
            #expect(try await survivor.runCycle().checked == 0)

            harness.clock.set(H.day(29).adding(milliseconds: 61_000))  // the dead poller's leases ran out
            #expect(try await survivor.runCycle().checked == 20)
            #expect(calls.withLock { $0 } == 20)
        }
    }

    /// Leases given back on shutdown are claimable at once.
    @Test func releasedLeasesAreClaimableImmediately() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            try await Self.seedChains(5, store: harness.store, app: app)
            harness.clock.set(H.day(29))
            let queue = PollQueue(pool: harness.pool)
            let first = try await queue.claimDueChains(
                limit: 100, window: .seconds(86_400), lease: .seconds(300), worker: "stopping", now: harness.clock.now)
            #expect(first.count == 5)
            try await queue.releaseAll(worker: "stopping")
            let second = try await queue.claimDueChains(
                limit: 100, window: .seconds(86_400), lease: .seconds(300), worker: "other", now: harness.clock.now)
            #expect(Set(second.map(\.key)) == Set(first.map(\.key)))
        }
    }
}
