import SubLedgerCore

/// One subscription's renewal-date extension as the ledger records it (a `renewal_extensions` row).
public struct RenewalExtensionRecord: Sendable, Hashable, Codable {
    /// Where a recorded extension stands.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Asked of Apple; no answer recorded yet. Counts toward Apple's limit.
        case requested
        /// Apple extended the renewal date. Counts toward Apple's limit.
        case succeeded
        /// Apple did not extend it (it refused, or a mass request passed it over).
        case refused
        /// The call failed without an answer from Apple.
        case failed
    }

    public var chain: ChainKey
    public var requestIdentifier: String
    /// Part of a mass extension (whose request identifier it shares).
    public var mass: Bool
    public var days: Int
    /// Apple's `extendReasonCode`.
    public var reasonCode: Int
    public var requestedBy: String
    public var requestedAt: Instant
    public var status: Status
    /// Apple's error, when it refused (`apiError 4030005`), never a secret.
    public var appleError: String?
    /// Apple's `effectiveDate`: the renewal date after the extension.
    public var effectiveDate: Instant?
    public var webOrderLineItemID: String?
    public var answeredAt: Instant?

    public init(
        chain: ChainKey, requestIdentifier: String, mass: Bool, days: Int, reasonCode: Int, requestedBy: String,
        requestedAt: Instant, status: Status, appleError: String? = nil, effectiveDate: Instant? = nil,
        webOrderLineItemID: String? = nil, answeredAt: Instant? = nil
    ) {
        self.chain = chain
        self.requestIdentifier = requestIdentifier
        self.mass = mass
        self.days = days
        self.reasonCode = reasonCode
        self.requestedBy = requestedBy
        self.requestedAt = requestedAt
        self.status = status
        self.appleError = appleError
        self.effectiveDate = effectiveDate
        self.webOrderLineItemID = webOrderLineItemID
        self.answeredAt = answeredAt
    }
}
