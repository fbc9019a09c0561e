import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The single-column rules of the tables an apply writes are domains (schema steps 63 and 64): PostgreSQL keeps a
/// domain's rule prepared, where it parses a table's CHECK constraints again for every statement that writes the
/// table. The rules themselves are unchanged: every column still refuses what its CHECK refused.
@Suite struct ColumnRulesTests {
    /// The tables an apply inserts into or updates (and a receipt's apply, `receipts`).
    static let applyTables = [
        "notifications", "receipts", "transactions", "ledger_entries", "ledger_chain_links", "ledger_chain_heads",
        "webhook_events", "webhook_account_sequences",
    ]

    /// A column, a value its rule refuses and one it accepts (SQL literals of the column's base type).
    struct Rule: CustomTestStringConvertible, Sendable {
        var table: String
        var column: String
        var refused: String
        var accepted: String
        var testDescription: String { "\(table).\(column)" }
    }

    static let rules: [Rule] = [
        Rule(table: "notifications", column: "status", refused: "'done'", accepted: "'quarantined'"),
        Rule(table: "notifications", column: "version", refused: "'v3'", accepted: "'paddle_event'"),
        Rule(
            table: "notifications", column: "consumption_request_reason", refused: "'lower_case'",
            accepted: "'UNINTENDED_PURCHASE'"),
        Rule(
            table: "notifications", column: "external_purchase_id", refused: "''",
            accepted: "'\(String(repeating: "e", count: 128))'"),
        Rule(table: "receipts", column: "status", refused: "'Applied'", accepted: "'retry'"),
        Rule(table: "receipts", column: "kind", refused: "'paddle_checkout'", accepted: "'stripe_checkout'"),
        Rule(table: "transactions", column: "app_transaction_id", refused: "''", accepted: "'7051'"),
        Rule(table: "transactions", column: "currency", refused: "'usd'", accepted: "'USD'"),
        Rule(table: "transactions", column: "storefront", refused: "'US'", accepted: "'USA'"),
        Rule(table: "transactions", column: "offer_type", refused: "100", accepted: "99"),
        Rule(
            table: "transactions", column: "offer_discount_type",
            refused: "'\(String(repeating: "F", count: 65))'", accepted: "'FREE_TRIAL'"),
        Rule(table: "transactions", column: "price_milliunits", refused: "-1", accepted: "0"),
        Rule(table: "transactions", column: "revocation_percentage", refused: "100001", accepted: "100000"),
        Rule(table: "ledger_entries", column: "kind", refused: "'refund'", accepted: "'manual_revoke'"),
        Rule(table: "ledger_chain_links", column: "seq", refused: "0", accepted: "1"),
        Rule(table: "ledger_chain_links", column: "item_table", refused: "'orders'", accepted: "'erased_chain_rows'"),
        Rule(
            table: "ledger_chain_links", column: "hash", refused: "'\\x00'::bytea",
            accepted: "sha256('x'::bytea)"),
        Rule(table: "ledger_chain_heads", column: "seq", refused: "-5", accepted: "7"),
        Rule(
            table: "ledger_chain_heads", column: "hash", refused: "sha224('x'::bytea)",
            accepted: "sha256('y'::bytea)"),
        Rule(table: "webhook_events", column: "cause_kind", refused: "'webhook'", accepted: "'clock'"),
        Rule(table: "webhook_events", column: "event_type", refused: "''", accepted: "'entitlement.extended'"),
        Rule(
            table: "webhook_events", column: "idempotency_key",
            refused: "'\(String(repeating: "k", count: 1001))'", accepted: "'k'"),
        Rule(table: "webhook_events", column: "account_sequence", refused: "0", accepted: "1"),
        Rule(table: "webhook_account_sequences", column: "last_sequence", refused: "0", accepted: "2"),
    ]

    /// Each rule, through the column's own type: the refused value fails as a check violation, the accepted one
    /// and NULL pass.
    @Test(arguments: rules) func eachColumnRefusesWhatItsRuleRefuses(_ rule: Rule) async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            let type = try await pool.query(
                """
                SELECT format_type(a.atttypid, NULL) FROM pg_attribute a
                WHERE a.attrelid = to_regclass(\(rule.table)) AND a.attname = \(rule.column)
                """
            ).single().decode(String.self, at: 0)
            try await pool.execute(script: "SELECT (\(rule.accepted))::\(type), NULL::\(type)")
            do {
                try await pool.execute(script: "SELECT (\(rule.refused))::\(type)")
                Issue.record("\(rule.table).\(rule.column) accepted \(rule.refused)")
            } catch let error as PostgresError {
                #expect(error.sqlState == .checkViolation, "\(error)")
            }
        }
    }

    /// No table an apply writes has a CHECK constraint on one column: such a rule is a domain.
    @Test func noTableAnApplyWritesChecksASingleColumn() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            let checks = try await pool.query(
                """
                SELECT conrelid::regclass::text || '.' || conname FROM pg_constraint
                WHERE contype = 'c' AND cardinality(conkey) = 1
                  AND conrelid = ANY (ARRAY(SELECT to_regclass(t) FROM unnest(\(PostgresArrayText.strings(Self.applyTables))::text::text[]) t))
                ORDER BY 1
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(checks == [])
            // Every rule above is a domain's, on a column of the tables named.
            let domains = try await pool.query(
                """
                SELECT count(*) FROM information_schema.columns
                WHERE table_schema = current_schema() AND domain_name IS NOT NULL
                  AND table_name = ANY (\(PostgresArrayText.strings(Self.applyTables))::text::text[])
                """
            ).single().decode(Int64.self, at: 0)
            #expect(domains == Int64(Self.rules.count))
        }
    }
}
