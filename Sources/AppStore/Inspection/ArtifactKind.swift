/// The kinds of Apple artifact `ArtifactInspector` recognizes.
public enum ArtifactKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A JWS `JWSTransactionDecodedPayload`.
    case signedTransaction
    /// A JWS `JWSRenewalInfoDecodedPayload`.
    case signedRenewalInfo
    /// A V2 notification: the `{"signedPayload": ...}` body or the bare JWS.
    case notificationV2
    /// A JWS `AppTransaction`.
    case signedAppTransaction
    /// A legacy V1 notification JSON body.
    case notificationV1
    /// A base64 PKCS#7 app receipt.
    case appReceipt
    /// An iOS 6 style transaction receipt (`SKPaymentTransaction.transactionReceipt`), whose transaction id
    /// is read offline as Apple's `ReceiptUtility` does; only verifyReceipt can verify it.
    case transactionReceipt
    /// Nothing this tool knows.
    case unrecognized
}
