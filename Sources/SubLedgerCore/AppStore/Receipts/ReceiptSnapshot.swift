/// What one verified app receipt says, before the ledger's normalization rules are applied.
///
/// The protocol module fills `transactions` with every entry of `latest_receipt_info` and those of `in_app` it
/// does not list (or the single top-level transaction of a pre-iOS 7 receipt) exactly as Apple sent them:
/// possibly repeated, in any order. `SubLedgerCore` dedupes and orders them; see `normalized()`.
public struct ReceiptSnapshot: Hashable, Sendable, Codable {
    /// `receipt.bundle_id` (iOS 7+) or `receipt.bid` (pre-iOS 7).
    public var bundleID: String
    /// `receipt.application_version` or `bvrs`.
    public var applicationVersion: String?
    public var environment: StoreEnvironment
    /// Apple's `receipt_creation_date_ms`, or the request time when absent.
    public var creationDate: Instant?
    /// The time Apple answered (`request_date_ms`), used as the observation time of renewal info.
    public var requestDate: Instant?
    public var transactions: [Transaction]
    public var renewalInfo: [RenewalInfo]
    /// `latest_receipt`, to be stored for later re-verification.
    public var latestReceipt: String?

    public init(
        bundleID: String,
        applicationVersion: String? = nil,
        environment: StoreEnvironment,
        creationDate: Instant? = nil,
        requestDate: Instant? = nil,
        transactions: [Transaction],
        renewalInfo: [RenewalInfo] = [],
        latestReceipt: String? = nil
    ) {
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.environment = environment
        self.creationDate = creationDate
        self.requestDate = requestDate
        self.transactions = transactions
        self.renewalInfo = renewalInfo
        self.latestReceipt = latestReceipt
    }
}
