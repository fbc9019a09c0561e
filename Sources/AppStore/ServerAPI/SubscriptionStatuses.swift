import SubLedgerCore

// What the client returns: Apple's answers with every signed item verified and decoded.

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
