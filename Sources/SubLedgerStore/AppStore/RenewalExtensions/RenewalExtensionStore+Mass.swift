import Foundation
import PostgresLibPQ
import SubLedgerCore

extension RenewalExtensionStore {
    /// Records a mass request and, as its members, every chain of its product the ledger holds as active at
    /// `now` (with each one's expiry then). A request identifier recorded before is left as it was.
    /// Returns the stored request and whether this call created it.
    public func recordMassRequest(
        _ request: MassExtensionRecord, appID: Int64, now: Instant
    ) async throws -> (record: MassExtensionRecord, created: Bool) {
        // A text array literal: Citus refuses a subquery inside an INSERT's VALUES.
        let storefronts = request.storefrontCountryCodes.map { PostgresArrayText.strings($0) }
        let created = try await pool.transaction { connection in
            let inserted =
                try connection.query(
                    """
                    INSERT INTO renewal_extension_requests (app_id, request_identifier, environment, product_id,
                        storefront_country_codes, days, reason_code, requested_by, requested_at, status, updated_at)
                    VALUES (\(appID), \(request.requestIdentifier), \(request.environment.rawValue),
                        \(request.productID),
                        \(storefronts)::text[],
                        \(request.days), \(request.reasonCode), \(request.requestedBy), \(timestamp(now)), 'requested',
                            \(timestamp(now)))
                    ON CONFLICT (app_id, request_identifier) DO NOTHING
                    RETURNING 1
                    """
                ).count == 1
            guard inserted else { return false }
            try connection.query(
                """
                INSERT INTO renewal_extensions (app_id, environment, original_transaction_id, request_identifier,
                    mass, days, reason_code, requested_by, requested_at, expires_before, status)
                SELECT app_id, environment, original_transaction_id, \(request.requestIdentifier), true,
                    \(request.days), \(request.reasonCode), \(request.requestedBy), \(timestamp(now)), expires_at,
                    'requested'
                FROM chains
                WHERE app_id = \(appID) AND environment = \(request.environment.rawValue) AND product_id =
                    \(request.productID) AND product_type = 'auto_renewable'
                  AND state = 'active' AND expires_at > \(timestamp(now))
                """)
            return true
        }
        guard let stored = try await massRequest(request.requestIdentifier, appID: appID) else {
            throw StoreError(code: .corruptRow, message: "a mass extension request vanished after it was recorded")
        }
        return (stored, created)
    }

    /// Records what Apple answered about a mass request.
    public func updateMassRequest(
        _ requestIdentifier: String, appID: Int64, status: MassExtensionRecord.Status, appleError: String? = nil,
        completeDate: Instant? = nil, succeededCount: Int64? = nil, failedCount: Int64? = nil, at now: Instant
    ) async throws {
        try await pool.query(
            """
            UPDATE renewal_extension_requests
            SET status = \(status.rawValue), apple_error = \(appleError), complete_date = \(timestamp(completeDate)),
                succeeded_count = \(succeededCount), failed_count = \(failedCount),
                updated_at = \(timestamp(now))
            WHERE app_id = \(appID) AND request_identifier = \(requestIdentifier)
            """)
    }

    /// A recorded mass request, with its member count.
    public func massRequest(_ requestIdentifier: String, appID: Int64) async throws -> MassExtensionRecord? {
        let rows = try await pool.query(
            """
            SELECT environment, product_id, array_to_json(storefront_country_codes)::text, days, reason_code,
                requested_by, \(milliseconds("requested_at")), status, apple_error,
                \(milliseconds("complete_date")), succeeded_count, failed_count,
                (SELECT count(*) FROM renewal_extensions e
                 WHERE e.app_id = r.app_id AND e.request_identifier = r.request_identifier AND e.mass)
            FROM renewal_extension_requests r
            WHERE app_id = \(appID) AND request_identifier = \(requestIdentifier)
            """)
        guard let row = rows.first else { return nil }
        guard let environment = StoreEnvironment(rawValue: try row.decode(String.self, at: 0)),
            let status = MassExtensionRecord.Status(rawValue: try row.decode(String.self, at: 7))
        else { throw StoreError(code: .corruptRow, message: "a stored mass extension has an unknown value") }
        let storefronts = try row.decode(String?.self, at: 2).map {
            try StoreJSON.decode([String].self, from: $0, what: "storefront list")
        }
        return MassExtensionRecord(
            requestIdentifier: requestIdentifier, environment: environment,
            productID: try row.decode(String.self, at: 1),
            storefrontCountryCodes: storefronts, days: try row.decode(Int.self, at: 3),
            reasonCode: try row.decode(Int.self, at: 4), requestedBy: try row.decode(String.self, at: 5),
            requestedAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 6)), status: status,
            appleError: try row.decode(String?.self, at: 8),
            completeDate: try row.decode(Int64?.self, at: 9).map(Instant.init(millisecondsSince1970:)),
            succeededCount: try row.decode(Int64?.self, at: 10), failedCount: try row.decode(Int64?.self, at: 11),
            members: Int(try row.decode(Int64.self, at: 12)))
    }

    /// The chains of a mass request whose outcome the ledger has not settled yet.
    public func unsettledMassMembers(_ requestIdentifier: String, appID: Int64) async throws -> [ChainKey] {
        try await pool.query(
            """
            SELECT environment, original_transaction_id FROM renewal_extensions
            WHERE app_id = \(appID) AND request_identifier = \(requestIdentifier) AND mass AND status = 'requested'
            ORDER BY environment, original_transaction_id
            """
        ).map { row in
            guard let environment = StoreEnvironment(rawValue: try row.decode(String.self, at: 0)) else {
                throw StoreError(code: .corruptRow, message: "a stored renewal extension has an unknown environment")
            }
            return ChainKey(environment: environment, chainID: try row.decode(String.self, at: 1))
        }
    }

    /// Settles a completed mass request's members from the chains as the ledger now has them (refreshed from
    /// Apple): a member whose expiry moved past its expiry at the request succeeded, the others were passed
    /// over. Returns how many of each.
    public func settleMassMembers(
        _ requestIdentifier: String, appID: Int64, at now: Instant
    ) async throws -> (succeeded: Int, refused: Int) {
        let rows = try await pool.query(
            """
            UPDATE renewal_extensions e
            SET status = CASE WHEN c.expires_at > e.expires_before THEN 'succeeded' ELSE 'refused' END,
                effective_date = CASE WHEN c.expires_at > e.expires_before THEN c.expires_at END,
                answered_at = \(timestamp(now))
            FROM chains c
            WHERE e.app_id = \(appID) AND e.request_identifier = \(requestIdentifier) AND e.mass AND e.status =
                'requested'
              AND c.app_id = e.app_id AND c.environment = e.environment
              AND c.original_transaction_id = e.original_transaction_id
            RETURNING e.status
            """)
        var succeeded = 0
        var refused = 0
        for row in rows {
            if try row.decode(String.self, at: 0) == "succeeded" { succeeded += 1 } else { refused += 1 }
        }
        return (succeeded, refused)
    }
}
