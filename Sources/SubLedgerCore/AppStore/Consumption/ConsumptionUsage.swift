/// What the app server reported about a customer's use of one purchase; every field optional.
public struct ConsumptionUsage: Hashable, Sendable, Codable {
    /// The share of the purchase consumed, in milliunits (0...100 000 = 0 %...100 %).
    public var consumedMilliunits: Int?
    /// How long the customer used the purchase, in minutes.
    public var playTimeMinutes: Int64?
    /// Whether a free sample, trial or description was offered before the purchase.
    public var sampleContentProvided: Bool?
    /// Whether the app delivered the purchase and it works.
    public var deliveryStatus: ConsumptionDeliveryStatus?

    public init(
        consumedMilliunits: Int? = nil, playTimeMinutes: Int64? = nil, sampleContentProvided: Bool? = nil,
        deliveryStatus: ConsumptionDeliveryStatus? = nil
    ) {
        self.consumedMilliunits = consumedMilliunits
        self.playTimeMinutes = playTimeMinutes
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
    }

    /// True when no field is set.
    public var isEmpty: Bool {
        consumedMilliunits == nil && playTimeMinutes == nil && sampleContentProvided == nil && deliveryStatus == nil
    }

    /// This report's fields, each replaced by `newer`'s where `newer` states it.
    public func updated(with newer: ConsumptionUsage) -> ConsumptionUsage {
        ConsumptionUsage(
            consumedMilliunits: newer.consumedMilliunits ?? consumedMilliunits,
            playTimeMinutes: newer.playTimeMinutes ?? playTimeMinutes,
            sampleContentProvided: newer.sampleContentProvided ?? sampleContentProvided,
            deliveryStatus: newer.deliveryStatus ?? deliveryStatus)
    }
}
