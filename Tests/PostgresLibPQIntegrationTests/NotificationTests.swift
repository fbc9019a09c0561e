import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@Suite struct NotificationTests {
    @Test func listenerReceivesNotifyPayload() async throws {
        let pool = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 2))
        let channel = TestDatabase.uniqueName("Ledger Events")  // mixed case and a space: needs quoting
        let stream = try await pool.listen(channel: channel)
        try await pool.notify(channel: channel, payload: "掉单 renewal 🧾")
        let received = try #require(
            await firstNotification(from: stream, within: .seconds(60)), "no notification within 60 s")
        #expect(received.channel == channel)
        #expect(received.payload == "掉单 renewal 🧾")
        await pool.shutdown()
    }

    @Test func listenerReconnectsAfterItsBackendIsTerminated() async throws {
        var configuration = try TestDatabase.configuration(maxConnections: 2)
        let applicationName = TestDatabase.uniqueName("listener")
        configuration.parameters["application_name"] = applicationName
        let pool = PostgresPool(configuration: configuration)
        let channel = TestDatabase.uniqueName("reconnect")
        let stream = try await pool.listen(channel: channel)

        let terminated = try await pool.query(
            """
            SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity
            WHERE application_name = \(applicationName) AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'
            """)
        #expect(try terminated.single().decode(Int.self, at: 0) == 1)

        // Notifications sent while the listener is away are lost, so keep sending until one arrives.
        let sender = Task {
            for attempt in 0..<1_200 {
                try await pool.notify(channel: channel, payload: "after reconnect \(attempt)")
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { sender.cancel() }
        let received = try #require(
            await firstNotification(from: stream, within: .seconds(60)), "no notification within 60 s")
        #expect(received.payload.hasPrefix("after reconnect"))
        await pool.shutdown()
    }

    @Test func shutdownEndsListenStreams() async throws {
        let pool = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 1))
        let stream = try await pool.listen(channel: TestDatabase.uniqueName("shutdown"))
        let consumer = Task {
            var count = 0
            for try await _ in stream { count += 1 }
            return count
        }
        await pool.shutdown()
        #expect(try await consumer.value == 0)
        await #expect(throws: PostgresError.self) { _ = try await pool.listen(channel: "after_shutdown") }
    }

    @Test func invalidChannelNamesAreRefused() async throws {
        let pool = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 1))
        await #expect(throws: PostgresError.self) { _ = try await pool.listen(channel: "") }
        await #expect(throws: PostgresError.self) {
            _ = try await pool.listen(channel: String(repeating: "x", count: 64))
        }
        await pool.shutdown()
    }

    private func firstNotification(
        from stream: AsyncThrowingStream<PostgresNotification, any Error>,
        within timeout: Duration
    ) async throws -> PostgresNotification? {
        try await withThrowingTaskGroup(of: PostgresNotification?.self) { group in
            group.addTask {
                for try await notification in stream {
                    return notification
                }
                return nil
            }
            // The deadline only ends a hang; it records nothing itself. On a starved executor the
            // notification and the deadline can both be ready at once, and whichever `next()` returns
            // first decides: the caller judges a nil.
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
