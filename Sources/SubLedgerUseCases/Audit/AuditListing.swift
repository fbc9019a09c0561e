import SubLedgerCore
import SubLedgerStore

/// One page of the audit log as `GET /v1/admin/audit` and `subledger audit --json` print it: the entries,
/// newest first, and the `before` that asks for the next (older) page, `nil` on the last.
public struct AuditListing: Sendable, Encodable {
    /// The most entries one page may hold, and how many a page holds unless asked otherwise.
    public static let maximumLimit = 500
    public static let defaultLimit = 50

    /// One entry, its time as RFC 3339 text.
    public struct Entry: Sendable, Encodable, Hashable {
        public var auditId: Int64
        public var occurredAt: String
        public var keyId: String
        public var keyName: String
        public var scope: String
        public var method: String
        public var route: String
        public var target: [String: String]
        public var status: Int
        public var clientAddress: String?
        public var requestId: String

        enum CodingKeys: String, CodingKey {
            case auditId = "audit_id"
            case occurredAt = "occurred_at"
            case keyId = "key_id"
            case keyName = "key_name"
            case scope, method, route, target, status
            case clientAddress = "client_address"
            case requestId = "request_id"
        }

        // Written out so that an entry without an address says `null` rather than leaving the field out.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(auditId, forKey: .auditId)
            try container.encode(occurredAt, forKey: .occurredAt)
            try container.encode(keyId, forKey: .keyId)
            try container.encode(keyName, forKey: .keyName)
            try container.encode(scope, forKey: .scope)
            try container.encode(method, forKey: .method)
            try container.encode(route, forKey: .route)
            try container.encode(target, forKey: .target)
            try container.encode(status, forKey: .status)
            try container.encode(clientAddress, forKey: .clientAddress)
            try container.encode(requestId, forKey: .requestId)
        }
    }

    public var entries: [Entry]
    public var nextBefore: Int64?

    enum CodingKeys: String, CodingKey {
        case entries
        case nextBefore = "next_before"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(nextBefore, forKey: .nextBefore)
    }

    /// Reads one page of `filter` (its limit bounded to `1...maximumLimit`) from `store`.
    public static func read(_ filter: AuditLogStore.Filter, from store: AuditLogStore) async throws -> AuditListing {
        let (page, nextBefore) = try await Self.page(filter, from: store)
        return AuditListing(
            entries: page.map { entry in
                Entry(
                    auditId: entry.auditID ?? 0, occurredAt: RFC3339.format(entry.occurredAt), keyId: entry.keyID,
                    keyName: entry.keyName, scope: entry.scope, method: entry.method, route: entry.route,
                    target: entry.target, status: entry.status, clientAddress: entry.clientAddress,
                    requestId: entry.requestID)
            },
            nextBefore: nextBefore)
    }

    /// One page of `filter` (its limit bounded to `1...maximumLimit`) as stored, and the `before` of the next.
    public static func page(_ filter: AuditLogStore.Filter, from store: AuditLogStore) async throws
        -> (entries: [AuditLogStore.Entry], nextBefore: Int64?)
    {
        var bounded = filter
        bounded.limit = min(max(filter.limit, 1), maximumLimit)
        // One more than asked: whether an older page exists, without a count.
        var probe = bounded
        probe.limit += 1
        let found = try await store.entries(probe)
        let page = Array(found.prefix(bounded.limit))
        return (page, found.count > bounded.limit ? page.last?.auditID : nil)
    }
}
