/// `RevokeSubscriptionPurchaseRequest` (`purchases.subscriptionsv2.revoke`): end the subscription now, with
/// one kind of refund.
public struct RevokeSubscriptionPurchaseRequest: Codable, Hashable, Sendable {
    public var revocationContext: RevocationContext?

    public init(revocationContext: RevocationContext?) { self.revocationContext = revocationContext }
}

/// `RevocationContext`: exactly one member is present.
public struct RevocationContext: Codable, Hashable, Sendable {
    /// Refund the latest order in full.
    public var fullRefund: EmptyContext?
    /// Refund the unused part of the latest order.
    public var proratedRefund: EmptyContext?
    /// Refund one item of a multi-item subscription.
    public var itemBasedRefund: EmptyContext?

    public init(
        fullRefund: EmptyContext? = nil, proratedRefund: EmptyContext? = nil, itemBasedRefund: EmptyContext? = nil
    ) {
        self.fullRefund = fullRefund
        self.proratedRefund = proratedRefund
        self.itemBasedRefund = itemBasedRefund
    }

    /// How many members are present (a valid context has exactly one).
    public var memberCount: Int {
        [fullRefund != nil, proratedRefund != nil, itemBasedRefund != nil].filter { $0 }.count
    }
}

/// `CancelSubscriptionPurchaseRequest` (`purchases.subscriptionsv2.cancel`).
public struct CancelSubscriptionPurchaseRequest: Codable, Hashable, Sendable {
    public var cancellationContext: CancellationContext?

    public init(cancellationContext: CancellationContext?) { self.cancellationContext = cancellationContext }
}

/// `CancellationContext`.
public struct CancellationContext: Codable, Hashable, Sendable {
    public var cancellationType: CancellationType?

    public init(cancellationType: CancellationType?) { self.cancellationType = cancellationType }
}

/// `CancellationContext.cancellationType`.
public struct CancellationType: GoogleEnumeration {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: "CANCELLATION_TYPE_UNSPECIFIED")
    /// Stop renewing; the user keeps the paid period.
    public static let userRequestedStopRenewals = Self(rawValue: "USER_REQUESTED_STOP_RENEWALS")
    /// Stop the payments the developer collects (installments); treated like stopping renewals.
    public static let developerRequestedStopPayments = Self(rawValue: "DEVELOPER_REQUESTED_STOP_PAYMENTS")
}

/// `DeferSubscriptionPurchaseRequest` (`purchases.subscriptionsv2.defer`): move the next renewal later.
public struct DeferSubscriptionPurchaseRequest: Codable, Hashable, Sendable {
    public var deferralContext: DeferralContext?

    public init(deferralContext: DeferralContext?) { self.deferralContext = deferralContext }
}

/// `DeferralContext`.
public struct DeferralContext: Codable, Hashable, Sendable {
    /// A protobuf duration: seconds with an `s`, e.g. `"86400s"`.
    public var deferDuration: String?
    public var etag: String?
    public var validateOnly: Bool?

    public init(deferDuration: String?, etag: String? = nil, validateOnly: Bool? = nil) {
        self.deferDuration = deferDuration
        self.etag = etag
        self.validateOnly = validateOnly
    }

    /// `deferDuration` in whole seconds: digits (at most 12) followed by `s`, optionally with a fraction that is
    /// dropped; `nil` otherwise.
    public var deferSeconds: Int64? {
        guard var text = deferDuration, text.hasSuffix("s"), text.utf8.count <= 24 else { return nil }
        text.removeLast()
        let whole = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = whole.first, first.utf8.count <= 12, let seconds = GoogleInt64.parse(String(first)),
            seconds >= 0
        else { return nil }
        if whole.count == 2, whole[1].isEmpty || !whole[1].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) { return nil }
        return seconds
    }
}

/// `DeferSubscriptionPurchaseResponse`.
public struct DeferSubscriptionPurchaseResponse: Codable, Hashable, Sendable {
    public var itemExpiryTimeDetails: [ItemExpiryTimeDetails]?

    public init(itemExpiryTimeDetails: [ItemExpiryTimeDetails]?) { self.itemExpiryTimeDetails = itemExpiryTimeDetails }
}

/// `ItemExpiryTimeDetails`.
public struct ItemExpiryTimeDetails: Codable, Hashable, Sendable {
    public var productId: String?
    /// The item's new expiry (RFC 3339).
    public var expiryTime: String?

    public init(productId: String?, expiryTime: String?) {
        self.productId = productId
        self.expiryTime = expiryTime
    }
}

/// `SubscriptionPurchasesAcknowledgeRequest` and `ProductPurchasesAcknowledgeRequest`: an optional payload.
public struct AcknowledgeRequest: Codable, Hashable, Sendable {
    public var developerPayload: String?

    public init(developerPayload: String? = nil) { self.developerPayload = developerPayload }
}
