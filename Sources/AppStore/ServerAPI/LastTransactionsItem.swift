// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `LastTransactionsItem`: one chain's status with its signed latest transaction and renewal info.
public struct LastTransactionsItem: Codable, Hashable, Sendable {
    /// Raw `status`; see `SubscriptionStatus`.
    public var rawStatus: Int?
    /// Apple's `originalTransactionId`.
    public var originalTransactionID: String?
    /// Apple's `signedTransactionInfo`.
    public var signedTransactionInfo: String?
    /// Apple's `signedRenewalInfo`.
    public var signedRenewalInfo: String?

    enum CodingKeys: String, CodingKey {
        case rawStatus = "status"
        case originalTransactionID = "originalTransactionId"
        case signedTransactionInfo, signedRenewalInfo
    }
}
