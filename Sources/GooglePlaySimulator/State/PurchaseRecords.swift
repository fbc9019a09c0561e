import GooglePlay
import SubLedgerCore

/// One subscription purchase token and everything the simulator knows of it.
struct SubscriptionRecord: Sendable {
    enum Status: String, Sendable, Codable {
        case pending, pendingPurchaseCanceled, active, canceled, inGracePeriod, onHold, paused, expired

        /// Bought with a payment method that completes later: not yet (or never) granted.
        var isPending: Bool { self == .pending || self == .pendingPurchaseCanceled }
    }

    var token: String
    var packageName: String
    var productId: String
    var basePlanId: String
    var offerId: String?
    var offerTags: [String]?
    var billingPeriod: BillingPeriod
    var priceMicros: Int64
    var currencyCode: String
    var gracePeriodDays: Int
    var accountHoldDays: Int
    var accountId: String?
    var profileId: String?
    var isTest: Bool
    var regionCode: String
    /// When the subscription was granted (`startTime`; a pending purchase's completion); its acknowledgement is
    /// due three days later.
    var startTime: Instant
    /// Paid through: the end of the current (or last) paid period.
    var periodEnd: Instant
    var status: Status
    var autoRenew: Bool
    /// Renewals fail from now on (until billing recovery).
    var billingFailing: Bool = false
    var acknowledged: Bool = false
    /// The first order's id (`GPA.…`); renewal orders append `..0`, `..1`, …
    var orderBase: String
    /// How many renewal orders there were.
    var renewals: Int = 0
    var linkedPurchaseToken: String?
    var cancellation: CanceledStateContext.Initiator?
    var cancelTime: Instant?
    var graceEnd: Instant?
    var holdEnd: Instant?
    /// A pause the user scheduled, starting at the period's end, lasting this long.
    var scheduledPauseMilliseconds: Int64?
    var autoResume: Instant?
    /// When it expired (for Google's 410 on tokens expired long ago).
    var expiredAt: Instant?
    /// Refunded and revoked: never entitles again.
    var revoked: Bool = false
    /// The token that replaced this one (upgrade or downgrade).
    var replacedBy: String?
    /// The offer's free trial, in days; the first period is the trial (3 minutes for a license tester).
    var freeTrialDays: Int?
    /// Every order of the token, oldest first: the first order, then each renewal (`..0`, `..1`, …).
    var orders: [SubscriptionOrderRecord] = []

    /// In the free trial: the first period of an offer with one, before any renewal.
    var isInFreeTrial: Bool { freeTrialDays != nil && renewals == 0 }

    /// The end of the first period from `start`: the free trial's (3 minutes for a license tester), or a period.
    func firstPeriodEnd(after start: Instant) -> Instant {
        guard let days = freeTrialDays else { return periodEnd(after: start) }
        return start.adding(milliseconds: isTest ? 3 * Timing.minute : Int64(days) * Timing.day)
    }

    var latestOrderId: String { renewals == 0 ? orderBase : "\(orderBase)..\(renewals - 1)" }

    /// Records the latest order (`latestOrderId`), paying for the period from `periodStart` to the current
    /// `periodEnd`, created at `createdAt`; an order of the same id (a pending purchase's) is replaced.
    mutating func recordOrder(periodStart: Instant, at createdAt: Instant, state: OrderState = .processed) {
        let order = SubscriptionOrderRecord(
            orderId: latestOrderId, createdAt: createdAt, lastEventAt: createdAt, periodStart: periodStart,
            periodEnd: periodEnd, priceMicros: isInFreeTrial ? 0 : priceMicros, currencyCode: currencyCode,
            offerPhase: isInFreeTrial ? .freeTrial : .base, state: state)
        if let index = orders.firstIndex(where: { $0.orderId == order.orderId }) {
            orders[index] = order
        } else {
            orders.append(order)
        }
    }

    /// A renewal order: the next order id, paying for a period from `periodStart`, created at `createdAt`.
    mutating func renew(periodStart: Instant, at createdAt: Instant) {
        renewals += 1
        periodEnd = periodEnd(after: periodStart)
        recordOrder(periodStart: periodStart, at: createdAt)
    }

    /// The latest order, refunded at `at`.
    mutating func refundLatestOrder(at: Instant) {
        guard let index = orders.indices.last else { return }
        orders[index].state = .refunded
        orders[index].lastEventAt = at
    }

    /// Until when it entitles: the grace period's end while in it, else the paid period's end.
    var expiry: Instant {
        if status == .inGracePeriod, let graceEnd { return graceEnd }
        return periodEnd
    }

