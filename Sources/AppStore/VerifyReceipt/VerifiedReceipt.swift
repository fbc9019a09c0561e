import SubLedgerCore

/// A receipt Apple verified, with the raw answer and its mapping into the core.
public struct VerifiedReceipt: Sendable {
    /// Apple's answer as decoded.
    public var response: VerifyReceiptResponse
    /// The answer mapped to the core's snapshot.
    public var snapshot: ReceiptSnapshot
    /// The endpoint that gave the answer.
    public var answeredBy: StoreEnvironment

    /// Creates a verified receipt.
    public init(response: VerifyReceiptResponse, snapshot: ReceiptSnapshot, answeredBy: StoreEnvironment) {
        self.response = response
        self.snapshot = snapshot
        self.answeredBy = answeredBy
    }
}
