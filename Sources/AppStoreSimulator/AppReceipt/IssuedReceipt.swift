import SubLedgerCore

/// A receipt the simulator handed to a device, remembered by the SHA-256 of its bytes so `verifyReceipt`
/// can recognize it and answer with the Apple ID's current state.
struct IssuedReceipt: Sendable {
    enum Kind: Sendable, Hashable {
        /// An iOS 7+ app receipt (PKCS#7).
        case app
        /// An iOS 6 style receipt of one transaction.
        case legacy(transactionID: String)
    }

    var kind: Kind
    var key: AccountAppKey
    var environment: StoreEnvironment
    var creationDate: Instant
    /// The transactions the receipt holds, as they were when it was issued (`receipt.in_app`).
    var purchases: [TransactionRecord]
    /// The `receipt` object's JSON without request dates and `in_app`, rendered on first use.
    var renderedHead: String?
    /// The `in_app` array's JSON, rendered on first use.
    var renderedInApp: String?
}

/// The current receipt of an Apple ID in an app, rebuilt only when its purchases change.
struct CurrentReceipt: Sendable {
    var version: Int
    var base64: String
    var digest: [UInt8]
}

/// Issued receipts by digest, current receipts by Apple ID and app, and rendered answer fragments.
struct ReceiptBook: Sendable {
    var issued: [[UInt8]: IssuedReceipt] = [:]
    var current: [AccountAppKey: CurrentReceipt] = [:]
    var currentLegacy: [String: String] = [:]
    /// `latest_receipt_info` + `pending_renewal_info` JSON per Apple ID and app, for one state version.
    var renderedLatest: [LatestKey: RenderedLatest] = [:]

    struct LatestKey: Hashable, Sendable {
        var key: AccountAppKey
        var excludeOldTransactions: Bool
    }

    struct RenderedLatest: Sendable {
        var version: Int
        var json: String
    }
}
