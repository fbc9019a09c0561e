/// Why a support lookup could not answer, with a stable code; `HTTPErrorMapping` gives each its status and the
/// `subledger support` command prints the message. Messages never contain keys, tokens or Apple's bodies.
public struct SupportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of refusal, each with its stable code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Not an Apple order id (5 to 32 letters and digits).
        case invalidOrderID = "invalid_order_id"
        /// Not a transaction id.
        case invalidTransactionID = "invalid_transaction_id"
        /// Not an app account token (a UUID).
        case invalidAppAccountToken = "invalid_app_account_token"
        /// Not an account id.
        case invalidAccountID = "invalid_account_id"
        /// Several apps are configured and the lookup named none.
        case appRequired = "bundle_id_required"
        /// No app has the bundle id the lookup named.
        case unknownApp = "unknown_app"
        /// Apple answered that no order has this id (status 1 in every environment of the app).
        case orderNotFound = "order_not_found"
        /// Neither the ledger nor Apple knows the transaction id.
        case transactionNotFound = "transaction_not_found"
        /// No order and no transaction carries the app account token.
        case appAccountTokenNotFound = "app_account_token_not_found"
        /// The app has no such account.
        case accountNotFound = "account_not_found"
        /// Not an app transaction id (Apple's are digit strings up to 64 characters).
        case invalidAppTransactionID = "invalid_app_transaction_id"
        /// No transaction and no claimed app purchase of the app carries the app transaction id.
        case appTransactionNotFound = "app_transaction_not_found"
        /// Not a Google Play purchase token (1 to 1024 characters from `A-Z a-z 0-9 . _ -`).
        case invalidPurchaseToken = "invalid_purchase_token"
        /// No Google Play purchase of the app was bought under the purchase token.
        case purchaseTokenNotFound = "purchase_token_not_found"
        /// Not a Stripe customer, subscription, invoice, charge or payment intent id (`cus_`, `sub_`, `in_`, `ch_` or
        /// `pi_` and up to 64 characters from `A-Z a-z 0-9 . _ -` in all).
        case invalidStripeID = "invalid_stripe_id"
        /// No Stripe purchase of the app names the customer, subscription, invoice, charge or payment intent.
        case stripeIDNotFound = "stripe_id_not_found"
        /// Not an id of the store the lookup names (`StoreSupportID`: its prefix, then letters and digits).
        case invalidStoreID = "invalid_store_id"
        /// No purchase of the app that the store sold names the id.
        case storeIDNotFound = "store_id_not_found"
        /// Asking Apple needs the app's App Store Server API key, and the catalog gives none.
        case serverAPINotConfigured = "server_api_not_configured"
        /// Apple could not be reached, failed, or the circuit breaker is open; retry after `retryAfter`.
        case appleUnavailable = "apple_unavailable"
        /// Apple refused the request for a reason a retry cannot fix (credentials, a malformed answer).
        case appleRefused = "server_api_error"
    }

    public let code: Code
    public let message: String
    /// For `appleUnavailable`: how long to wait before asking again.
    public let retryAfter: Duration?

    public init(_ code: Code, _ message: String, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String {
        "\(code.rawValue): \(message)" + (retryAfter.map { " (retry in \($0.components.seconds) s)" } ?? "")
    }
}
