import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

/// Statements awaited on a readiness thread while other connections of the process close and open (a pool shut down
/// and opened again, backends terminated and replaced): a descriptor number freed by one connection and taken by the
/// next is armed afresh, and no caller waits on a socket that is gone or misses the reply to its own.
@Suite struct ReadinessWithSocketsReusedTests {
    /// A bound against a hang (the caller is then reported, not awaited forever), not a measurement.
    private static let bound: Duration = .seconds(120)
    private static let callers = 6
    private static let statementsPerCaller = 150
    private static let churnRounds = 20

    @Test func everyCallerGetsItsOwnReplyWhileOtherConnectionsCloseAndOpen() async throws {
        try await TestDatabase.withSchema(maxConnections: 2) { _, configuration, observer in
            var steadyConfiguration = configuration
            steadyConfiguration.maxConnections = 3
            steadyConfiguration.parameters["application_name"] = "readiness-steady"
            let steady = PostgresPool(configuration: steadyConfiguration)
            var everyCallerFinished = false
            defer {
                // A caller still waiting keeps its connection leased: close without waiting for it (the test's
                // database is dropped WITH (FORCE)).
                if !everyCallerFinished { steady.close() }
            }
            var churnConfiguration = configuration
            churnConfiguration.maxConnections = 2
            churnConfiguration.parameters["application_name"] = "readiness-churn"
            // Each caller's statement answers with its own operands, so a reply read by the wrong caller shows.
            let statement = "SELECT $1::int8 * 1000 + $2::int8, pg_sleep(0.001)::text"
            func ask(_ pool: PostgresPool, _ caller: Int64, _ step: Int64) async throws -> Int64 {
                try await pool.query(
                    PostgresQuery(unsafeSQL: statement, parameters: [caller.postgresValue, step.postgresValue])
                ).single().decode(Int64.self, at: 0)
            }
            let lost = Counter()
            let callers = (0..<Self.callers).map { caller in
                Task {
                    var answered = 0
                    for step in 0..<Self.statementsPerCaller {
                        do {
                            let value = try await ask(steady, Int64(caller), Int64(step))
                            #expect(value == Int64(caller) * 1000 + Int64(step))
                            answered += 1
                        } catch let error as PostgresError where error.isConnectionError {
                            // Its backend was terminated while the statement was in flight: the slot is replaced.
                            lost.increment()
                        }
                    }
                    return answered
                }
            }
            // Pools that open, take the readiness path (the second statement on a connection) and close, so their
            // descriptors are freed and taken again; and the steady pool's backends terminated now and then.
            let churn = Task {
                for round in 0..<Self.churnRounds {
                    let pool = PostgresPool(configuration: churnConfiguration)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for lane in 0..<2 {
                            group.addTask {
                                for step in 0..<3 {
                                    let value = try await ask(pool, Int64(100 + lane), Int64(step))
                                    #expect(value == Int64(100 + lane) * 1000 + Int64(step))
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    await pool.shutdown()
                    if round.isMultiple(of: 4) {
                        _ = try await observer.query(
                            """
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE application_name = 'readiness-steady' AND pid <> pg_backend_pid()
                            ORDER BY pid LIMIT 1
                            """)
                    }
                }
            }
            let churned: Bool? = try await valueWithin(Self.bound) {
                try await churn.value
                return true
            }
            try #require(churned != nil, "the pools opening and closing did not finish within \(Self.bound)")
            var answered = 0
            for (index, caller) in callers.enumerated() {
                let count = try await valueWithin(Self.bound) { try await caller.value }
                try #require(count != nil, "caller \(index + 1) of \(Self.callers) did not finish within \(Self.bound)")
                answered += count ?? 0
            }
            // Every statement was answered, or failed because its own backend was terminated under it.
            #expect(answered + lost.value == Self.callers * Self.statementsPerCaller)
            #expect(answered > 0)
            // The steady pool still answers on the readiness path after all of it.
            #expect(try await ask(steady, 7, 7) == 7007)
            #expect(try await ask(steady, 7, 8) == 7008)
            everyCallerFinished = true
            await steady.shutdown()
        }
    }
}
