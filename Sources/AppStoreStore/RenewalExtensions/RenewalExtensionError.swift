import SubLedgerUseCases

/// Why a renewal-date extension was refused, before Apple was called or by Apple.
///
/// `code` is stable and machine-readable; `message` is for people and never contains keys or tokens.
public struct RenewalExtensionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of refusal, each with its stable code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// `days` is outside Apple's 1 to 90.
        case invalidDays = "invalid_days"
        /// The reason is not one of Apple's four.
        case invalidReason = "invalid_reason"
        /// A request identifier that is empty or longer than Apple's 128 characters.
        case invalidRequestIdentifier = "invalid_request_identifier"
        /// A storefront code that is not ISO 3166-1 alpha-3 (`USA`), or an empty list.
        case invalidStorefront = "invalid_storefront"
        /// No app under that bundle id, or several apps and none named.
        case unknownApp = "unknown_app"
        /// The ledger holds no subscription with that original transaction id.
        case unknownSubscription = "unknown_subscription"
        /// The catalog has no such product.
        case unknownProduct = "unknown_product"
        /// The chain or product is not an auto-renewable subscription.
        case notAutoRenewable = "not_auto_renewable"
        /// The subscription is not active (expired, revoked, in billing retry or grace): Apple would refuse it.
        case notActive = "not_active"
        /// The subscription already had Apple's maximum of two extensions within 365 days.
        case extensionLimitReached = "extension_limit_reached"
        /// The app has no Server API key in the catalog's secrets.
        case noServerAPICredentials = "no_server_api_credentials"
        /// No mass request with that identifier (for that product) is recorded.
        case unknownRequest = "unknown_request"
        /// Apple refused the request (its error code is in the message).
        case appleRefused = "apple_refused"
        /// Apple could not be reached or failed; the request may be retried with the same request identifier.
        case appleUnavailable = "apple_unavailable"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
