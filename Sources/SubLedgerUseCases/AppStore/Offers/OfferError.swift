/// Why offer signatures could not be made, with a stable code; `HTTPErrorMapping` gives each its status.
/// Messages name the field and the rule, never the key or a token.
public struct OfferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of refusal, each with its stable code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case missingAccountID = "missing_account_id"
        case invalidAccountID = "invalid_account_id"
        case missingProductID = "missing_product_id"
        case invalidProductID = "invalid_product_id"
        /// The catalog has no such product for the key's app.
        case unknownProduct = "unknown_product"
        /// Apple has introductory and promotional offers only for auto-renewable subscriptions.
        case productNotAutoRenewable = "product_not_auto_renewable"
        case invalidOfferIdentifier = "invalid_offer_identifier"
        /// Not a UUID: Apple's `appAccountToken` is one.
        case invalidAppAccountToken = "invalid_app_account_token"
        case invalidTransactionID = "invalid_transaction_id"
        /// The catalog gives the app no In-App Purchase key (`server_api`).
        case keyNotConfigured = "offer_key_not_configured"
        /// The configured key cannot sign: not a P-256 `.p8` key, or an unusable key id or issuer id.
        case keyUnusable = "offer_key_unusable"
        /// Signing failed although the key was read (not expected to happen).
        case signingFailed = "offer_signing_failed"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
