/// Apple's version 1 `notification_type` values; notifications keep the raw string, so unknown types survive.
public enum NotificationTypeV1: String, Hashable, Sendable, Codable, CaseIterable {
    case cancel = "CANCEL"
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case didRecover = "DID_RECOVER"
    case didRenew = "DID_RENEW"
    case initialBuy = "INITIAL_BUY"
    case interactiveRenewal = "INTERACTIVE_RENEWAL"
    case priceIncreaseConsent = "PRICE_INCREASE_CONSENT"
    case refund = "REFUND"
    case renewal = "RENEWAL"
    case revoke = "REVOKE"
}
