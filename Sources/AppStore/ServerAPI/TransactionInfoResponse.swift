// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `TransactionInfoResponse` (Get Transaction Info).
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    /// Apple's `signedTransactionInfo`.
    public var signedTransactionInfo: String?
}
