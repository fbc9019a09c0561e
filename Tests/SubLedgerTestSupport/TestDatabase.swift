import Foundation
import Logging
import PostgresLibPQ
import Testing

/// A private PostgreSQL schema per test on the database `scripts/with-postgres` started.
///
/// Each call creates a schema with a random name, hands out a pool whose connections use it as their
/// `search_path`, and drops it afterwards, so tests run in parallel without seeing each other's rows.
public enum TestDatabase {
    public static let variable = "SUBLEDGER_TEST_DATABASE_URL"

    /// The test database's connection string; a test fails (not skips) when it is missing.
    public static func connectionString() throws -> String {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else {
            Issue.record("\(variable) is not set: run the tests through scripts/test or scripts/with-postgres")
            throw MissingTestDatabase()
        }
        return url
    }

    /// A fresh, empty schema's name, its pool configuration, and its pool, dropped after `body`.
    public static func withSchema<T: Sendable>(
        maxConnections: Int = 4,
        _ body: (_ schema: String, _ configuration: PostgresConfiguration, _ pool: PostgresPool) async throws -> T
    ) async throws -> T {
        let schema = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin = PostgresPool(configuration: try PostgresConfiguration(connectionString: connectionString()))
        try await admin.execute(script: "CREATE SCHEMA \(schema)")
        var configuration = try PostgresConfiguration(connectionString: connectionString())
        configuration.parameters["options"] = "-c search_path=\(schema)"
        configuration.maxConnections = maxConnections
        let pool = PostgresPool(configuration: configuration, logger: logger)
        do {
            let result = try await body(String(schema), configuration, pool)
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

    public static let logger: Logger = {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        return logger
    }()
}

public struct MissingTestDatabase: Error {
    public init() {}
}
