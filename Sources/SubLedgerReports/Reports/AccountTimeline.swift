import PostgresLibPQ

/// Everything that happened to one account: its ledger entries, ownership bindings and entitlement changes.
public struct AccountTimeline: Sendable, Hashable, Codable {
    public var accountID: String
    /// The apps that know the account (one unless the scope spans apps using the same id).
    public var bundleIDs: [String]
    public var events: [TimelineEvent]

    // The reports' `convertToSnakeCase` would write `bundleIDs` as `bundle_i_ds`.
    enum CodingKeys: String, CodingKey {
        case accountID, events
        case bundleIDs = "bundleIds"
    }
}

extension Reports {
    /// The timeline of `accountID`, oldest first: its ledger entries, the entitlements they grant or take,
    /// and its ownership bindings (see `ReportStore.accountEvents`).
    public static func account(_ accountID: String, on connection: PostgresConnection, scope: ReportScope) throws
        -> AccountTimeline
    {
        let store = try ReportStore(on: connection, scope: scope)
        let apps = try store.accountApps(accountID)
        guard !apps.isEmpty else { throw ReportError.notFound("no account '\(accountID)' in the ledger") }
        let events = try store.accountEvents(accountID)
        return AccountTimeline(accountID: accountID, bundleIDs: apps, events: TimelineEvent.chronological(events))
    }
}
