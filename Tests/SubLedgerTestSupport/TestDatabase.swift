import Foundation
import Logging
import PostgresLibPQ
import Testing

/// A private PostgreSQL database per test on the cluster `scripts/with-postgres` started: the one database helper
/// of the test suites (PostgresLibPQ's own tests included).
///
/// Each call creates a database with a random name, empty or copied from a template (`CREATE DATABASE … TEMPLATE`:
/// a migrated ledger is copied in milliseconds instead of migrated step by step for every test), hands out a pool on
/// it and drops it afterwards. Tests so run in parallel without seeing each other's rows or advisory locks (an
/// advisory lock belongs to its database). Inside `withSchema`, `connectionString()` and
/// `standbyConnectionString()` name the test's own database, so URLs handed to a spawned `subledger` do too.
public enum TestDatabase {
    public static let variable = "SUBLEDGER_TEST_DATABASE_URL"
    public static let standbyVariable = "SUBLEDGER_TEST_STANDBY_URL"
    /// Set by `scripts/citus-test`: the Citus workers (`HOST:PORT,…`) of the cluster whose coordinator
    /// `SUBLEDGER_TEST_DATABASE_URL` names. Databases are then made on every node and distributed.
    public static let citusWorkersVariable = "SUBLEDGER_TEST_CITUS_WORKERS"

    /// The Citus workers as `(host, port)`, when the tests run on a Citus cluster.
    public static let citusWorkers: [(host: String, port: Int)]? = {
        guard let text = ProcessInfo.processInfo.environment[citusWorkersVariable], !text.isEmpty else { return nil }
        return text.split(separator: ",").compactMap { item in
            guard let colon = item.lastIndex(of: ":"), let port = Int(item[item.index(after: colon)...]) else {
                return nil
            }
            return (String(item[..<colon]), port)
        }
    }()

    /// Whether databases are made on the Citus cluster (distributed) unless a test asks otherwise.
    public static var isCitus: Bool { citusWorkers != nil }

    /// How long a test's pool lets a unit of work wait for a connection. A test's own waits are not what it
    /// measures, so this is generous: many tests share two cores (tests of the timeout itself pass a short one).
    public static let defaultAcquireTimeout: Duration = .seconds(300)

    /// The database of the `withSchema` call this task runs in, if any.
    @TaskLocal public static var currentDatabase: String?

