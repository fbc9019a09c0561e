import Foundation
import Logging
import PostgresLibPQ
import Testing

/// A private PostgreSQL schema per test on the database `scripts/with-postgres` started: the one database
/// helper of the test suites (PostgresLibPQ's own tests included).
///
/// Each call creates a schema with a random name, hands out a pool whose connections use it as their
/// `search_path`, and drops it afterwards, so tests run in parallel without seeing each other's rows.
public enum TestDatabase {
    public static let variable = "SUBLEDGER_TEST_DATABASE_URL"

    /// How long a test's pool lets a unit of work wait for a connection: long enough for a loaded machine
    /// (tests of the timeout itself pass a short one).
    public static let defaultAcquireTimeout: Duration = .seconds(30)

    /// The test database's connection string; a test fails (not skips) when it is missing.
    public static func connectionString() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            Issue.record("\(variable) is not set: run the tests through scripts/test or scripts/with-postgres")
            throw MissingTestDatabase()
        }
        return url
    }

    /// A pool configuration for the test database itself (no private schema).
    public static func configuration(
        maxConnections: Int = 4,
        acquireTimeout: Duration = defaultAcquireTimeout
    ) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(connectionString: connectionString())
        configuration.maxConnections = maxConnections
        configuration.acquireTimeout = acquireTimeout
        return configuration
    }

    /// A fresh, empty schema's name, its pool configuration, and its pool, dropped after `body`.
    public static func withSchema<T: Sendable>(
        maxConnections: Int = 4,
        acquireTimeout: Duration = defaultAcquireTimeout,
        _ body: (_ schema: String, _ configuration: PostgresConfiguration, _ pool: PostgresPool) async throws -> T
    ) async throws -> T {
        let schema = uniqueName("test")
        let admin = PostgresPool(configuration: try PostgresConfiguration(connectionString: connectionString()))
        try await admin.execute(script: "CREATE SCHEMA \(schema)")
        var configuration = try Self.configuration(maxConnections: maxConnections, acquireTimeout: acquireTimeout)
        configuration.parameters["options"] = "-c search_path=\(schema)"
        let pool = PostgresPool(configuration: configuration, logger: logger)
        do {
            let result = try await body(schema, configuration, pool)
            await pool.shutdown()
            try await admin.execute(script: "DROP SCHEMA \(schema) CASCADE")
            await admin.shutdown()
            return result
        } catch {
            await pool.shutdown()
            _ = try? await admin.execute(script: "DROP SCHEMA \(schema) CASCADE")
            await admin.shutdown()
            throw error
        }
    }

    /// A lowercase identifier unique to this run: `prefix_<32 hex digits>`.
    public static func uniqueName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    public static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }()
}
