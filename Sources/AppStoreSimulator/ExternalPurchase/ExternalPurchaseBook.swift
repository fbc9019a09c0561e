import AppStore
import SubLedgerCore

/// The External Purchase tokens the simulator issued and the reports it accepted for them.
struct ExternalPurchaseBook: Sendable {
    /// A token StoreKit's external purchase API gave an app (`POST /control/apps/{bundle_id}/external-purchase-tokens`).
    struct Token: Sendable, Hashable {
        var token: ExternalPurchaseToken
        var bundleID: String
        var environment: StoreEnvironment
        /// The base64url JSON the app receives.
        var encoded: String
    }

    /// Reports and line items are an app's own in one environment, as Apple keeps them apart.
    struct Scope: Sendable, Hashable {
        var bundleID: String
        var environment: StoreEnvironment
    }

    struct ReportKey: Sendable, Hashable {
        var scope: Scope
        var requestIdentifier: String
    }

    struct LineItemKey: Sendable, Hashable {
        var scope: Scope
        var lineItemID: String
    }

    /// What later line items may reference of an accepted one.
    struct AcceptedLineItem: Sendable, Hashable {
        var externalPurchaseID: String
        var eventType: ExternalPurchaseEventType?
        var rawSubscriptionEvent: String?
    }

    var tokens: [String: Token] = [:]
    var reports: [ReportKey: ExternalPurchaseReport] = [:]
    var lineItems: [LineItemKey: AcceptedLineItem] = [:]
    /// Every accepted report in the order received (`GET /control/external-purchase-reports`).
    var received: [ReceivedExternalPurchaseReport] = []
}

/// A report the simulator accepted, as `GET /control/external-purchase-reports` lists it.
public struct ReceivedExternalPurchaseReport: Sendable, Hashable, Codable {
    public var bundleID: String
    public var environment: StoreEnvironment
    public var requestIdentifier: String
    public var externalPurchaseID: String
    /// `LINE_ITEM`, `NO_LINE_ITEM`, `UNRECOGNIZED_TOKEN` or `DUPLICATE_TOKEN`.
    public var status: String
    /// Each line item's `lineItemId`, `eventType` and `productType` joined by `/` (`li-1/BUY/SUBSCRIPTION`).
    public var lineItems: [String]
    /// When it was accepted, milliseconds since 1970 on the simulated clock.
    public var receivedAt: Int64
}

/// An external purchase token as `POST /control/apps/{bundle_id}/external-purchase-tokens` answers it.
public struct IssuedExternalPurchaseToken: Sendable, Hashable, Codable {
    /// The string StoreKit hands the app: base64url of the token's JSON.
    public var token: String
    public var externalPurchaseID: String
    public var bundleID: String
    public var appAppleID: Int64
    /// Milliseconds since 1970.
    public var tokenCreationDate: Int64
    public var tokenType: String?
    public var environment: StoreEnvironment
}

/// Body of `POST /control/apps/{bundle_id}/external-purchase-tokens`.
public struct ExternalPurchaseTokenRequest: Sendable, Codable {
    /// `ACQUISITION`, `SERVICES`, `IN_APP` or `LINK_OUT` for a custom link token; absent for a plain one.
    public var tokenType: String?
    /// `Sandbox` (default) or `Production`.
    public var environment: StoreEnvironment?

    /// Creates a request.
    public init(tokenType: String? = nil, environment: StoreEnvironment? = nil) {
        self.tokenType = tokenType
        self.environment = environment
    }
}

/// Body of `POST /control/external-purchase-tokens/{external_purchase_id}/notify`.
struct ExternalPurchaseNotificationRequest: Sendable, Codable {
    /// Apple's `subtype`: `UNREPORTED` (default) or `ACTIVE_TOKEN_REMINDER`.
    var subtype: String?
}
