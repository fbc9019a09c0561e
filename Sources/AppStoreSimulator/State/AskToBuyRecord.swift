import SubLedgerCore

/// A purchase waiting for a parent's approval (Ask to Buy): no transaction exists until it is approved.
struct AskToBuyRecord: Sendable {
    var requestID: String
    var purchase: PurchaseRequest
    var requestedAt: Instant
}
