import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The ledger's record of renewal-date extensions: each subscription's extensions (`renewal_extensions`)
/// and the mass requests (`renewal_extension_requests`), with the count Apple's limit is checked against.
public struct RenewalExtensionStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Records an extension of `chain` as requested unless the chain already has `maximum` extensions
    /// requested or granted after `windowStart`. The chain row is locked meanwhile, so two callers at once
    /// cannot both take the last extension.
    public func reserve(
        _ chain: ChainKey, appID: Int64, requestIdentifier: String, days: Int, reasonCode: Int, requestedBy: String,
        now: Instant, windowStart: Instant, maximum: Int
    ) async throws -> RenewalExtensionReservation {
        let isChain = Self.isChain(chain, appID: appID)
        return try await pool.transaction { connection in
            _ = try connection.query("SELECT 1 FROM chains WHERE \(isChain) FOR UPDATE")
            var retried = false
            if let existing = try connection.query(
                "\(Self.selectExtensions) WHERE \(isChain) AND request_identifier = \(requestIdentifier)"
            ).first {
                let record = try Self.record(existing)
                // Succeeded, or asked with no answer yet: the caller may ask Apple again with the same
                // identifier (Apple answers a repeated identifier once). Refused or failed: asking again
                // is a new attempt, counted like one.
                guard record.status == .refused || record.status == .failed else { return .alreadyRecorded(record) }
                retried = true
            }
            let count = try connection.query(
                """
                SELECT count(*) FROM renewal_extensions
                WHERE \(isChain) AND status IN ('requested', 'succeeded') AND requested_at > \(timestamp(windowStart))
                """
            ).single().decode(Int64.self, at: 0)
            guard count < Int64(maximum) else { return .limitReached(count: Int(count)) }
            if retried {
                try connection.query(
                    """
                    UPDATE renewal_extensions
                    SET days = \(days), reason_code = \(reasonCode), requested_by = \(requestedBy),
                        requested_at = \(timestamp(now)), status = 'requested', apple_error = NULL, effective_date = NULL,
                        web_order_line_item_id = NULL, answered_at = NULL
                    WHERE \(isChain) AND request_identifier = \(requestIdentifier)
                    """)
                return .reserved
            }
            try connection.query(
                """
                INSERT INTO renewal_extensions (app_id, environment, original_transaction_id, request_identifier,
                    days, reason_code, requested_by, requested_at, status)
                VALUES (\(appID), \(chain.environment.rawValue), \(chain.chainID), \(requestIdentifier),
                    \(days), \(reasonCode), \(requestedBy), \(timestamp(now)), 'requested')
                """)
            return .reserved
        }
    }

    /// Records Apple's answer to one subscription's extension.
    public func recordAnswer(
        _ chain: ChainKey, appID: Int64, requestIdentifier: String, status: RenewalExtensionRecord.Status,
        effectiveDate: Instant?, webOrderLineItemID: String?, appleError: String?, at now: Instant
    ) async throws {
        try await pool.query(
            """
            UPDATE renewal_extensions
            SET status = \(status.rawValue), effective_date = \(timestamp(effectiveDate)),
                web_order_line_item_id = \(webOrderLineItemID), apple_error = \(appleError), answered_at = \(timestamp(now))
            WHERE \(Self.isChain(chain, appID: appID)) AND request_identifier = \(requestIdentifier)
            """)
    }

    /// Every extension of `chain`, oldest first.
    public func extensions(of chain: ChainKey, appID: Int64) async throws -> [RenewalExtensionRecord] {
        try await pool.query(
            """
            \(Self.selectExtensions) WHERE \(Self.isChain(chain, appID: appID))
            ORDER BY requested_at, request_identifier
            """
        ).map(Self.record)
    }

    static let extensionColumns: PostgresQuery = """
        environment, original_transaction_id, request_identifier, mass, days, reason_code, requested_by,
        \(milliseconds("requested_at")), status, apple_error, \(milliseconds("effective_date")),
        web_order_line_item_id, \(milliseconds("answered_at"))
        """

    static let selectExtensions: PostgresQuery = "SELECT \(extensionColumns) FROM renewal_extensions"

    /// The condition (unaliased columns) that selects the rows of `chain`.
    static func isChain(_ chain: ChainKey, appID: Int64) -> PostgresQuery {
        """
        app_id = \(appID) AND environment = \(chain.environment.rawValue) \
        AND original_transaction_id = \(chain.chainID)
        """
    }

    static func record(_ row: PostgresRow) throws -> RenewalExtensionRecord {
        guard let environment = StoreEnvironment(rawValue: try row.decode(String.self, at: 0)),
            let status = RenewalExtensionRecord.Status(rawValue: try row.decode(String.self, at: 8))
        else { throw StoreError(code: .corruptRow, message: "a stored renewal extension has an unknown value") }
        return RenewalExtensionRecord(
            chain: ChainKey(environment: environment, chainID: try row.decode(String.self, at: 1)),
            requestIdentifier: try row.decode(String.self, at: 2), mass: try row.decode(Bool.self, at: 3),
            days: try row.decode(Int.self, at: 4), reasonCode: try row.decode(Int.self, at: 5),
            requestedBy: try row.decode(String.self, at: 6),
            requestedAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 7)), status: status,
            appleError: try row.decode(String?.self, at: 9),
            effectiveDate: try row.decode(Int64?.self, at: 10).map(Instant.init(millisecondsSince1970:)),
            webOrderLineItemID: try row.decode(String?.self, at: 11),
            answeredAt: try row.decode(Int64?.self, at: 12).map(Instant.init(millisecondsSince1970:)))
    }
}
