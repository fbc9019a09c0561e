import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@Suite struct ValueRoundTripTests {
    struct Receipt: Codable, Equatable {
        var product: String
        var quantity: Int
        var flags: [Bool]
    }

    @Test func everySupportedTypeRoundTripsThroughATable() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await pool.execute(
                script: """
                    CREATE TABLE samples (
                        id int8 PRIMARY KEY, label text, small int4, flag bool, ratio float8,
                        at timestamptz, token uuid, document jsonb, payload bytea
                    )
                    """)
            let text = "掉单 🧾 émoji ✓ \"quoted\" \\ back\nslash\ttab"
            let allBytes = (0...255).map { UInt8($0) }
            let token = UUID()
            let receipt = Receipt(product: "com.example.pro.monthly 掉单", quantity: 3, flags: [true, false])
            let milliseconds: Int64 = 1_700_000_000_123
            try await pool.query(
                """
                INSERT INTO samples VALUES (\(Int64.max), \(text), \(Int32.min), \(true), \(0.1),
                    \(.timestamptz(millisecondsSince1970: milliseconds)), \(token), \(try .jsonb(encoding: receipt)),
                    \(allBytes))
                """)
            try await pool.query(
                """
                INSERT INTO samples VALUES (\(Int64.min), \(.null), \(.null), \(.null), \(.null), \(.null), \(.null),
                    \(.null), \(.null))
                """)

            let rows = try await pool.query("SELECT * FROM samples ORDER BY id DESC")
            #expect(rows.count == 2)
            #expect(
                rows.columnNames == ["id", "label", "small", "flag", "ratio", "at", "token", "document", "payload"])
            let full = rows[0]
            #expect(try full.decode(Int64.self, column: "id") == Int64.max)
            #expect(try full.decode(String.self, column: "label") == text)
            #expect(try full.decode(Int32.self, column: "small") == Int32.min)
            #expect(try full.decode(Bool.self, column: "flag") == true)
            #expect(try full.decode(Double.self, column: "ratio") == 0.1)
            #expect(try full.decode(PostgresTimestamp.self, column: "at").millisecondsSince1970 == milliseconds)
            #expect(try full.decode(Date.self, column: "at") == Date(timeIntervalSince1970: 1_700_000_000.123))
            #expect(try full.decode(UUID.self, column: "token") == token)
            #expect(try full.decodeJSON(Receipt.self, column: "document") == receipt)
            #expect(try full.decode([UInt8].self, column: "payload") == allBytes)
            #expect(try full.decode(Data.self, column: "payload") == Data(allBytes))

            let empty = rows[1]
            #expect(try empty.decode(Int64.self, at: 0) == Int64.min)
            #expect(try empty.decode(String?.self, column: "label") == nil)
            #expect(try empty.decode(Int32?.self, column: "small") == nil)
            #expect(try empty.decode(Bool?.self, column: "flag") == nil)
            #expect(try empty.decode(Double?.self, column: "ratio") == nil)
            #expect(try empty.decode(Date?.self, column: "at") == nil)
            #expect(try empty.decode(UUID?.self, column: "token") == nil)
            #expect(try empty.decode(Data?.self, column: "document") == nil)
            #expect(try empty.decode([UInt8]?.self, column: "payload") == nil)
        }
    }

    @Test func tupleDecodingReadsLeadingColumns() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let rows = try await pool.query("SELECT \(Int64(7))::int8, \("seven")::text, \(nil as Bool?)::bool")
            let (number, name, flag) = try rows.single().decode((Int64, String, Bool?).self)
            #expect(number == 7)
            #expect(name == "seven")
            #expect(flag == nil)
        }
    }

    @Test func nullOrMismatchedTypeThrowsDecodingErrorNamingTheColumn() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let rows = try await pool.query("SELECT NULL::int8 AS missing, 'abc'::text AS word, 99999::int8 AS big")
            let row = try rows.single()
            #expect(throws: PostgresError.self) { try row.decode(Int64.self, column: "missing") }
            do {
                _ = try row.decode(Int64.self, column: "missing")
            } catch let error as PostgresError {
                #expect(error.kind == .decoding)
                #expect(error.columnName == "missing")
                #expect(error.description.contains("missing"))
            }
            do {
                _ = try row.decode(Int.self, column: "word")
                Issue.record("text must not decode as Int")
            } catch let error as PostgresError {
                #expect(error.kind == .decoding)
                #expect(error.columnName == "word")
            }
            #expect(throws: PostgresError.self) { try row.decode(Int16.self, column: "big") }
            #expect(throws: PostgresError.self) { try row.decode(UUID.self, column: "word") }
            #expect(throws: PostgresError.self) { try row.decode(Int.self, column: "no_such_column") }
            #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 17) }
        }
    }

    @Test func timestampsDecodeWhateverTheSessionTimeZone() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let instants = [
                PostgresTimestamp(millisecondsSince1970: 1_704_164_645_123),  // 2024-01-02 03:04:05.123 UTC
                PostgresTimestamp(microsecondsSince1970: -3_786_825_599_999_999),  // 1850: local mean time offsets
                PostgresTimestamp(microsecondsSince1970: -62_167_219_200_000_000),  // year 0001 BC
            ]
            for zone in ["UTC", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham", "Europe/Amsterdam"] {
                for instant in instants {
                    let rows = try await pool.withConnection { connection in
                        try connection.query("SELECT set_config('TimeZone', \(zone), false)")
                        return try connection.query(
                            "SELECT \(instant)::timestamptz AS at, \(instant)::timestamptz::text AS shown")
                    }
                    let row = try rows.single()
                    let shown = try row.decode(String.self, column: "shown")
                    #expect(try row.decode(PostgresTimestamp.self, column: "at") == instant, "zone \(zone): \(shown)")
                }
            }
        }
    }

    @Test func integerAndFloatExtremesRoundTrip() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let rows = try await pool.query(
                """
                SELECT \(Int64.max)::int8, \(Int64.min)::int8, \(Int32.max)::int4, \(Int32.min)::int4,
                    \(Double.greatestFiniteMagnitude)::float8, \(-0.000_001)::float8, \(Double.infinity)::float8
                """)
            let row = try rows.single()
            #expect(try row.decode(Int64.self, at: 0) == .max)
            #expect(try row.decode(Int64.self, at: 1) == .min)
            #expect(try row.decode(Int32.self, at: 2) == .max)
            #expect(try row.decode(Int32.self, at: 3) == .min)
            #expect(try row.decode(Double.self, at: 4) == .greatestFiniteMagnitude)
            #expect(try row.decode(Double.self, at: 5) == -0.000_001)
            #expect(try row.decode(Double.self, at: 6) == .infinity)
        }
    }

    @Test func textWithNulByteIsRefusedBeforeSending() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            do {
                try await pool.query("SELECT \("before\u{0}after")::text")
                Issue.record("a NUL byte must not be silently truncated")
            } catch let error as PostgresError {
                #expect(error.kind == .invalidParameter)
            }
        }
    }
}
