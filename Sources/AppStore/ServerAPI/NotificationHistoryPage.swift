import SubLedgerCore

// What the client returns: Apple's answers with every signed item verified and decoded.

/// One page of notification history, every notification verified.
public struct NotificationHistoryPage: Sendable {
    /// One notification and how its delivery went.
    public struct Item: Sendable {
        /// The verified notification payload.
        public var notification: ResponseBodyV2DecodedPayload
        /// Apple's delivery attempts.
        public var sendAttempts: [SendAttemptItem]
        /// The notification as Apple signed it, to be fed through the same ingestion as a delivered one.
        public var signedPayload: String

        /// Creates an item.
        public init(
            notification: ResponseBodyV2DecodedPayload, sendAttempts: [SendAttemptItem], signedPayload: String = ""
        ) {
            self.notification = notification
            self.sendAttempts = sendAttempts
            self.signedPayload = signedPayload
        }
    }

    /// The token for the next page.
    public var paginationToken: String?
    /// Whether another page follows.
    public var hasMore: Bool
    /// The notifications of this page.
    public var items: [Item]

    /// Creates a page.
    public init(paginationToken: String?, hasMore: Bool, items: [Item]) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.items = items
    }
}
