import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@Suite struct ErrorTests {
    @Test func uniqueViolationCarriesSQLStateAndConstraintName() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await pool.execute(
                script: """
                    CREATE TABLE subscribers (
                        id int8 PRIMARY KEY,
                        email text NOT NULL,
                        CONSTRAINT subscribers_email_key UNIQUE (email)
                    )
                    """)
            let secret = "hunter2-secret@example.com"
            try await pool.query("INSERT INTO subscribers VALUES (\(1), \(secret))")
            do {
                try await pool.query("INSERT INTO subscribers VALUES (\(2), \(secret))")
                Issue.record("duplicate email must be refused")
            } catch let error as PostgresError {
                #expect(error.kind == .queryFailed)
                #expect(error.sqlState == .uniqueViolation)
                #expect(error.constraintName == "subscribers_email_key")
                #expect(error.tableName == "subscribers")
                #expect(!error.description.contains("hunter2"))
                #expect(!"\(error)".contains("hunter2"))
                #expect(error.description.contains("subscribers_email_key"))
                #expect(error.debugDescription.contains("detail:"))
            }
        }
    }

    @Test func otherConstraintViolationsMapToTheirSQLStates() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await pool.execute(
                script: """
                    CREATE TABLE products (id int8 PRIMARY KEY);
                    CREATE TABLE purchases (
                        id int8 PRIMARY KEY,
                        product_id int8 NOT NULL REFERENCES products (id),
                        quantity int NOT NULL CONSTRAINT purchases_quantity_positive CHECK (quantity > 0)
                    );
                    INSERT INTO products VALUES (1);
                    """)
            let none: Int64? = nil
            let cases: [(PostgresQuery, SQLState)] = [
                ("INSERT INTO purchases VALUES (\(1), \(99), \(1))", .foreignKeyViolation),
                ("INSERT INTO purchases VALUES (\(1), \(1), \(0))", .checkViolation),
                ("INSERT INTO purchases VALUES (\(1), \(none), \(1))", .notNullViolation),
                ("SELECT * FROM no_such_table", .undefinedTable),
            ]
            for (query, expected) in cases {
                do {
                    try await pool.query(query)
                    Issue.record("\(query) should fail with \(expected)")
                } catch let error as PostgresError {
                    #expect(error.sqlState == expected)
                }
            }
        }
    }

    @Test func descriptionNeverContainsParameterValues() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let secret = "receipt-token-s3cr3t"
            do {
                // The server's primary message quotes the bad input: "invalid input syntax for type integer".
                try await pool.query("SELECT \(secret)::text::int4")
                Issue.record("cast should fail")
            } catch let error as PostgresError {
                #expect(error.sqlState == .invalidTextRepresentation)
                #expect(!error.description.contains(secret))
                #expect(!error.message.contains(secret))
                #expect(!"\(error)".contains(secret))
                #expect(!String(describing: error).contains(secret))
            }
        }
    }

    @Test func connectionFailureNeverShowsThePassword() async throws {
        let socketDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent(TestDatabase.uniqueName("missing")).path
        let configuration = try PostgresConfiguration(
            connectionString: "postgresql://ledger:pa55-w0rd-secret@localhost/ledger?host=\(socketDirectory)")
        #expect(!configuration.description.contains("pa55-w0rd-secret"))
        let pool = PostgresPool(configuration: configuration)
        do {
            try await pool.query("SELECT 1")
            Issue.record("connecting to a missing socket should fail")
        } catch let error as PostgresError {
            #expect(error.kind == .connectionFailed)
            #expect(!error.description.contains("pa55-w0rd-secret"))
            #expect(!error.debugDescription.contains("pa55-w0rd-secret"))
        }
        await pool.shutdown()
    }
}
