/// An app's answer to Apple's refund-time question (`CONSUMPTION_REQUEST`): whether SubLedger answers at all,
/// which way it leans, and which version of Send Consumption Information it calls.
///
/// Catalog format (per app, every key optional; absent means disabled):
/// ```yaml
/// consumption: { enabled: true, refund_preference: decline, endpoint: v2, sample_content_provided: true }
/// ```
/// `refund_preference` is `decline`, `grant`, `grant_prorated` (V2 only) or `no_preference`.
/// ```yaml
/// ```
public struct ConsumptionPolicy: Hashable, Sendable, Codable {
    /// Answer Apple's consumption requests. Default `false`: requests are recorded, nothing is sent.
    public var enabled: Bool
    /// The app's preferred outcome, sent as `refundPreference`. Default `.noPreference` (the field is left out
    /// of the V2 request; `3` in V1).
    public var refundPreference: ConsumptionRefundPreference
    /// Which Send Consumption Information endpoint is called. Default `.v2` (Apple's current one).
    public var endpoint: ConsumptionEndpointVersion
    /// Whether the app gives a free sample, trial or description of its content before purchase
    /// (`sampleContentProvided`), unless the app server reported otherwise for the transaction. Default `false`.
    public var sampleContentProvided: Bool

    public init(
        enabled: Bool = false, refundPreference: ConsumptionRefundPreference = .noPreference,
        endpoint: ConsumptionEndpointVersion = .v2, sampleContentProvided: Bool = false
    ) {
        self.enabled = enabled
        self.refundPreference = refundPreference
        self.endpoint = endpoint
        self.sampleContentProvided = sampleContentProvided
    }

    /// Nothing is sent.
    public static let disabled = ConsumptionPolicy()

    enum CodingKeys: String, CodingKey {
        case enabled
        case refundPreference = "refund_preference"
        case endpoint
        case sampleContentProvided = "sample_content_provided"
    }

    /// Decodes the file format; an unknown `refund_preference` or `endpoint` throws
    /// `CatalogError.invalidConsumptionPolicy` naming the value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? false
        if let raw = try container.decodeIfPresent(String.self, forKey: .refundPreference) {
            guard let preference = ConsumptionRefundPreference(rawValue: raw) else {
                throw CatalogError(code: .invalidConsumptionPolicy, subject: "refund_preference", detail: raw)
            }
            refundPreference = preference
        } else {
            refundPreference = .noPreference
        }
        if let raw = try container.decodeIfPresent(String.self, forKey: .endpoint) {
            guard let endpoint = ConsumptionEndpointVersion(rawValue: raw) else {
                throw CatalogError(code: .invalidConsumptionPolicy, subject: "endpoint", detail: raw)
            }
            self.endpoint = endpoint
        } else {
            endpoint = .v2
        }
        sampleContentProvided = try container.decodeIfPresent(Bool.self, forKey: .sampleContentProvided) ?? false
        if refundPreference == .grantProrated, endpoint == .v1 {
            throw CatalogError(
                code: .invalidConsumptionPolicy, subject: "refund_preference",
                detail: "grant_prorated needs endpoint v2 (Send Consumption Information V1 cannot ask for it)")
        }
    }
}
