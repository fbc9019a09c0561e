/// Why a chain is no longer active, from Apple's `expirationIntent`.
public enum ExpirationReason: Hashable, Sendable, Codable {
    /// 1: the customer cancelled (turned auto-renew off).
    case voluntary
    /// 2: billing failed and the retry period ended.
    case billingError
    /// 3: the customer did not consent to a price increase.
    case priceIncreaseDeclined
    /// 4: the product was not available at renewal.
    case productUnavailable
    /// 5: another reason.
    case other
    /// A non-renewing subscription's catalog duration ran out; it never renews.
    case periodEnded
    /// Apple stated no intent (`nil`) or one this code does not know (the raw value is kept).
    case unknown(Int?)

    /// Maps Apple's raw `expirationIntent`.
    public init(expirationIntent: Int?) {
        switch expirationIntent {
        case 1: self = .voluntary
        case 2: self = .billingError
        case 3: self = .priceIncreaseDeclined
        case 4: self = .productUnavailable
        case 5: self = .other
        default: self = .unknown(expirationIntent)
        }
    }
}
