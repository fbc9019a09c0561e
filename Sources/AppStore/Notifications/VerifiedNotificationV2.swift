import SubLedgerCore

/// A version 2 notification whose signed payload and nested signed items all verified.
public struct VerifiedNotificationV2: Sendable {
    /// The decoded notification payload.
    public var payload: ResponseBodyV2DecodedPayload
    /// The verified `signedTransactionInfo`, when the notification carries one.
    public var transaction: JWSTransactionDecodedPayload?
    /// The verified `signedRenewalInfo`, when the notification carries one.
    public var renewalInfo: JWSRenewalInfoDecodedPayload?
    /// The verified `appData.signedAppTransactionInfo`, when the notification carries one.
    public var appTransaction: AppTransaction?
    /// The notification mapped to the core.
    public var notification: ServerNotification
    /// An `EXTERNAL_PURCHASE_TOKEN` notification's token, checked; `nil` for other notifications.
    public var externalPurchaseToken: CheckedExternalPurchaseToken? = nil
}
