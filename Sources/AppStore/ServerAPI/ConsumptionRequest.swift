import SubLedgerCore

/// The body of Send Consumption Information (`PUT /inApps/v2/transactions/consumption/{transactionId}`),
/// Apple's `ConsumptionRequest`.
///
/// `customerConsented`, `sampleContentProvided` and `deliveryStatus` are required; Apple refuses
/// `customerConsented` other than `true`, a `consumptionPercentage` (milliunits, 0...100 000) other than 0 when
/// `deliveryStatus` is not `DELIVERED`, and a percentage with `GRANT_PRORATED` for auto-renewables.
public struct ConsumptionRequest: Codable, Hashable, Sendable {
    /// Apple's `deliveryStatus` values.
    public static let deliveryStatuses = [
        "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE",
        "UNDELIVERED_OTHER",
    ]
    /// Apple's `refundPreference` values.
    public static let refundPreferences = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]

    public var customerConsented: Bool
    public var sampleContentProvided: Bool
    /// Raw `deliveryStatus` (`DELIVERED`, `UNDELIVERED_QUALITY_ISSUE`, ...).
    public var deliveryStatus: String
    /// The share consumed in milliunits; left out when `nil`.
    public var consumptionPercentage: Int?
    /// Raw `refundPreference` (`DECLINE`, `GRANT_FULL`, `GRANT_PRORATED`); left out when `nil`.
    public var refundPreference: String?

    public init(
        customerConsented: Bool, sampleContentProvided: Bool, deliveryStatus: String, consumptionPercentage: Int? = nil,
        refundPreference: String? = nil
    ) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }

    /// Spells SubLedger's answer as Apple's current request: `no_preference` leaves `refundPreference` out,
    /// `grant` is `GRANT_FULL`.
    public init(_ information: ConsumptionInformation) {
        self.init(
            customerConsented: information.customerConsented,
            sampleContentProvided: information.sampleContentProvided,
            deliveryStatus: Self.spelling(information.deliveryStatus),
            consumptionPercentage: information.consumptionMilliunits,
            refundPreference: Self.spelling(information.refundPreference))
    }

    /// Apple's V2 spelling of a refund preference; `nil` (left out) for no preference.
    public static func spelling(_ preference: ConsumptionRefundPreference) -> String? {
        switch preference {
        case .decline: "DECLINE"
        case .grant: "GRANT_FULL"
        case .grantProrated: "GRANT_PRORATED"
        case .noPreference: nil
        }
    }

    /// Apple's V2 spelling of a delivery status.
    public static func spelling(_ status: ConsumptionDeliveryStatus) -> String {
        switch status {
        case .delivered: "DELIVERED"
        case .undeliveredQualityIssue: "UNDELIVERED_QUALITY_ISSUE"
        case .undeliveredWrongItem: "UNDELIVERED_WRONG_ITEM"
        case .undeliveredServerOutage: "UNDELIVERED_SERVER_OUTAGE"
        case .undeliveredOther: "UNDELIVERED_OTHER"
        }
    }
}
