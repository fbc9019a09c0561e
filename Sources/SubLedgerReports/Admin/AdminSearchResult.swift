import Foundation
import PostgresLibPQ
import SubLedgerCore

/// What the admin page's search (`GET /admin?q=...`) found.
public enum AdminSearchResult: Sendable, Hashable {
    /// The query is an account id: its timeline.
    case account(AccountTimeline)
    /// The query is an original transaction id: its audit trail.
    case chain(ChainAudit)
    /// Neither an account nor an original transaction has that id.
    case notFound(String)
    /// A support lookup's answer (an order id, a transaction id, an app account token or an account id).
    case support(SupportAnswer)
    /// The query could not be answered: the text is the reason (an id of no known shape, Apple unavailable).
    case refused(query: String, reason: String)
}

extension Reports {
    /// Looks `query` up as an account id, then as an original transaction id.
    public static func search(_ query: String, on connection: PostgresConnection, scope: ReportScope) throws
        -> AdminSearchResult
    {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        // Text no account id or transaction id can be is never sent to the database (libpq refuses NUL).
        if IdentifierRule.accountID.accepts(trimmed) {
            do {
                return .account(try account(trimmed, on: connection, scope: scope))
            } catch let error as ReportError where error.code == .notFound {}
        }
        if IdentifierRule.transactionID.accepts(trimmed) {
            do {
                return .chain(try original(trimmed, on: connection, scope: scope))
            } catch let error as ReportError where error.code == .notFound {}
        }
        return .notFound(trimmed)
    }

    /// `search` on a pooled connection.
    public static func search(_ query: String, on pool: PostgresPool, scope: ReportScope) async throws
        -> AdminSearchResult
    {
        try await pool.withConnection { connection in try search(query, on: connection, scope: scope) }
    }
}
