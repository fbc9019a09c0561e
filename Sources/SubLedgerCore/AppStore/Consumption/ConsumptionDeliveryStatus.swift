/// Whether the app delivered a purchase that works (Apple's `deliveryStatus`), in SubLedger's spelling.
public enum ConsumptionDeliveryStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// V2 `DELIVERED`, V1 `0`.
    case delivered
    /// V2 `UNDELIVERED_QUALITY_ISSUE`, V1 `1`.
    case undeliveredQualityIssue = "undelivered_quality_issue"
    /// V2 `UNDELIVERED_WRONG_ITEM`, V1 `2`.
    case undeliveredWrongItem = "undelivered_wrong_item"
    /// V2 `UNDELIVERED_SERVER_OUTAGE`, V1 `3`.
    case undeliveredServerOutage = "undelivered_server_outage"
    /// V2 `UNDELIVERED_OTHER`, V1 `5`.
    case undeliveredOther = "undelivered_other"
}
