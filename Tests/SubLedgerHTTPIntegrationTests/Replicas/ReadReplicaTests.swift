import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Reads from a real hot standby: the second cluster `scripts/with-postgres` starts (pg_basebackup -R), paused
/// and resumed with `pg_wal_replay_pause()`. Serialized: pausing replay pauses it for the whole standby.
@Suite(.serialized) struct ReadReplicaTests {
    typealias H = ServiceHarness
    static let variable = "SUBLEDGER_TEST_STANDBY_URL"
    static let token = HTTPField.Name("SubLedger-Consistency-Token")!

    static func standbyURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            Issue.record("\(variable) is not set: run the tests through scripts/test or scripts/with-postgres")
            throw MissingTestDatabase()
        }
        return url
    }

    static func configuration(maximumLag: Duration, tokenWait: Duration = .milliseconds(250)) throws
        -> ReadReplicaConfiguration
    {
        var configuration = ReadReplicaConfiguration(url: try standbyURL())
        configuration.maximumLag = maximumLag
        configuration.tokenWait = tokenWait
        configuration.monitorInterval = .milliseconds(50)
        configuration.poolSize = 4
        return configuration
    }

    /// Runs `body` with a pool on the standby itself (no schema), resuming replay afterwards whatever happens, and
    /// waiting until the standby has replayed what the primary wrote meanwhile: other suites write all along, and
    /// the next test must not start with the backlog of this one's pause.
    static func withStandby(_ body: (PostgresPool) async throws -> Void) async throws {
        var configuration = try PostgresConfiguration(connectionString: try standbyURL())
        configuration.maxConnections = 1
        let standby = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
        do {
            try await body(standby)
            try await resumeAndCatchUp(standby)
            await standby.shutdown()
        } catch {
            try? await resumeAndCatchUp(standby)
            await standby.shutdown()
            throw error
        }
    }

    /// Resumes replay and waits until the standby has replayed the primary's position of now; `client`, when
    /// given, is kept busy meanwhile (the server closes a connection idle for 30 s).
    static func resumeAndCatchUp(_ standby: PostgresPool, client: (any TestClientProtocol)? = nil) async throws {
        _ = try await standby.query("SELECT pg_wal_replay_resume()")
        let primary = PostgresPool(
            configuration: try TestDatabase.configuration(maxConnections: 1), logger: TestDatabase.logger)
        defer { primary.close() }
        let text = try await primary.query("SELECT pg_current_wal_insert_lsn()::text").single().decode(
            String.self, at: 0)
        let target = try #require(WALPosition(text: text))
        try await whileReplaying("the standby did not replay up to \(target) after its resume", client: client) {
            let replayed = try await standby.query("SELECT pg_last_wal_replay_lsn()::text").single()
                .decode(String?.self, at: 0).flatMap(WALPosition.init(text:))
            // `covers`: an idle primary's insert position may sit just past a page header the standby reports as
            // the page's start.
            return replayed?.covers(target) ?? false
        }
    }

    /// Waits until the service measures its standby within `bound` (it has replayed the database the test made),
    /// keeping `client`'s connection busy meanwhile (the server closes one idle for 30 s).
    static func waitUntilCurrent(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, within bound: Duration
    ) async throws {
        let replicas = try #require(harness.readReplicas)
        try await whileReplaying("the standby never became current", client: client) {
            guard let lag = replicas.lags().first?.lag else { return false }
            return lag <= bound
        }
    }

    /// Waits until `isDone` holds, for as long as the standby's replay keeps moving: a test that needs it current
    /// waits for it to replay what every earlier test wrote, which a machine loaded by more than this suite can
    /// take minutes to do. Records an issue naming `failure` and what replication looks like once replay has stood
    /// still for `stall` without `isDone` holding, or after `limit` in all.
    static func whileReplaying(
        _ failure: String, client: (any TestClientProtocol)?, stall: Duration = .seconds(120),
        limit: Duration = .seconds(900), until isDone: () async throws -> Bool
    ) async throws {
        var configuration = try PostgresConfiguration(connectionString: try standbyURL())
        configuration.maxConnections = 1
        configuration.acquireTimeout = .seconds(10)
        let standby = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
        defer { standby.close() }
        let start = ContinuousClock.now
        var (probed, pinged, moved) = (start, start, start)
        var replayed: String? = nil
        while true {
            if try await isDone() { return }
            let now = ContinuousClock.now
            if now - probed >= .seconds(1) {
                // Unreachable (nil) is no progress.
                let position = try? await standby.query("SELECT pg_last_wal_replay_lsn()::text").single()
                    .decode(String?.self, at: 0)
                if let position, position != replayed { (replayed, moved) = (position, now) }
                probed = now
            }
            if now - moved > stall || now - start > limit {
                let state = await replicationState()
                Issue.record("\(failure) (replay at \(replayed ?? "unknown"), last moved \(now - moved) ago): \(state)")
                return
            }
            if let client, now - pinged > .seconds(5) {
                _ = try await client.executeRequest(uri: "/health/live", method: .get, headers: [:], body: nil)
                pinged = now
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What the standby and the primary say of replication now, for a failure's message: whether the standby is in
    /// recovery, paused, how far it has received and replayed, its WAL receiver's status, and the primary's senders
    /// and slots (or why one of them could not be asked).
    static func replicationState() async -> String {
        func ask(_ configuration: () throws -> PostgresConfiguration, _ sql: PostgresQuery) async -> String {
            do {
                var configuration = try configuration()
                configuration.maxConnections = 1
                configuration.acquireTimeout = .seconds(10)
                let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
                defer { pool.close() }
                let row = try await pool.query(sql).single()
                return try (0..<row.count).map { "\(try row.decode(String?.self, at: $0) ?? "NULL")" }
                    .joined(separator: " | ")
            } catch {
                return "not asked: \(error)"
            }
        }
        let standby = await ask(
            { try PostgresConfiguration(connectionString: try standbyURL()) },
            """
            SELECT pg_is_in_recovery()::text, pg_is_wal_replay_paused()::text, pg_last_wal_receive_lsn()::text,
                pg_last_wal_replay_lsn()::text, (SELECT status FROM pg_stat_wal_receiver),
                (SELECT string_agg(backend_type || ' ' || wait_event_type || '/' || wait_event, ', ')
                    FROM pg_stat_activity WHERE wait_event IS NOT NULL AND backend_type <> 'client backend')
            """)
        let primary = await ask(
            { try TestDatabase.configuration(maxConnections: 1) },
            """
            SELECT pg_current_wal_lsn()::text,
                (SELECT string_agg(state || ' replayed ' || coalesce(replay_lsn::text, '-'), ', ')
                    FROM pg_stat_replication),
                (SELECT string_agg(slot_name || ' ' || coalesce(wal_status, '-'), ', ') FROM pg_replication_slots)
            """)
        return "standby (in recovery | paused | received | replayed | receiver | processes waiting): \(standby); "
            + "primary (WAL | senders | slots): \(primary)"
    }

    /// GET `uri` with `key` and, when given, a consistency token.
    static func get(
        _ client: some TestClientProtocol, _ uri: String, key: String, token: String? = nil
    ) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        var headers: HTTPFields = [.authorization: "Bearer \(key)"]
        if let token { headers[Self.token] = token }
        let response = try await client.executeRequest(uri: uri, method: .get, headers: headers, body: nil)
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        return (response.status, json)
    }

    /// `subledger_reads_total` for `reason` in the process's registry now.
    static func reads(_ client: some TestClientProtocol, _ reason: String) async throws -> Double {
        let text = try await MetricsTests.scrape(client).text
        return MetricsTests.sample(text, "subledger_reads_total{", ["reason=\"\(reason)\""]) ?? 0
    }

    /// A purchase of pro.monthly by `account`, through the service; returns the response's consistency token.
    static func purchase(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, id: String, account: String
    ) async throws -> String {
        let signed = try harness.signedTransaction(id: id, purchasedOnDay: 0, expiresOnDay: 30)
        let bought = try await client.call(
            .post, "/v1/transactions", key: harness.keyOne, json: ["account_id": account, "signed_transaction": signed])
        #expect(bought.status == .ok || bought.status == .created, "\(bought.json)")
        let token = try #require(bought.headers[Self.token], "a write's response carries a consistency token")
        #expect(WALPosition(text: token) != nil)
        return token
    }

    /// Reads `uri` until the standby answers one (a loaded machine may delay a measure past a tight bound);
    /// returns whether it did within 20 tries, and the last answer.
    static func readFromStandby(
        _ client: some TestClientProtocol, _ uri: String, key: String
    ) async throws -> (served: Bool, json: [String: Any]) {
        var last: [String: Any] = [:]
        for _ in 0..<20 {
            let before = try await reads(client, "within_lag_bound")
            let read = try await get(client, uri, key: key)
            #expect(read.status == .ok)
            last = read.json
            if try await reads(client, "within_lag_bound") > before { return (true, last) }
            try await Task.sleep(for: .milliseconds(50))
        }
        return (false, last)
    }

    @Test func readsGoToTheStandbyAndATokenReadSeesTheWriteWhileReplayIsPaused() async throws {
        // A bound far above the test's length: the paused standby stays within it, so a read without a token goes
        // to it, and shows the state from before the pause, which only the standby can still show.
        try await H.run(readReplicas: try Self.configuration(maximumLag: .seconds(120))) { harness, client in
            try await Self.waitUntilCurrent(harness, client, within: .seconds(2))
            try await Self.withStandby { standby in
                _ = try await standby.query("SELECT pg_wal_replay_pause()")
                let token = try await Self.purchase(harness, client, id: "9100", account: "rhea")

                let replicaBefore = try await Self.reads(client, "within_lag_bound")
                let stale = try await Self.get(client, "/v1/accounts/rhea/entitlements", key: harness.keyOne)
                #expect(stale.status == .ok)
                #expect(stale.json.entitlementIDs == [], "the paused standby has not replayed the purchase")
                #expect(try await Self.reads(client, "within_lag_bound") == replicaBefore + 1)

                // Read-your-writes: the token is not replayed, so after the short wait the primary answers.
                let fallbackBefore = try await Self.reads(client, "token_not_replayed")
                let own = try await Self.get(
                    client, "/v1/accounts/rhea/entitlements", key: harness.keyOne, token: token)
                #expect(own.status == .ok)
                #expect(own.json.entitlementIDs == ["pro"])
                #expect(try await Self.reads(client, "token_not_replayed") == fallbackBefore + 1)

                // Resumed and caught up: the standby has replayed the token and answers again.
                try await Self.resumeAndCatchUp(standby, client: client)
                let replayedBefore = try await Self.reads(client, "token_replayed")
                var served = false
                for _ in 0..<20 where !served {
                    let again = try await Self.get(
                        client, "/v1/accounts/rhea/entitlements", key: harness.keyOne, token: token)
                    #expect(again.json.entitlementIDs == ["pro"])
                    served = try await Self.reads(client, "token_replayed") > replayedBefore
                }
                #expect(served, "once resumed, the standby answers the token's read")
            }
        }
    }

    @Test func aPausedStandbyAnswersNoReadOnceItsLagPassesTheBound() async throws {
        // Two seconds: the whole suite's load on two cores can keep a healthy standby a few hundred ms behind.
        let bound = Duration.seconds(2)
        try await H.run(readReplicas: try Self.configuration(maximumLag: bound)) { harness, client in
            try await Self.waitUntilCurrent(harness, client, within: bound)
            let fresh = try await Self.readFromStandby(client, "/v1/accounts/iris/subscriptions", key: harness.keyOne)
            #expect(fresh.served, "a current standby answers")

            try await Self.withStandby { standby in
                _ = try await standby.query("SELECT pg_wal_replay_pause()")
                _ = try await Self.purchase(harness, client, id: "9200", account: "iris")
                // The measure sees the primary move on and the standby stand still: its lag passes the bound.
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline, (harness.readReplicas?.lags().first?.lag ?? .zero) <= bound {
                    try await Task.sleep(for: .milliseconds(50))
                }
                let lag = try #require(harness.readReplicas?.lags().first?.lag)
                #expect(lag > bound)

                let lagging = try await Self.reads(client, "replica_lagging")
                let read = try await Self.get(client, "/v1/accounts/iris/subscriptions", key: harness.keyOne)
                #expect(read.status == .ok)
                let subscriptions = read.json["subscriptions"] as? [[String: Any]] ?? []
                #expect(
                    subscriptions.map { $0["original_transaction_id"] as? String } == ["9200"], "the primary answers")
                let transactions = try await Self.get(client, "/v1/accounts/iris/transactions", key: harness.keyOne)
                #expect((transactions.json["transactions"] as? [[String: Any]])?.count == 1)
                #expect(try await Self.reads(client, "replica_lagging") == lagging + 2)

                // Resumed: it catches up, is measured current again, and answers again.
                try await Self.resumeAndCatchUp(standby, client: client)
                try await Self.waitUntilCurrent(harness, client, within: bound)
                let again = try await Self.readFromStandby(
                    client, "/v1/accounts/iris/subscriptions", key: harness.keyOne)
                #expect(again.served, "the resumed standby answers again")
                #expect(
                    (again.json["subscriptions"] as? [[String: Any]])?.count == 1, "and it has replayed the purchase")
            }
        }
    }

    @Test func anUnreachableStandbyAnswersNothingAndThePrimaryServesEveryRead() async throws {
        var configuration = ReadReplicaConfiguration(
            url: "postgresql:///postgres?host=/nonexistent-subledger-standby&port=5999&user=postgres&connect_timeout=1")
        configuration.monitorInterval = .milliseconds(50)
        try await H.run(readReplicas: configuration) { harness, client in
            _ = try await Self.purchase(harness, client, id: "9300", account: "nina")
            try await Task.sleep(for: .milliseconds(300))
            #expect(harness.readReplicas?.lags().first?.lag == nil, "never measured")
            let before = try await Self.reads(client, "replica_lagging")
            let read = try await Self.get(client, "/v1/accounts/nina/entitlements", key: harness.keyOne)
            #expect(read.status == .ok)
            #expect(read.json.entitlementIDs == ["pro"])
            #expect(try await Self.reads(client, "replica_lagging") == before + 1)
            let text = try await MetricsTests.scrape(client).text
            #expect(
                MetricsTests.sample(text, "subledger_replica_lag_seconds{", ["nonexistent-subledger-standby"]) == -1)
        }
    }

    @Test func reportsAndTheAdminPageAreReadFromTheStandby() async throws {
        try await H.run(readReplicas: try Self.configuration(maximumLag: .seconds(120))) { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            try await Self.waitUntilCurrent(harness, client, within: .seconds(2))
            let before = try await Self.reads(client, "within_lag_bound")
            let summary = try await Self.get(client, "/v1/admin/reports/summary", key: admin)
            #expect(summary.status == .ok)
            var headers: HTTPFields = [.authorization: "Bearer \(admin)"]
            headers[.accept] = "text/html"
            let page = try await client.executeRequest(uri: "/admin", method: .get, headers: headers, body: nil)
            #expect(page.status == .ok)
            #expect(try await Self.reads(client, "within_lag_bound") == before + 2)
        }
    }

    @Test func metricsShowTheReplicaLag() async throws {
        try await H.run(readReplicas: try Self.configuration(maximumLag: .seconds(1))) { harness, client in
            try await Self.waitUntilCurrent(harness, client, within: .seconds(2))
            try await Task.sleep(for: .milliseconds(200))
            let text = try await MetricsTests.scrape(client).text
            // Metrics are process-wide: an earlier test's unreachable standby keeps its own sample (-1), so read
            // this standby's by its label.
            let label = try #require(harness.readReplicas?.lags().first?.label)
            let lag = try #require(MetricsTests.sample(text, "subledger_replica_lag_seconds{", [label]))
            #expect(lag >= 0 && lag < 5)
            #expect(text.contains("subledger_reads_total{"))
        }
    }

    @Test func aConsistencyTokenThatIsNotOneIsRefusedWith400() async throws {
        try await H.run(readReplicas: try Self.configuration(maximumLag: .seconds(1), tokenWait: .milliseconds(50))) {
            harness, client in
            for garbage in [
                // (Spaces around a header's value are not part of it, in HTTP: WALPositionTests covers them.)
                "", "x", "0/", "/0", "0/0/0", "123456789/0", "0/123456789", "G/0", "-1/0", "0x1/0", "0 /0",
                "١/٢", String(repeating: "A", count: 10_000), "'; DROP TABLE accounts; --",
            ] {
                var headers: HTTPFields = [.authorization: "Bearer \(harness.keyOne)"]
                headers[Self.token] = garbage
                let response = try await client.executeRequest(
                    uri: "/v1/accounts/ada/entitlements", method: .get, headers: headers, body: nil)
                let json =
                    (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
                #expect(response.status == .badRequest, "\(garbage.prefix(40))")
                #expect(json.errorCode == "invalid_consistency_token")
                #expect(
                    garbage.count < 2 || json.errorMessage?.contains(garbage) != true, "the message never echoes it")
            }
            var twice: HTTPFields = [.authorization: "Bearer \(harness.keyOne)"]
            twice.append(HTTPField(name: Self.token, value: "0/1"))
            twice.append(HTTPField(name: Self.token, value: "0/2"))
            let response = try await client.executeRequest(
                uri: "/v1/accounts/ada/entitlements", method: .get, headers: twice, body: nil)
            #expect(response.status == .badRequest)

            // A well-formed token no server has reached yet: answered (by the primary, after the wait), not refused.
            let future = try await Self.get(
                client, "/v1/accounts/ada/entitlements", key: harness.keyOne, token: "FFFFFFFF/FFFFFFFF")
            #expect(future.status == .ok)
        }
    }

    @Test func everySuccessfulWriteCarriesATokenAtOrPastTheEarlierOnes() async throws {
        try await H.run { harness, client in
            let first = try await client.call(
                .post, "/v1/orders", key: harness.keyOne, json: ["account_id": "lena", "product_id": "pro.monthly"])
            #expect(first.status == .created)
            let second = try await client.call(
                .post, "/v1/orders", key: harness.keyOne, json: ["account_id": "lena", "product_id": "pro.monthly"])
            let one = try #require(first.headers[Self.token].flatMap { WALPosition(text: $0) })
            let two = try #require(second.headers[Self.token].flatMap { WALPosition(text: $0) })
            #expect(two > one, "the second order was written after the first")

            let refused = try await client.call(
                .post, "/v1/orders", key: harness.keyOne, json: ["account_id": "lena", "product_id": "nothing"])
            #expect(refused.status.code >= 400)
            #expect(refused.headers[Self.token] == nil, "a refused write wrote nothing to wait for")
            let read = try await client.call(.get, "/v1/accounts/lena/entitlements", key: harness.keyOne)
            #expect(read.headers[Self.token] == nil, "reads carry no token")
        }
    }
}
