/// A transaction the ledger has stored on a chain: its store's latest word on it, and whose it is.
public struct KnownTransaction: Hashable, Sendable, Codable {
    /// The most recent version observed (see `TransactionVersion`), as the store sent it.
    public var transaction: Transaction
    /// When Apple produced that version: the transaction's `signedDate`, else the input's observation time.
    public var observedAt: Instant?
    /// The account the transaction was granted to; `nil` while unclaimed (no owner and no known submitter).
    public var account: AccountID?
    /// Every refund or Family Sharing revocation ever observed, by revocation date.
    public var revocations: [ObservedRevocation]
    /// The latest observation time at which the transaction carried no revocation date.
    public var lastUnrevokedObservationAt: Instant?
    /// What the latest signed version stated of the price, currency, storefront and app transaction id
    /// (`SignedTransactionDetails`); `nil` when no version stated any, or for a row stored before it was kept.
    public var signedDetails: SignedTransactionDetails?

    public init(
        transaction: Transaction,
        observedAt: Instant?,
        account: AccountID?,
        revocations: [ObservedRevocation] = [],
        lastUnrevokedObservationAt: Instant? = nil,
        signedDetails: SignedTransactionDetails? = nil
    ) {
        self.transaction = transaction
        self.observedAt = observedAt
        self.account = account
        self.revocations = revocations
        self.lastUnrevokedObservationAt = lastUnrevokedObservationAt
        self.signedDetails = signedDetails
    }

    public var transactionID: String { transaction.transactionID }

    /// The details Apple stated for this transaction: the latest signed statement, else (a row stored before
    /// they were kept apart) the newest version's own fields.
    public var details: SignedTransactionDetails {
        signedDetails ?? SignedTransactionDetails(of: transaction, observedAt: observedAt) ?? SignedTransactionDetails()
    }

    /// When an upgrade within the group ended this transaction's period, if Apple marked it upgraded.
    public var upgradeMoment: Instant? {
        transaction.isUpgraded ? transaction.revocationDate : nil
    }
}
