import SubLedgerCore

// What the client returns: Apple's answers with every signed item verified and decoded.

/// One page of transaction history (or refund history), every transaction verified.
public struct TransactionHistoryPage: Sendable {
    /// The token for the next page.
    public var revision: String?
    /// Whether another page follows.
    public var hasMore: Bool
    /// The verified transactions of this page.
    public var transactions: [JWSTransactionDecodedPayload]

    /// Creates a page.
    public init(revision: String?, hasMore: Bool, transactions: [JWSTransactionDecodedPayload]) {
        self.revision = revision
        self.hasMore = hasMore
        self.transactions = transactions
    }
}

/// The statuses of every subscription of the customer, every signed item verified.
public struct SubscriptionStatuses: Sendable {
    /// One subscription group's chains.
    public struct Group: Sendable {
        /// Apple's group identifier.
        public var subscriptionGroupIdentifier: String?
        /// The latest state of each chain in the group.
        public var lastTransactions: [ChainStatus]

        /// Creates a group.
        public init(subscriptionGroupIdentifier: String?, lastTransactions: [ChainStatus]) {
            self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
            self.lastTransactions = lastTransactions
        }
    }

    /// One chain's status with its verified latest transaction and renewal info.
    public struct ChainStatus: Sendable {
        /// Raw status; see `status`.
        public var rawStatus: Int?
        /// The chain's original transaction id.
        public var originalTransactionID: String?
        /// The verified latest transaction.
        public var transaction: JWSTransactionDecodedPayload?
        /// The verified renewal info.
        public var renewalInfo: JWSRenewalInfoDecodedPayload?
        /// The typed status, when known.
        public var status: SubscriptionStatus? { rawStatus.flatMap(SubscriptionStatus.init(rawValue:)) }

        /// Creates a chain status.
        public init(
            rawStatus: Int?, originalTransactionID: String?, transaction: JWSTransactionDecodedPayload?,
            renewalInfo: JWSRenewalInfoDecodedPayload?
        ) {
            self.rawStatus = rawStatus
            self.originalTransactionID = originalTransactionID
            self.transaction = transaction
            self.renewalInfo = renewalInfo
        }
    }

    /// Raw environment of the answer.
    public var rawEnvironment: String?
    /// The groups.
    public var groups: [Group]

    /// Creates the statuses.
    public init(rawEnvironment: String?, groups: [Group]) {
        self.rawEnvironment = rawEnvironment
        self.groups = groups
    }
}

/// The result of Look Up Order ID.
public struct OrderLookup: Sendable {
    /// Raw status: 0 valid order, 1 invalid.
    public var status: Int?
    /// The verified transactions of the order.
    public var transactions: [JWSTransactionDecodedPayload]

    /// Creates a lookup result.
    public init(status: Int?, transactions: [JWSTransactionDecodedPayload]) {
        self.status = status
        self.transactions = transactions
    }
}

/// One page of notification history, every notification verified.
public struct NotificationHistoryPage: Sendable {
    /// One notification and how its delivery went.
    public struct Item: Sendable {
        /// The verified notification payload.
        public var notification: ResponseBodyV2DecodedPayload
        /// Apple's delivery attempts.
        public var sendAttempts: [SendAttemptItem]

        /// Creates an item.
        public init(notification: ResponseBodyV2DecodedPayload, sendAttempts: [SendAttemptItem]) {
            self.notification = notification
            self.sendAttempts = sendAttempts
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
