import SubLedgerStore

/// The audit log of what admin and support keys did (docs/guides/accounts.md, "Roles and the audit log"):
/// written by the authorization of each audited request, read a bounded page at a time.
public struct AuditLog: Sendable {
    /// One entry, as written and as read back.
    public typealias Entry = AuditLogStore.Entry
    /// Which entries a page holds.
    public typealias Filter = AuditLogStore.Filter

    let store: AuditLogStore

    public init(store: AuditLogStore) {
        self.store = store
    }

    /// Writes `entry`.
    public func append(_ entry: Entry) async throws {
        try await store.append(entry)
    }

    /// The page `filter` asks for, as `GET /v1/admin/audit` answers it.
    public func listing(_ filter: Filter) async throws -> AuditListing {
        try await AuditListing.read(filter, from: store)
    }

    /// The entries of the page `filter` asks for, newest first, and the `before` of the next (older) page.
    public func page(_ filter: Filter) async throws -> (entries: [Entry], nextBefore: Int64?) {
        try await AuditListing.page(filter, from: store)
    }
}