    /// The cluster's URL as `scripts/with-postgres` gave it (its maintenance database).
    public static func clusterConnectionString() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            Issue.record("\(variable) is not set: run the tests through scripts/test or scripts/with-postgres")
            throw MissingTestDatabase()
        }
        return url
    }

    /// The test database's connection string: inside `withSchema`, the test's own database; a test fails (not
    /// skips) when the cluster is missing.
    public static func connectionString() throws -> String {
        let url = try clusterConnectionString()
        guard let database = currentDatabase else { return url }
        return replacingDatabase(of: url, with: database)
    }

    /// The hot standby's connection string (`scripts/with-postgres` starts one), naming the test's own database
    /// inside `withSchema`; `nil` when the cluster has no standby.
    public static func standbyConnectionString() -> String? {
        guard let url = ProcessInfo.processInfo.environment[standbyVariable], !url.isEmpty else { return nil }
        guard let database = currentDatabase else { return url }
        return replacingDatabase(of: url, with: database)
    }

    /// A pool configuration for the test database itself.
    public static func configuration(
        maxConnections: Int = 4,
        acquireTimeout: Duration = defaultAcquireTimeout
    ) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(connectionString: connectionString())
        configuration.maxConnections = maxConnections
        configuration.acquireTimeout = acquireTimeout
        return configuration
    }

    /// A fresh database (empty, or a copy of `template`), its schema's name (`public`), its pool configuration, and
    /// its pool, dropped after `body`.
    ///
    /// `exclusive`: the test has the cluster to itself: it starts once every other database test has finished, and
    /// the others wait for it. For the few tests whose subject is the cluster's own pace (a hot standby replaying
    /// within a lag bound), which the WAL of hundreds of parallel tests would otherwise decide.
    public static func withSchema<T: Sendable>(
        maxConnections: Int = 4,
        acquireTimeout: Duration = defaultAcquireTimeout,
        template: TestDatabaseTemplate? = nil,
        exclusive: Bool = false,
        distributed: Bool = TestDatabase.isCitus,
        _ body: (_ schema: String, _ configuration: PostgresConfiguration, _ pool: PostgresPool) async throws -> T
    ) async throws -> T {
        // A test inside another's database (two databases at once) already holds its access.
        if holdsClusterAccess {
            precondition(!exclusive, "an exclusive test database inside another test database")
            return try await withFreshDatabase(maxConnections, acquireTimeout, template, distributed, body)
        }
        await ClusterAccess.shared.acquire(exclusive: exclusive)
        do {
            let result = try await $holdsClusterAccess.withValue(true) {
                try await withFreshDatabase(maxConnections, acquireTimeout, template, distributed, body)
            }
            await ClusterAccess.shared.release(exclusive: exclusive)
            return result
        } catch {
            await ClusterAccess.shared.release(exclusive: exclusive)
            throw error
        }
    }

    /// Whether this task runs inside `withSchema`.
    @TaskLocal static var holdsClusterAccess = false

    private static func withFreshDatabase<T: Sendable>(
        _ maxConnections: Int, _ acquireTimeout: Duration, _ template: TestDatabaseTemplate?, _ distributed: Bool,
        _ body: (_ schema: String, _ configuration: PostgresConfiguration, _ pool: PostgresPool) async throws -> T
    ) async throws -> T {
        if distributed {
            return try await withDistributedDatabase(maxConnections, acquireTimeout, template, body)
        }
        var source = "template0"
        if let template { source = try await TemplateDatabases.shared.name(of: template) }
        let database = uniqueName("test")
        let admin = PostgresPool(configuration: try PostgresConfiguration(connectionString: clusterConnectionString()))
        do {
            // FILE_COPY: the WAL records the copy, not every block of it (WAL_LOG would write ~5 MB of WAL a test
            // for the hot standby to replay).
            try await admin.execute(script: "CREATE DATABASE \(database) TEMPLATE \(source) STRATEGY FILE_COPY")
        } catch {
            await admin.shutdown()
            throw error
        }
        return try await $currentDatabase.withValue(database) {
            try await withPool(database, [admin], maxConnections, acquireTimeout, body)
        }
    }

    /// A database on every node of the Citus cluster, the coordinator's with the workers added: Citus needs the same
    /// database on each node and keeps its metadata per database. A template is prepared in it (a copy of a
    /// distributed database by `CREATE DATABASE … TEMPLATE` would copy one node only) and then distributed.
    private static func withDistributedDatabase<T: Sendable>(
        _ maxConnections: Int, _ acquireTimeout: Duration, _ template: TestDatabaseTemplate?,
        _ body: (_ schema: String, _ configuration: PostgresConfiguration, _ pool: PostgresPool) async throws -> T
    ) async throws -> T {
        guard let workers = citusWorkers, !workers.isEmpty else {
            Issue.record("\(citusWorkersVariable) names no worker: run the test through scripts/citus-test")
            throw MissingTestDatabase()
        }
        let cluster = try clusterConnectionString()
        guard let coordinator = URLComponents(string: cluster), let host = coordinator.host else {
            Issue.record("\(variable) is not a postgresql:// URL with a host")
            throw MissingTestDatabase()
        }
        let coordinatorPort = coordinator.port ?? 5432
        let nodes =
            [cluster]
            + workers.map { worker in
                var url = coordinator
                url.host = worker.host
                url.port = worker.port
                return url.string ?? cluster
            }
        let admins = try nodes.map { PostgresPool(configuration: try PostgresConfiguration(connectionString: $0)) }
        let database = uniqueName("test")
        // One database made at a time: adding a node propagates the roles to it, and two such propagations at
        // once fail on the same catalog row ("tuple concurrently updated").
        await DistributedDatabaseSetup.shared.acquire()
        do {
            // The workers first: adding a worker connects to its database.
            for (index, admin) in admins.enumerated().reversed() {
                try await admin.execute(script: "CREATE DATABASE \(database) TEMPLATE template0")
                let node = PostgresPool(
                    configuration: try PostgresConfiguration(
                        connectionString: replacingDatabase(of: nodes[index], with: database)))
                do {
                    try await node.execute(script: "SET client_min_messages = warning; CREATE EXTENSION citus")
                    if index == 0 {
                        // A test that fills columns by a trigger of its own (the report fixtures' prices) creates it
                        // on a distributed table, which Citus allows only so.
                        try await node.execute(
                            script: "ALTER DATABASE \(database) SET citus.enable_unsafe_triggers = on")
                        _ = try await node.query("SELECT citus_set_coordinator_host(\(host), \(coordinatorPort)::int)")
                        for worker in workers {
                            _ = try await node.query("SELECT citus_add_node(\(worker.host), \(worker.port)::int)")
                        }
                    }
                    await node.shutdown()
                } catch {
                    await node.shutdown()
                    throw error
                }
            }
            await DistributedDatabaseSetup.shared.release()
        } catch {
            await DistributedDatabaseSetup.shared.release()
            await drop(database, admins)
            throw error
        }
        return try await $currentDatabase.withValue(database) {
            do {
                if let template {
                    let configuration = try Self.configuration(maxConnections: 1)
                    let pool = PostgresPool(configuration: configuration, logger: logger)
                    do {
                        try await template.prepare(pool)
                        try await template.distribute?(pool)
                        await pool.shutdown()
                    } catch {
                        await pool.shutdown()
                        throw error
                    }
                }
            } catch {
                await drop(database, admins)
                throw error
            }
            return try await withPool(database, admins, maxConnections, acquireTimeout, body)
        }
    }

    /// A pool on the test's database for `body`, then the database dropped on every node `admins` reach.
    private static func withPool<T: Sendable>(
        _ database: String, _ admins: [PostgresPool], _ maxConnections: Int, _ acquireTimeout: Duration,
        _ body: (_ schema: String, _ configuration: PostgresConfiguration, _ pool: PostgresPool) async throws -> T
    ) async throws -> T {
        let pool: PostgresPool
        let configuration: PostgresConfiguration
        do {
            configuration = try Self.configuration(maxConnections: maxConnections, acquireTimeout: acquireTimeout)
            pool = PostgresPool(configuration: configuration, logger: logger)
        } catch {
            await drop(database, admins)
            throw error
        }
        do {
            let result = try await body("public", configuration, pool)
            await pool.shutdown()
            try await dropOrThrow(database, admins)
            return result
        } catch {
            await pool.shutdown()
            await drop(database, admins)
            throw error
        }
    }

    private static func dropOrThrow(_ database: String, _ admins: [PostgresPool]) async throws {
        for admin in admins {
            try await admin.execute(script: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
            await admin.shutdown()
        }
    }

    private static func drop(_ database: String, _ admins: [PostgresPool]) async {
        for admin in admins {
            _ = try? await admin.execute(script: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
            await admin.shutdown()
        }
    }

    /// A lowercase identifier unique to this run: `prefix_<32 hex digits>`.
    public static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// `url` with its database (the path of a `postgresql://` URL) replaced.
    public static func replacingDatabase(of url: String, with database: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + database
        return components.string ?? url
    }

    public static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }()
}

