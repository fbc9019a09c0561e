// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `SubscriptionGroupIdentifierItem`: the latest transactions of one subscription group.
public struct SubscriptionGroupIdentifierItem: Codable, Hashable, Sendable {
    /// Apple's `subscriptionGroupIdentifier`.
    public var subscriptionGroupIdentifier: String?
    /// Apple's `lastTransactions`.
    public var lastTransactions: [LastTransactionsItem]?
}
