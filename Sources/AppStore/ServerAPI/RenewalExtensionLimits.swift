import SubLedgerCore

/// Apple's limits on renewal-date extensions, checked before Apple is called.
///
/// One extension moves a renewal date by 1 to 90 days; a subscription gets at most two extensions in any
/// 365 days (Apple answers `SubscriptionMaxExtensionError`, 4030005, beyond that); only an active
/// auto-renewable subscription is eligible (`SubscriptionExtensionIneligibleError`, 4030004).
public enum RenewalExtensionLimits {
    /// The fewest days one extension may add.
    public static let minimumDays = 1
    /// The most days one extension may add.
    public static let maximumDays = 90
    /// How many extensions one subscription may receive within `window`.
    public static let maximumPerWindow = 2
    /// The window the count is taken over: 365 days.
    public static let windowMilliseconds: Int64 = 365 * 86_400_000
    /// The longest `requestIdentifier` Apple accepts.
    public static let maximumRequestIdentifierLength = 128

    /// Whether `days` is a number of days Apple accepts.
    public static func acceptsDays(_ days: Int) -> Bool { (minimumDays...maximumDays).contains(days) }

    /// The start of the window that ends at `now`: extensions requested after it count.
    public static func windowStart(endingAt now: Instant) -> Instant { now.adding(milliseconds: -windowMilliseconds) }
}
