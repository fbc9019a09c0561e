/// One thing that arrived: a receipt or signed transaction an account submitted, a notification, a poll.
public struct LedgerInput: Hashable, Sendable, Codable {
    /// Where the input came from.
    public enum Kind: Hashable, Sendable {
        /// What an account submitted, verified by its store (`SubmissionKind`): an app receipt, a StoreKit 2 signed
        /// transaction (with renewal info), a Google Play purchase token read back from the Developer API, a paid
        /// Stripe Checkout Session read back from the Stripe API with the subscription it created.
        case submission(SubmissionKind)
        /// A store's notification: no submitter.
        case notification
        /// The server's own fetch from a store's API: no submitter.
        case poll
        /// A chain's history moved onto SubLedger by `subledger import`: the row's account is the submitter,
        /// so the chain is claimed by it under the ownership rule.
        case `import`

        /// A verified app receipt submitted by an account.
        public static let receipt = Kind.submission(.appReceipt)
        /// A StoreKit 2 signed transaction submitted by an account.
        public static let signedTransaction = Kind.submission(.signedTransaction)
        /// A Google Play purchase token submitted by an account.
        public static let googlePurchase = Kind.submission(.googlePurchase)
        /// A paid Stripe Checkout Session submitted by an account's app server.
        public static let stripeCheckout = Kind.submission(.stripeCheckout)
    }

    /// The most transactions plus renewal infos one input may carry; larger inputs are refused.
    public static let maximumItems = 10_000

    public var kind: Kind
    public var bundleID: String
    public var environment: StoreEnvironment
    /// The signed-in account that submitted the input; `nil` for notifications and polls.
    public var submitter: AccountID?
    /// In any order, possibly repeated.
    public var transactions: [Transaction]
    public var renewalInfo: [RenewalInfo]
    /// When Apple produced the input (receipt request time, notification signed date): the observation time
    /// of transactions that carry no `signedDate` of their own.
    public var observedAt: Instant?

    public init(
        kind: Kind,
        bundleID: String,
        environment: StoreEnvironment,
        submitter: AccountID? = nil,
        transactions: [Transaction],
        renewalInfo: [RenewalInfo] = [],
        observedAt: Instant? = nil
    ) {
        self.kind = kind
        self.bundleID = bundleID
        self.environment = environment
        self.submitter = submitter
        self.transactions = transactions
        self.renewalInfo = renewalInfo
        self.observedAt = observedAt
    }

    /// A normalized receipt submitted by `submitter`.
    public init(receipt: NormalizedReceipt, submittedBy submitter: AccountID?) {
        self.init(
            kind: .receipt,
            bundleID: receipt.bundleID,
            environment: receipt.environment,
            submitter: submitter,
            transactions: receipt.transactions,
            renewalInfo: receipt.renewalInfo,
            observedAt: receipt.observedAt
        )
    }

    /// A server notification: its transaction and renewal info, or a V1 notification's unified receipt.
    public init(notification: ServerNotification) {
        self.init(
            kind: .notification,
            bundleID: notification.bundleID,
            environment: notification.environment,
            submitter: nil,
            transactions: [notification.transaction].compactMap { $0 } + (notification.receipt?.transactions ?? []),
            renewalInfo: [notification.renewalInfo].compactMap { $0 } + (notification.receipt?.renewalInfo ?? []),
            observedAt: notification.signedDate
        )
    }

    /// The chains the input touches, sorted: the rows to lock (`SELECT ... FOR UPDATE`) and load.
    public var chainKeys: [ChainKey] {
        Set(transactions.map(\.chainKey) + renewalInfo.map(\.chainKey)).sorted()
    }

    /// The normalized tokens the input's transactions carry, sorted: look these up as accounts and as
    /// order ids for `LedgerSnapshot`.
    public var accountTokens: [AccountToken] {
        Set(transactions.flatMap(AccountToken.tokens(of:))).sorted()
    }
}

extension LedgerInput.Kind: RawRepresentable, Codable {
    /// `receipt` (an app receipt), `notification`, `poll`, `import`, or the submission's kind as stored
    /// (`SubmissionKind`: `signed_transaction`, `google_purchase`, `stripe_checkout` …).
    public var rawValue: String {
        switch self {
        case .submission(.appReceipt): "receipt"
        case .submission(let kind): kind.rawValue
        case .notification: "notification"
        case .poll: "poll"
        case .import: "import"
        }
    }

    public init?(rawValue: String) {
        switch rawValue {
        case "receipt": self = .submission(.appReceipt)
        case "notification": self = .notification
        case "poll": self = .poll
        case "import": self = .import
        case SubmissionKind.appReceipt.rawValue: return nil
        default:
            guard let kind = SubmissionKind(rawValue: rawValue) else { return nil }
            self = .submission(kind)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        guard let kind = Self(rawValue: raw) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown input kind \(raw)")
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
