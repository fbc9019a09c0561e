import SubLedgerCore

/// A validated request for offer signatures: which account, which product of the app's catalog, and the
/// optional offer identifier, app account token and customer transaction id.
public struct OfferSignatureRequest: Sendable, Hashable {
    public var account: AccountID
    /// An auto-renewable subscription of the app's catalog.
    public var product: Product
    /// The product's subscription group (the catalog requires one for auto-renewables).
    public var subscriptionGroupID: String
    /// The promotional offer to sign, as set up in App Store Connect; `nil` asks for eligibility only.
    public var offerIdentifier: String?
    /// The `appAccountToken` the app will pass with a StoreKit 1 promotional offer, lowercased.
    public var appAccountToken: String?
    /// A transaction id of the customer (or its app transaction id) for the StoreKit 2 JWS; `nil` lets the
    /// ledger pick the account's latest transaction.
    public var transactionID: String?

    /// The longest offer identifier accepted. App Store Connect's identifiers are short names; this bounds
    /// what a request can make SubLedger sign.
    public static let maximumOfferIdentifierLength = 255

    /// Validates every field against `app`'s catalog; throws the first refusal.
    public init(
        accountID: String?, productID: String?, offerIdentifier: String?, appAccountToken: String?,
        transactionID: String?, app: App
    ) throws(OfferError) {
        guard let accountID else { throw OfferError(.missingAccountID, "'account_id' is required") }
        do {
            account = try AccountID(accountID)
        } catch {
            throw OfferError(.invalidAccountID, IdentifierRule.accountID.summary)
        }
        guard let productID else { throw OfferError(.missingProductID, "'product_id' is required") }
        guard IdentifierRule.productID.accepts(productID) else {
            throw OfferError(.invalidProductID, IdentifierRule.productID.summary)
        }
        guard let product = app.product(productID) else {
            throw OfferError(.unknownProduct, "'\(productID)' is not a product of \(app.bundleID)")
        }
        guard product.type == .autoRenewable, let group = product.subscriptionGroupID, !group.isEmpty else {
            throw OfferError(
                .productNotAutoRenewable,
                "'\(productID)' is \(product.type.rawValue): Apple's introductory and promotional offers exist only "
                    + "for auto-renewable subscriptions")
        }
        self.product = product
        subscriptionGroupID = group
        if let offerIdentifier {
            // Apple's offer identifiers are names of letters, digits, '.', '_' and '-'; the narrow set also keeps
            // U+2063, the StoreKit 1 message's separator, out of the signed fields.
            guard IdentifierRule.productID.accepts(offerIdentifier) else {
                throw OfferError(
                    .invalidOfferIdentifier,
                    "an offer identifier has 1 to \(Self.maximumOfferIdentifierLength) characters from "
                        + "A-Z a-z 0-9 . _ -")
            }
        }
        self.offerIdentifier = offerIdentifier
        if let appAccountToken {
            guard let token = try? OrderID(appAccountToken) else {
                throw OfferError(
                    .invalidAppAccountToken, "'app_account_token' must be a UUID (8-4-4-4-12 hexadecimal digits)")
            }
            self.appAccountToken = token.rawValue.lowercased()
        } else {
            self.appAccountToken = nil
        }
        if let transactionID {
            guard IdentifierRule.transactionID.accepts(transactionID) else {
                throw OfferError(.invalidTransactionID, IdentifierRule.transactionID.summary)
            }
        }
        self.transactionID = transactionID
    }
}
