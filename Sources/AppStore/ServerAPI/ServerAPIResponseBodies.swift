// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` verifies every signed item before returning anything to callers.

/// Apple's `HistoryResponse` (Get Transaction History v2).
public struct HistoryResponse: Codable, Hashable, Sendable {
    /// Apple's `revision`.
    public var revision: String?
    /// Apple's `hasMore`.
    public var hasMore: Bool?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Raw `environment`.
    public var rawEnvironment: String?
    /// Apple's `signedTransactions`.
    public var signedTransactions: [String]?

    enum CodingKeys: String, CodingKey {
        case revision, hasMore
        case bundleID = "bundleId"
        case appAppleID = "appAppleId"
        case rawEnvironment = "environment"
        case signedTransactions
    }
}

/// Apple's `StatusResponse` (Get All Subscription Statuses).
public struct StatusResponse: Codable, Hashable, Sendable {
    /// Raw `environment`.
    public var rawEnvironment: String?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Apple's `data`.
    public var data: [SubscriptionGroupIdentifierItem]?

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case bundleID = "bundleId"
        case appAppleID = "appAppleId"
        case data
    }
}

/// Apple's `SubscriptionGroupIdentifierItem`: the latest transactions of one subscription group.
public struct SubscriptionGroupIdentifierItem: Codable, Hashable, Sendable {
    /// Apple's `subscriptionGroupIdentifier`.
    public var subscriptionGroupIdentifier: String?
    /// Apple's `lastTransactions`.
    public var lastTransactions: [LastTransactionsItem]?
}

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

/// Apple's `TransactionInfoResponse` (Get Transaction Info).
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    /// Apple's `signedTransactionInfo`.
    public var signedTransactionInfo: String?
}

/// Apple's `OrderLookupResponse` (Look Up Order ID): `status` 0 valid, 1 invalid.
public struct OrderLookupResponse: Codable, Hashable, Sendable {
    /// Apple's `status`.
    public var status: Int?
    /// Apple's `signedTransactions`.
    public var signedTransactions: [String]?
}

/// Apple's `RefundHistoryResponse` (Get Refund History v2).
public struct RefundHistoryResponse: Codable, Hashable, Sendable {
    /// Apple's `signedTransactions`.
    public var signedTransactions: [String]?
    /// Apple's `revision`.
    public var revision: String?
    /// Apple's `hasMore`.
    public var hasMore: Bool?
}

/// Apple's `NotificationHistoryResponse` (Get Notification History).
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    /// Apple's `paginationToken`.
    public var paginationToken: String?
    /// Apple's `hasMore`.
    public var hasMore: Bool?
    /// Apple's `notificationHistory`.
    public var notificationHistory: [NotificationHistoryResponseItem]?
}

/// One notification Apple sent, with its delivery attempts.
public struct NotificationHistoryResponseItem: Codable, Hashable, Sendable {
    /// Apple's `signedPayload`.
    public var signedPayload: String?
    /// Apple's `sendAttempts`.
    public var sendAttempts: [SendAttemptItem]?
}

/// One delivery attempt of a notification.
public struct SendAttemptItem: Codable, Hashable, Sendable {
    /// Apple's `attemptDate`, milliseconds since 1970.
    public var attemptDate: Int64?
    /// Raw `sendAttemptResult` (`SUCCESS`, `TIMED_OUT`, `NO_RESPONSE`, `CIRCULAR_REDIRECT`, ...).
    public var sendAttemptResult: String?
}

/// Apple's error body `{"errorCode": ..., "errorMessage": ...}`.
public struct ServerAPIErrorBody: Codable, Hashable, Sendable {
    /// Apple's `errorCode`.
    public var errorCode: Int?
    /// Apple's `errorMessage`.
    public var errorMessage: String?
}