/// A database that tests copy instead of building again: made once per cluster under `name` by `prepare` (e.g.
/// every migration applied), then copied by `CREATE DATABASE … TEMPLATE`.
public struct TestDatabaseTemplate: Sendable {
    /// The template database's name: it must change whenever what `prepare` makes changes (a digest of the
    /// migrations, say), so a cluster that outlives a build never hands out a stale copy.
    public var name: String
    public var prepare: @Sendable (_ pool: PostgresPool) async throws -> Void
    /// On a Citus cluster, run after `prepare` on the coordinator (the tables placed on the workers).
    public var distribute: (@Sendable (_ pool: PostgresPool) async throws -> Void)?

    public init(
        name: String,
        prepare: @escaping @Sendable (_ pool: PostgresPool) async throws -> Void,
        distribute: (@Sendable (_ pool: PostgresPool) async throws -> Void)? = nil
    ) {
        self.name = name
        self.prepare = prepare
        self.distribute = distribute
    }
}

/// The templates this process has made or found, each made at most once.
actor TemplateDatabases {
    static let shared = TemplateDatabases()

    private var made: [String: Task<String, any Error>] = [:]

    func name(of template: TestDatabaseTemplate) async throws -> String {
        if let task = made[template.name] { return try await task.value }
        let task = Task { try await Self.make(template) }
        made[template.name] = task
        return try await task.value
    }

    /// Prepares the template under a scratch name and renames it when it is complete, so another process never
    /// copies a half-made template; when another process finished first, its template is kept and ours dropped.
    private static func make(_ template: TestDatabaseTemplate) async throws -> String {
        let cluster = try TestDatabase.clusterConnectionString()
        let admin = PostgresPool(configuration: try PostgresConfiguration(connectionString: cluster))
        do {
            try await makeUnlessPresent(template, cluster: cluster, admin: admin)
            await admin.shutdown()
            return template.name
        } catch {
            await admin.shutdown()
            throw error
        }
    }

    private static func makeUnlessPresent(
        _ template: TestDatabaseTemplate, cluster: String, admin: PostgresPool
    ) async throws {
        if try await exists(template.name, admin) { return }
        let scratch = TestDatabase.uniqueName("template")
        try await admin.execute(script: "CREATE DATABASE \(scratch) TEMPLATE template0")
        do {
            var configuration = try PostgresConfiguration(
                connectionString: TestDatabase.replacingDatabase(of: cluster, with: scratch))
            configuration.maxConnections = 1
            let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
            do {
                try await template.prepare(pool)
                await pool.shutdown()
            } catch {
                await pool.shutdown()
                throw error
            }
            try await admin.execute(script: "ALTER DATABASE \(scratch) RENAME TO \(template.name)")
        } catch {
            _ = try? await admin.execute(script: "DROP DATABASE IF EXISTS \(scratch) WITH (FORCE)")
            if try await exists(template.name, admin) { return }  // another process made it first
            throw error
        }
    }

    private static func exists(_ name: String, _ pool: PostgresPool) async throws -> Bool {
        try await !pool.query("SELECT 1 FROM pg_database WHERE datname = \(name)").isEmpty
    }
}

/// Makes distributed databases one at a time.
actor DistributedDatabaseSetup {
    static let shared = DistributedDatabaseSetup()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

/// Who uses the test cluster now: any number of tests at once, or one exclusive test alone. First come, first
/// served, so a waiting exclusive test is not overtaken by the stream of shared ones that keep arriving.
actor ClusterAccess {
    static let shared = ClusterAccess()

    private var sharedHolders = 0
    private var exclusiveHeld = false
    private var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    func acquire(exclusive: Bool) async {
        if waiting.isEmpty, canEnter(exclusive) {
            enter(exclusive)
            return
        }
        await withCheckedContinuation { waiting.append((exclusive, $0)) }
    }

    func release(exclusive: Bool) {
        if exclusive { exclusiveHeld = false } else { sharedHolders -= 1 }
        while let next = waiting.first, canEnter(next.exclusive) {
            waiting.removeFirst()
            enter(next.exclusive)
            next.continuation.resume()
        }
    }

    private func canEnter(_ exclusive: Bool) -> Bool {
        exclusive ? !exclusiveHeld && sharedHolders == 0 : !exclusiveHeld
    }

    private func enter(_ exclusive: Bool) {
        if exclusive { exclusiveHeld = true } else { sharedHolders += 1 }
    }
}
