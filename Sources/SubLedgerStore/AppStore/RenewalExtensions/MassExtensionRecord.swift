import SubLedgerCore

/// A mass renewal-date extension of one product as the ledger records it (a `renewal_extension_requests` row).
public struct MassExtensionRecord: Sendable, Hashable, Codable {
    /// Where a mass request stands.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Recorded; Apple's answer to the request not yet recorded.
        case requested
        /// Apple accepted it and is processing it.
        case submitted
        /// Apple finished it (`succeededCount`, `failedCount`).
        case complete
        /// Apple refused the request.
        case refused
    }

    public var requestIdentifier: String
    public var environment: StoreEnvironment
    public var productID: String
    /// The storefronts asked for; `nil` for all.
    public var storefrontCountryCodes: [String]?
    public var days: Int
    public var reasonCode: Int
    public var requestedBy: String
    public var requestedAt: Instant
    public var status: Status
    public var appleError: String?
    public var completeDate: Instant?
    public var succeededCount: Int64?
    public var failedCount: Int64?
    /// Subscriptions the ledger counted as active when the request was made (its `renewal_extensions` rows).
    public var members: Int

    public init(
        requestIdentifier: String, environment: StoreEnvironment, productID: String,
        storefrontCountryCodes: [String]?, days: Int, reasonCode: Int, requestedBy: String, requestedAt: Instant,
        status: Status, appleError: String? = nil, completeDate: Instant? = nil, succeededCount: Int64? = nil,
        failedCount: Int64? = nil, members: Int = 0
    ) {
        self.requestIdentifier = requestIdentifier
        self.environment = environment
        self.productID = productID
        self.storefrontCountryCodes = storefrontCountryCodes
        self.days = days
        self.reasonCode = reasonCode
        self.requestedBy = requestedBy
        self.requestedAt = requestedAt
        self.status = status
        self.appleError = appleError
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
        self.members = members
    }
}
