import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The `audit_log` table: what admin and support keys did, appended and never changed (the database refuses an
/// UPDATE, DELETE or TRUNCATE of it), read newest first.
public struct AuditLogStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// One thing a key did: who, what, to what, with which outcome, when and from where.
    public struct Entry: Sendable, Hashable, Codable {
        /// The row's id, increasing with each append; `nil` until appended.
        public var auditID: Int64?
        public var occurredAt: Instant
        public var keyID: String
        public var keyName: String
        /// `admin` or `support`.
        public var scope: String
        public var method: String
        /// The route as declared, `/v1/admin/webhooks/{id}`.
        public var route: String
        /// The route's parameters and the app it named (`bundle_id`).
        public var target: [String: String]
        /// The HTTP status answered.
        public var status: Int
        /// The client's IP address, without its port.
        public var clientAddress: String?
        /// The id the request's log lines carry.
        public var requestID: String

        public init(
            auditID: Int64? = nil, occurredAt: Instant, keyID: String, keyName: String, scope: String,
            method: String, route: String, target: [String: String], status: Int, clientAddress: String?,
            requestID: String
        ) {
            self.auditID = auditID
            self.occurredAt = occurredAt
            self.keyID = keyID
            self.keyName = keyName
            self.scope = scope
            self.method = method
            self.route = route
            self.target = target
            self.status = status
            self.clientAddress = clientAddress
            self.requestID = requestID
        }
    }

    /// Which entries to read: newest first, at most `limit`, older than the entry `before` (the page after one
    /// that ended there), from `since` on, of one key (its id or its name).
    public struct Filter: Sendable, Hashable {
        public var since: Instant?
        public var key: String?
        public var before: Int64?
        public var limit: Int

        public init(since: Instant? = nil, key: String? = nil, before: Int64? = nil, limit: Int) {
            self.since = since
            self.key = key
            self.before = before
            self.limit = limit
        }
    }

    /// Appends `entry` and returns its id.
    @discardableResult
    public func append(_ entry: Entry) async throws -> Int64 {
        let rows = try await pool.query(Self.insert(entry))
        guard let row = rows.first else {
            throw StoreError(code: .corruptRow, message: "an audit entry was not appended")
        }
        return try row.decode(Int64.self, at: 0)
    }

    /// Appends `entry` on `connection`, inside the transaction it is in: the entry commits exactly when the
    /// action it records does.
    @discardableResult
    public func append(_ entry: Entry, on connection: PostgresConnection) throws -> Int64 {
        let rows = try connection.query(Self.insert(entry))
        guard let row = rows.first else {
            throw StoreError(code: .corruptRow, message: "an audit entry was not appended")
        }
        return try row.decode(Int64.self, at: 0)
    }

    /// The entries `filter` selects, newest first.
    public func entries(_ filter: Filter) async throws -> [Entry] {
        let rows = try await pool.query(
            """
            SELECT audit_id, \(milliseconds("occurred_at")), key_id::text, key_name, scope, method, route,
                target::text, status, client_address, request_id
            FROM audit_log
            WHERE (\(filter.since.map { timestamp($0) } ?? .null)::timestamptz IS NULL
                    OR occurred_at >= \(filter.since.map { timestamp($0) } ?? .null)::timestamptz)
                AND (\(filter.key)::text IS NULL OR key_id::text = \(filter.key) OR key_name = \(filter.key))
                AND (\(filter.before)::bigint IS NULL OR audit_id < \(filter.before))
            ORDER BY audit_id DESC
            LIMIT \(Int64(max(0, filter.limit)))
            """ as PostgresQuery)
        return try rows.map { row in
            Entry(
                auditID: try row.decode(Int64.self, at: 0),
                occurredAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 1)),
                keyID: try row.decode(String.self, at: 2), keyName: try row.decode(String.self, at: 3),
                scope: try row.decode(String.self, at: 4), method: try row.decode(String.self, at: 5),
                route: try row.decode(String.self, at: 6),
                target: try StoreJSON.decode(
                    [String: String].self, from: try row.decode(String.self, at: 7), what: "audit target"),
                status: Int(try row.decode(Int64.self, at: 8)), clientAddress: try row.decode(String?.self, at: 9),
                requestID: try row.decode(String.self, at: 10))
        }
    }

    private static func insert(_ entry: Entry) throws -> PostgresQuery {
        // Bounded as the table's checks bound them, so that an odd request is still recorded, shortened.
        let target = try StoreJSON.encode(entry.target)
        return """
            INSERT INTO audit_log (occurred_at, key_id, key_name, scope, method, route, target, status,
                client_address, request_id)
            VALUES (\(timestamp(entry.occurredAt)), \(entry.keyID)::uuid, \(String(entry.keyName.prefix(200))),
                \(entry.scope), \(String(entry.method.prefix(16))), \(String(entry.route.prefix(300))),
                \(target)::jsonb, \(Int64(entry.status)), \(entry.clientAddress.map { String($0.prefix(64)) }),
                \(String(entry.requestID.prefix(128))))
            RETURNING audit_id
            """
    }
}
