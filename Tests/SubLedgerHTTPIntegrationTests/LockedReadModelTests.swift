import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Synchronization
import Testing

/// A database that blocks every entitlement read (another session holds the read model's table locked, as a
/// careless migration or an operator's `LOCK TABLE` does): the reads holding the pool's connections wait for the
/// lock, the others wait for the pool's deadline and answer 503 with `Retry-After`, `/health/live` keeps answering,
/// and every read answers 200 once the lock is gone. The reads go through the event loop's path, whose statements
/// wait for their replies on the readiness threads.
@Suite struct LockedReadModelTests {
    typealias H = ServiceHarness

    /// The answers in the order they arrived.
    final class Answers: Sendable {
        let value = Mutex<[RawHTTPOutcome]>([])
    }

    static func read(_ account: String, key: String) -> String {
        "GET /v1/accounts/\(account)/entitlements HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(key)\r\n"
            + "Connection: close\r\n\r\n"
    }

    @Test func readsWaitThenAnswer503WhileTheReadModelIsLockedAndAnswerAgainAfter() async throws {
        // Three connections; a unit of work waits at most half a second for one.
        try await H.run(maxConnections: 3, acquireTimeout: .milliseconds(500)) { harness, client in
            let port = try #require(client.port)
            let warm = await RawHTTPConnection.exchange(
                port: port, request: Self.read("alice", key: harness.keyOne), timeout: 60)
            #expect(warm.response?.status == 200, "\(warm.summary)")

            // Another session, outside the service's pool, locks the read model's table and keeps it locked.
            let admin = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 2))
            let locked = Mutex(false)
            let release = Mutex(false)
            let holder = Task {
                try await admin.transaction { connection in
                    try connection.query("LOCK TABLE account_entitlement_periods IN ACCESS EXCLUSIVE MODE")
                    locked.withLock { $0 = true }
                    while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
                }
            }
            while !locked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }

            // Five reads at once: three take the pool's connections and wait for the lock, two find none.
            let answers = Answers()
            let requests = (0..<5).map { Self.read("reader\($0)", key: harness.keyOne) }
            let reads = requests.map { request in
                Task {
                    let outcome = await RawHTTPConnection.exchange(port: port, request: request, timeout: 300)
                    answers.value.withLock { $0.append(outcome) }
                    return outcome
                }
            }
            func waiting() async throws -> Int64 {
                try await admin.query(
                    """
                    SELECT count(*)::bigint FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                    WHERE c.relname = 'account_entitlement_periods' AND NOT l.granted
                      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """
                ).single().decode(Int64.self, at: 0)
            }
            // Bounded waits for what the server does on its own; no time is asserted.
            let deadline = ContinuousClock.now + .seconds(240)
            while try await waiting() < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            while answers.value.withLock({ $0.count }) < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await waiting() == 3, "the reads holding the connections wait for the lock")
            let refused = answers.value.withLock { $0 }.compactMap(\.response)
            #expect(refused.count == 2)
            for answer in refused {
                #expect(answer.status == 503)
                #expect(answer.header("Retry-After") == "5")
                #expect(APIConformanceTests.errorCode(answer) == "database_unavailable")
            }
            let live = await RawHTTPConnection.exchange(
                port: port, request: "GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
                timeout: 60)
            #expect(live.response?.status == 200, "\(live.summary)")

            // The lock goes: the waiting reads are answered, and so is every read after them.
            release.withLock { $0 = true }
            try await holder.value
            var statuses: [Int] = []
            for read in reads { statuses.append(await read.value.response?.status ?? 0) }
            #expect(statuses.sorted() == [200, 200, 200, 503, 503])
            for index in 0..<6 {
                let again = await RawHTTPConnection.exchange(
                    port: port, request: Self.read("reader\(index)", key: harness.keyOne), timeout: 60)
                #expect(again.response?.status == 200, "\(again.summary)")
            }
            await admin.shutdown()
        }
    }
}
