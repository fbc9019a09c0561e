import SubLedgerCore

/// The Android Publisher API's `VoidedPurchase`: a purchase that was refunded, charged back or revoked
/// (`purchases.voidedpurchases.list`).
public struct VoidedPurchase: Codable, Hashable, Sendable {
    /// The resource's kind: `androidpublisher#voidedPurchase`.
    public static let resourceKind = "androidpublisher#voidedPurchase"

    public var kind: String?
    public var purchaseToken: String?
    /// When the purchase was made, milliseconds since 1970 as text.
    public var purchaseTimeMillis: String?
    /// When it was voided, milliseconds since 1970 as text.
    public var voidedTimeMillis: String?
    /// The order voided: for a subscription, the one order (initial or renewal) that was refunded.
    public var orderId: String?
    /// Who voided it: see `Source`.
    public var voidedSource: Int32?
    /// Why: see `Reason`.
    public var voidedReason: Int32?
    /// For a quantity-based partial refund, how many were refunded.
    public var voidedQuantity: Int32?

    public init(
        kind: String? = VoidedPurchase.resourceKind, purchaseToken: String?, purchaseTimeMillis: String?,
        voidedTimeMillis: String?, orderId: String?, voidedSource: Int32?, voidedReason: Int32?,
        voidedQuantity: Int32? = nil
    ) {
        self.kind = kind
        self.purchaseToken = purchaseToken
        self.purchaseTimeMillis = purchaseTimeMillis
        self.voidedTimeMillis = voidedTimeMillis
        self.orderId = orderId
        self.voidedSource = voidedSource
        self.voidedReason = voidedReason
        self.voidedQuantity = voidedQuantity
    }

    /// `purchaseTimeMillis` read.
    public var purchaseTime: Instant? { GoogleInt64.instant(purchaseTimeMillis) }
    /// `voidedTimeMillis` read.
    public var voidedTime: Instant? { GoogleInt64.instant(voidedTimeMillis) }
    /// `voidedSource` typed.
    public var source: Source? { voidedSource.map(Source.init(rawValue:)) }
    /// `voidedReason` typed.
    public var reason: Reason? { voidedReason.map(Reason.init(rawValue:)) }

    /// `voidedSource`: 0 user, 1 developer, 2 Google; other values kept.
    public struct Source: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let user = Self(rawValue: 0)
        public static let developer = Self(rawValue: 1)
        public static let google = Self(rawValue: 2)
    }

    /// `voidedReason`: Google's numbered reasons; other values kept.
    public struct Reason: RawRepresentable, Hashable, Sendable {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let other = Self(rawValue: 0)
        public static let remorse = Self(rawValue: 1)
        public static let notReceived = Self(rawValue: 2)
        public static let defective = Self(rawValue: 3)
        public static let accidentalPurchase = Self(rawValue: 4)
        public static let fraud = Self(rawValue: 5)
        public static let friendlyFraud = Self(rawValue: 6)
        public static let chargeback = Self(rawValue: 7)
        /// Refunded by Google because it was not acknowledged within three days.
        public static let unacknowledgedPurchase = Self(rawValue: 8)
    }
}

/// `VoidedPurchasesListResponse`: a page of voided purchases; `tokenPagination.nextPageToken` asks for the next.
public struct VoidedPurchasesListResponse: Codable, Hashable, Sendable {
    public var voidedPurchases: [VoidedPurchase]?
    public var tokenPagination: TokenPagination?
    public var pageInfo: PageInfo?

    public init(voidedPurchases: [VoidedPurchase]?, tokenPagination: TokenPagination?, pageInfo: PageInfo? = nil) {
        self.voidedPurchases = voidedPurchases
        self.tokenPagination = tokenPagination
        self.pageInfo = pageInfo
    }
}

/// `TokenPagination`.
public struct TokenPagination: Codable, Hashable, Sendable {
    public var nextPageToken: String?
    public var previousPageToken: String?

    public init(nextPageToken: String?, previousPageToken: String? = nil) {
        self.nextPageToken = nextPageToken
        self.previousPageToken = previousPageToken
    }
}

/// `PageInfo`.
public struct PageInfo: Codable, Hashable, Sendable {
    public var totalResults: Int32?
    public var resultPerPage: Int32?
    public var startIndex: Int32?

    public init(totalResults: Int32?, resultPerPage: Int32?, startIndex: Int32?) {
        self.totalResults = totalResults
        self.resultPerPage = resultPerPage
        self.startIndex = startIndex
    }
}
