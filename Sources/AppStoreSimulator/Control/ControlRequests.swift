// Bodies of the control API's smaller operations.

/// Refund a transaction.
public struct RefundRequest: Sendable, Codable, Hashable {
    /// Apple's `cancellation_reason`: 0 other, 1 an issue in the app. Default: 0.
    public var reason: Int?
    /// The refund date, milliseconds since 1970. Default: now.
    public var date: Int64?

    /// Creates a request.
    public init(reason: Int? = nil, date: Int64? = nil) {
        self.reason = reason
        self.date = date
    }
}

/// Turn auto-renew on or off.
public struct AutoRenewRequest: Sendable, Codable, Hashable {
    /// The new auto-renew status.
    public var enabled: Bool

    /// Creates a request.
    public init(enabled: Bool) { self.enabled = enabled }
}

/// Change the product of a subscription within its group.
public struct ChangeProductRequest: Sendable, Codable, Hashable {
    /// The product to change to.
    public var productID: String

    /// Creates a request.
    public init(productID: String) { self.productID = productID }
}

/// Share a purchase with a family member.
public struct FamilyShareRequest: Sendable, Codable, Hashable {
    /// The family member's Apple ID.
    public var appleID: String

    /// Creates a request.
    public init(appleID: String) { self.appleID = appleID }
}

/// Start a billing problem on a subscription.
public struct BillingFailureRequest: Sendable, Codable, Hashable {
    /// Fail now: end the current period at the current time instead of waiting for its expiry. Default: false.
    public var immediately: Bool?

    /// Creates a request.
    public init(immediately: Bool? = nil) { self.immediately = immediately }
}

/// Move the clock.
public struct ClockAdvanceRequest: Sendable, Codable, Hashable {
    /// Milliseconds to add.
    public var milliseconds: Int64?
    /// Seconds to add.
    public var seconds: Int64?
    /// Minutes to add.
    public var minutes: Int64?
    /// Hours to add.
    public var hours: Int64?
    /// Days to add.
    public var days: Int64?

    /// Creates a request; the parts add up.
    public init(
        milliseconds: Int64? = nil, seconds: Int64? = nil, minutes: Int64? = nil, hours: Int64? = nil,
        days: Int64? = nil
    ) {
        self.milliseconds = milliseconds
        self.seconds = seconds
        self.minutes = minutes
        self.hours = hours
        self.days = days
    }

    /// The total span in milliseconds.
    public var totalMilliseconds: Int64 {
        (milliseconds ?? 0) + (seconds ?? 0) * 1000 + (minutes ?? 0) * 60_000 + (hours ?? 0) * 3_600_000
            + (days ?? 0) * 86_400_000
    }
}

/// The clock's state.
public struct ClockDescription: Sendable, Codable, Hashable {
    /// `manual` or `accelerated`.
    public var mode: String
    /// Simulated now, milliseconds since 1970.
    public var now: Int64
    /// The acceleration factor.
    public var acceleration: Double
    /// Notifications created while processing due renewals and expiries.
    public var notificationUUIDs: [String]
}
