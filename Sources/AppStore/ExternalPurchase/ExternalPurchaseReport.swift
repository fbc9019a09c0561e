// The External Purchase Server API's JSON bodies, as Apple documents them
// (https://developer.apple.com/documentation/externalpurchaseserverapi). Every field is optional so that a body
// missing one decodes and its checker (appstore-sim's validation, SubLedger's report builder) can say which.

/// Apple's `ExternalPurchaseReport`: the report of one external purchase token, the body of Send External
/// Purchase Report (`PUT /externalPurchase/v1/reports`) and what Retrieve External Purchase Report returns.
public struct ExternalPurchaseReport: Codable, Hashable, Sendable {
    /// Apple's `requestIdentifier`: a UUID the sender generates per report and stores with the token.
    public var requestIdentifier: String?
    /// Apple's `externalPurchaseId`: the token's id, from the decoded token or an `EXTERNAL_PURCHASE_TOKEN`
    /// notification.
    public var externalPurchaseID: String?
    /// Raw `status`; see `status`.
    public var rawStatus: String?
    /// Apple's `lineItems`: present only when `status` is `LINE_ITEM`.
    public var lineItems: [ExternalPurchaseLineItem]?

    /// `rawStatus` as a typed value; `nil` when absent or a value this code does not know.
    public var status: ExternalPurchaseReportStatus? { rawStatus.flatMap(ExternalPurchaseReportStatus.init(rawValue:)) }

    /// Creates a report.
    public init(
        requestIdentifier: String? = nil, externalPurchaseID: String? = nil, status: ExternalPurchaseReportStatus?,
        lineItems: [ExternalPurchaseLineItem]? = nil
    ) {
        self.requestIdentifier = requestIdentifier
        self.externalPurchaseID = externalPurchaseID
        self.rawStatus = status?.rawValue
        self.lineItems = lineItems
    }

    enum CodingKeys: String, CodingKey {
        case requestIdentifier
        case externalPurchaseID = "externalPurchaseId"
        case rawStatus = "status"
        case lineItems
    }
}

/// Apple's `status` of a report: whether the token has transactions, and if not, why.
public enum ExternalPurchaseReportStatus: String, Codable, Hashable, Sendable, CaseIterable {
    /// The report carries the token's transactions in `lineItems`.
    case lineItem = "LINE_ITEM"
    /// The token led to no transaction.
    case noLineItem = "NO_LINE_ITEM"
    /// An `EXTERNAL_PURCHASE_TOKEN` notification named a token the sender has no record of.
    case unrecognizedToken = "UNRECOGNIZED_TOKEN"
    /// The sender reports this period's transactions with another `ACQUISITION` or `SERVICES` token.
    case duplicateToken = "DUPLICATE_TOKEN"
}