    var acknowledgementDeadline: Instant { startTime.adding(milliseconds: Timing.acknowledgementWindow) }

    /// When the clock next changes this subscription by itself (a renewal, the end of a grace period, a hold or
    /// a pause, an expiry); `nil` when nothing is due.
    var nextStateChange: Instant? {
        switch status {
        case .active, .canceled: periodEnd
        case .inGracePeriod: graceEnd
        case .onHold: holdEnd
        case .paused: autoResume
        case .pending, .pendingPurchaseCanceled, .expired: nil
        }
    }

    /// The end of a period starting at `start`: the base plan's calendar period, or for a license tester's
    /// purchase Google's test length (a week or a month 5 minutes, 3 months 10, 6 months 15, a year 30).
    func periodEnd(after start: Instant) -> Instant {
        guard isTest else { return billingPeriod.end(after: start) }
        let minutes: Int64 =
            switch billingPeriod {
            case .oneWeek, .oneMonth: 5
            case .threeMonths: 10
            case .sixMonths: 15
            case .oneYear: 30
            }
        return start.adding(milliseconds: minutes * Timing.minute)
    }

    /// The grace period's length: its days, or 5 minutes for a license tester's purchase.
    var gracePeriod: Int64 {
        isTest && gracePeriodDays > 0 ? 5 * Timing.minute : Int64(gracePeriodDays) * Timing.day
    }

    /// The account hold's length: its days, or 10 minutes for a license tester's purchase.
    var accountHold: Int64 {
        isTest && accountHoldDays > 0 ? 10 * Timing.minute : Int64(accountHoldDays) * Timing.day
    }
}

/// One order of a subscription token, as `orders.get` answers it.
struct SubscriptionOrderRecord: Sendable {
    var orderId: String
    var createdAt: Instant
    /// When the order last changed (its creation, its completion or refund).
    var lastEventAt: Instant
    /// The period the order paid for.
    var periodStart: Instant
    var periodEnd: Instant
    /// What the buyer paid (no tax in the simulator); 0 for a free trial.
    var priceMicros: Int64
    var currencyCode: String
    var offerPhase: OrderOfferPhase
    var state: OrderState
}

/// One one-time product purchase token.
struct OneTimePurchaseRecord: Sendable {
    var token: String
    var packageName: String
    var productId: String
    var orderId: String
    var purchaseTime: Instant
    var quantity: Int32
    var consumable: Bool
    var accountId: String?
    var profileId: String?
    var isTest: Bool
    var regionCode: String
    var acknowledged: Bool = false
    var consumed: Bool = false
    /// Bought with a payment method that completes later (purchase state 2) until completed or canceled.
    var pending: Bool = false
    /// A pending purchase the user never paid: canceled (purchase state 1), never granted.
    var pendingCanceled: Bool = false
    /// When payment completed (the purchase time, unless it was pending); the acknowledgement is due three days
    /// later.
    var completedAt: Instant?
    /// Refunded (purchase state 1, canceled).
    var refunded: Bool = false
    var refundedQuantity: Int32 = 0

    var acknowledgementDeadline: Instant? {
        pending || pendingCanceled
            ? nil : (completedAt ?? purchaseTime).adding(milliseconds: Timing.acknowledgementWindow)
    }
}

/// A voided purchase, as `purchases.voidedpurchases.list` lists it.
struct VoidedRecord: Sendable {
    var packageName: String
    var token: String
    var orderId: String
    var purchaseTime: Instant
    var voidedTime: Instant
    var source: Int32
    var reason: Int32
    var isSubscription: Bool
    var voidedQuantity: Int32?

    var wire: VoidedPurchase {
        VoidedPurchase(
            purchaseToken: token, purchaseTimeMillis: String(purchaseTime.millisecondsSince1970),
            voidedTimeMillis: String(voidedTime.millisecondsSince1970), orderId: orderId, voidedSource: source,
            voidedReason: reason, voidedQuantity: voidedQuantity)
    }
}

/// Google Play's fixed times.
enum Timing {
    static let minute: Int64 = 60_000
    static let day: Int64 = 86_400_000
    /// A license tester's subscription renews at most this many times, then Google cancels it.
    static let testRenewalLimit = 6
    /// A purchase not acknowledged within three days is refunded.
    static let acknowledgementWindow: Int64 = 3 * day
    /// A subscription expired longer than this answers 410.
    static let queryableAfterExpiry: Int64 = 60 * day
    /// `voidedpurchases.list` looks back at most 30 days.
    static let voidedLookBack: Int64 = 30 * day
}
