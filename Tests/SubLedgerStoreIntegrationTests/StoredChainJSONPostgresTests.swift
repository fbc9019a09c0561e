import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// What the codec writes goes through PostgreSQL as the store sends it (a jsonb parameter) and comes back as the
/// store reads it (jsonb's text output, `json_agg` of payloads, `json_build_array` of binding columns), and
/// reads back to the same value.
@Suite struct StoredChainJSONPostgresTests {
    static let cases = 200

    /// Each text through `::jsonb::text`, in order.
    static func throughJSONB(_ texts: [String], on pool: PostgresPool) async throws -> [String] {
        let rows = try await pool.query(
            """
            SELECT j::text FROM jsonb_array_elements(\("[" + texts.joined(separator: ",") + "]")::jsonb) WITH
                ORDINALITY AS e(j, n) ORDER BY n
            """)
        return try rows.map { try $0.decode(String.self, at: 0) }
    }

    static func withPool<T: Sendable>(_ body: (PostgresPool) async throws -> T) async throws -> T {
        let pool = PostgresPool(
            configuration: try TestDatabase.configuration(maxConnections: 1), logger: TestDatabase.logger)
        do {
            let result = try await body(pool)
            await pool.shutdown()
            return result
        } catch {
            await pool.shutdown()
            throw error
        }
    }

    @Test func chainsAndRenewalInfoReadBackFromJSONB() async throws {
        var values = StoredChainValues(seed: 0xC0DEC_0101, allowsNUL: false)
        let chains = (0..<Self.cases).map { _ in values.chain() }
        let renewals = (0..<Self.cases).map { _ in values.renewalInfo() }
        try await Self.withPool { pool in
            let storedChains = try await Self.throughJSONB(chains.map(StoredChainJSON.json(of:)), on: pool)
            #expect(storedChains.contains { $0.contains(": ") }, "jsonb's text output has spaces")
            for (chain, text) in zip(chains, storedChains) {
                #expect(try StoredChainJSON.chain(from: text) == chain, "\(text)")
            }
            let storedRenewals = try await Self.throughJSONB(renewals.map(StoredChainJSON.json(of:)), on: pool)
            for (renewal, text) in zip(renewals, storedRenewals) {
                #expect(try JSONDecoder().decode(RenewalInfo.self, from: Data(text.utf8)) == renewal, "\(text)")
            }
        }
    }

    @Test func transactionsReadBackFromJSONBAndFromJSONAgg() async throws {
        var values = StoredChainValues(seed: 0xC0DEC_0102, allowsNUL: false)
        let known = (0..<Self.cases).map { _ in values.knownTransaction() }
        try await Self.withPool { pool in
            let texts = known.map(StoredChainJSON.json(of:))
            for (value, text) in zip(known, try await Self.throughJSONB(texts, on: pool)) {
                #expect(try StoredChainJSON.transaction(from: text) == value, "\(text)")
            }
            // As `ChainRows.chainColumns` reads them: `json_agg` of jsonb payloads.
            let aggregated = try await pool.query(
                """
                SELECT json_agg(j ORDER BY n)::text FROM
                    jsonb_array_elements(\("[" + texts.joined(separator: ",") + "]")::jsonb) WITH ORDINALITY AS e(j, n)
                """
            ).single().decode(String.self, at: 0)
            #expect(aggregated.hasPrefix("[{") && aggregated.contains("}, {"))
            #expect(try StoredChainJSON.transactions(from: aggregated) == known)
        }
    }

    /// One binding row as the test sends it to `jsonb_to_recordset`.
    struct BindingRow: Encodable {
        var s: Int
        var f: String?
        var t: String
        var r: String
        var ms: Int64
        var tx: String?
    }

    @Test func bindingsReadBackFromJSONBuildArray() async throws {
        var values = StoredChainValues(seed: 0xC0DEC_0103, allowsNUL: false)
        let bindings = (0..<Self.cases).map { sequence in
            StoredBinding(
                sequence: sequence - 1, from: values.maybe { $0.string() }, to: values.string(),
                reason: values.string(),
                at: values.int64(), transactionID: values.maybe { $0.string() })
        }
        let rows = bindings.map {
            BindingRow(s: $0.sequence, f: $0.from, t: $0.to, r: $0.reason, ms: $0.at, tx: $0.transactionID)
        }
        try await Self.withPool { pool in
            let text = try await pool.query(
                """
                SELECT json_agg(json_build_array(b.s, b.f, b.t, b.r, b.ms, b.tx) ORDER BY b.s)::text
                FROM jsonb_to_recordset(\(String(decoding: try JSONEncoder().encode(rows), as: UTF8.self))::jsonb) AS
                    b(s integer, f text, t text, r text, ms bigint, tx text)
                """
            ).single().decode(String.self, at: 0)
            #expect(try StoredChainJSON.bindings(from: text) == bindings)
        }
    }

    @Test func aStringWithNULIsRefusedByJSONBAsBefore() async throws {
        var values = StoredChainValues(seed: 0xC0DEC_0104, allowsNUL: false)
        var chain = values.chain()
        chain.productID = "a\u{0}b"
        let json = StoredChainJSON.json(of: chain)
        #expect(json.contains(#"a\u0000b"#))
        #expect(json == (try StoredChainJSONAgreementTests.foundationJSON(chain)))
        try await Self.withPool { pool in
            let refusal = await #expect(throws: PostgresError.self) {
                _ = try await Self.throughJSONB([json], on: pool)
            }
            #expect(refusal?.description.contains("Unicode escape") == true, "\(String(describing: refusal))")
        }
    }
}
