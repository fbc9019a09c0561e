/// Computes the answer to Apple's `CONSUMPTION_REQUEST` from ledger facts, the app's reports and its policy.
///
/// The rules, in order:
/// - nothing is sent when the app's policy is disabled, or no consent is in force for the owning account;
/// - `deliveryStatus` is what the app reported, else `delivered` when the ledger credited the purchase to an
///   account, else `undelivered_other`;
/// - `consumptionPercentage` is 0 when the purchase was not delivered (Apple fails the request otherwise),
///   left out for auto-renewable subscriptions (Apple computes it) and when nothing was reported, else the
///   reported share;
/// - the V1 buckets follow Apple's tables (tenure in days, lifetime dollars, play time) and are `0`
///   (undeclared) whenever the input is unknown, for example lifetime dollars when a price is missing or
///   not in USD.
public enum ConsumptionAnswer {
    /// The decision for `facts` under `policy` at `now`.
    public static func decide(_ facts: ConsumptionFacts, policy: ConsumptionPolicy, now: Instant) -> ConsumptionDecision
    {
        guard policy.enabled else { return .skip(.disabled) }
        guard facts.account != nil, let consent = facts.consent, consent.isGranted(at: now) else {
            return .skip(.noConsent)
        }
        let delivery = facts.usage.deliveryStatus ?? (facts.account == nil ? .undeliveredOther : .delivered)
        let consumed: Int?
        if delivery != .delivered {
            consumed = 0
        } else if facts.productType == .autoRenewable {
            consumed = nil
        } else {
            consumed = facts.usage.consumedMilliunits
        }
        return .send(
            ConsumptionInformation(
                customerConsented: true,
                sampleContentProvided: facts.usage.sampleContentProvided ?? policy.sampleContentProvided,
                deliveryStatus: delivery,
                consumptionMilliunits: consumed,
                refundPreference: policy.refundPreference,
                accountTenure: tenureBucket(from: facts.customerSince, to: now),
                appAccountToken: facts.appAccountToken ?? "",
                consumptionStatus: consumptionStatus(delivery == .delivered ? facts.usage.consumedMilliunits : 0),
                lifetimeDollarsPurchased: dollarsBucket(lifetimeMilliDollars(facts.purchases, refundedOnly: false)),
                lifetimeDollarsRefunded: dollarsBucket(lifetimeMilliDollars(facts.purchases, refundedOnly: true)),
                platform: 1,
                playTime: playTimeBucket(minutes: facts.usage.playTimeMinutes),
                userStatus: facts.account == nil ? 0 : 1))
    }

    /// V1 `accountTenure`: 1 for 0-3 days, 2 for 3-10, 3 for 10-30, 4 for 30-90, 5 for 90-180, 6 for 180-365,
    /// 7 beyond; 0 when unknown.
    public static func tenureBucket(from start: Instant?, to now: Instant) -> Int {
        guard let start, start <= now else { return 0 }
        let days = Double(now.millisecondsSince1970 - start.millisecondsSince1970) / 86_400_000
        let limits: [Double] = [3, 10, 30, 90, 180, 365]
        return (limits.firstIndex { days < $0 } ?? limits.count) + 1
    }

    /// V1 `lifetimeDollarsPurchased` / `lifetimeDollarsRefunded` from milli-dollars: 1 for 0, 2 for 0.01-49.99,
    /// 3 for 50-99.99, 4 for 100-499.99, 5 for 500-999.99, 6 for 1000-1999.99, 7 beyond; 0 when unknown.
    public static func dollarsBucket(_ milliDollars: Int64?) -> Int {
        guard let milliDollars, milliDollars >= 0 else { return 0 }
        if milliDollars == 0 { return 1 }
        let limits: [Int64] = [50_000, 100_000, 500_000, 1_000_000, 2_000_000]
        return (limits.firstIndex { milliDollars < $0 } ?? limits.count) + 2
    }

    /// V1 `playTime`: 1 for 0-5 minutes, 2 for 5-60, 3 for 1-6 hours, 4 for 6-24 hours, 5 for 1-4 days,
    /// 6 for 4-16 days, 7 beyond; 0 when unknown.
    public static func playTimeBucket(minutes: Int64?) -> Int {
        guard let minutes, minutes >= 0 else { return 0 }
        let limits: [Int64] = [5, 60, 360, 1_440, 5_760, 23_040]
        return (limits.firstIndex { minutes < $0 } ?? limits.count) + 1
    }

    /// V1 `consumptionStatus` from the consumed share: 1 none, 3 all, 2 in between; 0 when unknown.
    public static func consumptionStatus(_ milliunits: Int?) -> Int {
        guard let milliunits else { return 0 }
        if milliunits <= 0 { return 1 }
        return milliunits >= 100_000 ? 3 : 2
    }

    /// The account's lifetime spend (or refunds) in milli-dollars; `nil` when any price is unknown or not in USD.
    static func lifetimeMilliDollars(_ purchases: [ConsumptionFacts.Purchase], refundedOnly: Bool) -> Int64? {
        var total: Int64 = 0
        for purchase in purchases where !refundedOnly || purchase.refunded {
            guard let price = purchase.price, purchase.currency == "USD" else { return nil }
            total = total.saturatingAdding(price)
        }
        return total
    }
}
