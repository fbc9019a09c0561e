import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@Suite struct CopyInTests {
    @Test func copyLoadsRowsWithEscapesNullsAndBytes() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await pool.execute(
                script: "CREATE TABLE events (id int8 PRIMARY KEY, note text, at timestamptz, blob bytea)")
            let tricky = "tab\there, newline\nhere, cr\rhere, backslash \\ here, \\N literal, \\. end, 掉单 🧾"
            let rows: [[PostgresValue]] = (1...5_000).map { (id: Int) -> [PostgresValue] in
                let note: PostgresValue = id % 10 == 0 ? .null : .text("\(tricky) #\(id)")
                let at: PostgresValue = .timestamptz(millisecondsSince1970: 1_700_000_000_000 + Int64(id))
                let blob: PostgresValue = .bytea([UInt8(id % 256), 0, 92, 10, 9])
                return [.int64(Int64(id)), note, at, blob]
            }
            let copied = try await pool.withConnection { connection in
                try connection.copyIn(sql: "COPY events (id, note, at, blob) FROM STDIN", rows: rows)
            }
            #expect(copied == 5_000)

            let sample = try await pool.query("SELECT id, note, at, blob FROM events WHERE id IN (7, 10) ORDER BY id")
            #expect(try sample[0].decode(String?.self, column: "note") == "\(tricky) #7")
            #expect(try sample[1].decode(String?.self, column: "note") == nil)
            #expect(
                try sample[0].decode(PostgresTimestamp.self, column: "at").millisecondsSince1970 == 1_700_000_000_007)
            #expect(try sample[0].decode([UInt8].self, column: "blob") == [7, 0, 92, 10, 9])
            let count = try await pool.query("SELECT count(*), count(note) FROM events")
            #expect(try count.single().decode((Int, Int).self) == (5_000, 4_500))
        }
    }

    @Test func failedCopyLoadsNothingAndLeavesConnectionUsable() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await pool.execute(script: "CREATE TABLE events (id int8 PRIMARY KEY)")
            do {
                try await pool.withConnection { connection in
                    try connection.copyIn(sql: "COPY events (id) FROM STDIN", rows: [[.int64(1)], [.int64(1)]])
                }
                Issue.record("duplicate key in COPY should fail")
            } catch let error as PostgresError {
                #expect(error.sqlState == .uniqueViolation)
            }
            do {
                try await pool.withConnection { connection in
                    try connection.copyIn(sql: "COPY events (id) FROM STDIN", rows: [[.text("1\u{0}")]])
                }
                Issue.record("NUL byte in COPY should be refused")
            } catch let error as PostgresError {
                #expect(error.kind == .invalidParameter)
            }
            let count = try await pool.query("SELECT count(*) FROM events")
            #expect(try count.single().decode(Int.self, at: 0) == 0)
        }
    }

    @Test func copyThroughQueryIsRefusedWithoutBreakingTheConnection() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await pool.execute(script: "CREATE TABLE events (id int8)")
            await #expect(throws: PostgresError.self) { try await pool.query("COPY events FROM STDIN") }
            await #expect(throws: PostgresError.self) { try await pool.query("COPY events TO STDOUT") }
            #expect(try await pool.query("SELECT 1").single().decode(Int.self, at: 0) == 1)
        }
    }
}
