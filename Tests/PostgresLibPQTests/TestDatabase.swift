import Foundation
import PostgresLibPQ
import Synchronization
import Testing

/// Access to the throwaway database started by `scripts/with-postgres`, one schema per test.
enum TestDatabase {
    static let environmentVariable = "SUBLEDGER_TEST_DATABASE_URL"

    /// The test database configuration; records a failure (never a skip) when the variable is missing.
    static func configuration(
        maxConnections: Int = 4,
        acquireTimeout: Duration = .seconds(30),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> PostgresConfiguration {
        let url = try #require(
            ProcessInfo.processInfo.environment[environmentVariable],
            "\(environmentVariable) is not set: run via scripts/with-postgres (scripts/with-postgres swift test)",
            sourceLocation: sourceLocation)
        var configuration = try PostgresConfiguration(connectionString: url)
        configuration.maxConnections = maxConnections
        configuration.acquireTimeout = acquireTimeout
        return configuration
    }

    /// Runs `body` with a pool whose connections use a fresh schema as `search_path`; drops it afterwards.
    static func withIsolatedPool<T: Sendable>(
        maxConnections: Int = 4,
        acquireTimeout: Duration = .seconds(30),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (PostgresPool, _ schema: String) async throws -> T
    ) async throws -> T {
        var configuration = try configuration(
            maxConnections: maxConnections, acquireTimeout: acquireTimeout, sourceLocation: sourceLocation)
        let schema = uniqueName("test")
        let admin = PostgresPool(configuration: configuration)
        try await admin.execute(script: "CREATE SCHEMA \(schema)")
        configuration.parameters["options"] = "-c search_path=\(schema)"
        let pool = PostgresPool(configuration: configuration)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(pool, schema))
        } catch {
            result = .failure(error)
        }
        await pool.shutdown()
        try await admin.execute(script: "DROP SCHEMA \(schema) CASCADE")
        await admin.shutdown()
        return try result.get()
    }

    /// A lowercase identifier unique to this run: `prefix_<32 hex digits>`.
    static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }
}

/// A thread-safe counter for attempts and events seen from connection threads.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        storage.add(1, ordering: .sequentiallyConsistent).newValue
    }

    var value: Int { storage.load(ordering: .sequentiallyConsistent) }
}

/// Blocks threads until `parties` have arrived (or the timeout passes); used to force real conflicts.
final class ThreadBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) {
        self.parties = parties
    }

    /// Returns true when all parties arrived in time.
    func arriveAndWait(timeout: TimeInterval = 10) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived >= parties {
            condition.broadcast()
            return true
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while arrived < parties {
            if !condition.wait(until: deadline) {
                return arrived >= parties
            }
        }
        return true
    }
}

struct BarrierTimeout: Error {}
