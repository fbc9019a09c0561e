import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

/// Interpolated values reach the server as parameters: text that looks like SQL is stored as it is, and a
/// query runs through the prepared-statement cache, alone and in a pipeline.
@Suite struct PostgresQueryIntegrationTests {
    static func byID(_ id: Int64) -> PostgresQuery { "id = \(id)" }

    @Test func hostileTextIsDataAndQueriesComposeAcrossConnectionPoolAndBatch() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await pool.execute(script: "CREATE TABLE notes (id int8 PRIMARY KEY, note text)")
            let hostile = "'); DROP TABLE notes; --"
            try await pool.query("INSERT INTO notes (id, note) VALUES (\(Int64(1)), \(hostile))" as PostgresQuery)
            let none: String? = nil
            let rows = try await pool.withConnection { connection in
                var batch = PostgresBatch()
                batch.append("INSERT INTO notes (id, note) VALUES (\(Int64(2)), \(none))" as PostgresQuery)
                let listed = batch.append(
                    "SELECT id, note FROM notes WHERE \(Self.byID(1)) OR \(Self.byID(2)) ORDER BY id" as PostgresQuery)
                let before = connection.roundTrips
                let rows = try connection.pipeline(batch)[listed]
                #expect(connection.roundTrips == before + 1)
                return rows
            }
            #expect(try rows.map { try $0.decode(Int64.self, at: 0) } == [1, 2])
            #expect(try rows.map { try $0.decode(String?.self, at: 1) } == [hostile, nil])
            let counted = try await pool.query("SELECT count(*) FROM notes WHERE note = \(hostile)" as PostgresQuery)
            #expect(try counted.single().decode(Int64.self, at: 0) == 1)
        }
    }
}
