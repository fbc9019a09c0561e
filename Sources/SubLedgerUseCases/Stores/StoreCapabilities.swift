import SubLedgerCore
import SubLedgerStore

// What a store offers beyond its port, each exported by its registration (`StoreRegistration`) when the store has
// it: the HTTP edge, support and `subledger import` reach a store's own features through these, never its module.

/// Signs the offers a store's app presents (the App Store's promotional offers and introductory-offer eligibility):
/// `POST /v1/offers/signature`.
public protocol OfferSigning: Sendable {
    /// Signs what `request` asks of `app`, from the account's offer facts. Throws `OfferError`.
    func sign(_ request: OfferSignatureRequest, app: StoredApp) async throws -> OfferSignatureAnswer
}

/// Records which account owns an app's own purchase (StoreKit 2's `AppTransaction`): `POST /v1/app-transactions`.
public protocol AppTransactionClaiming: Sendable {
    /// Verifies `token` for `app` and records that `account` owns it. Throws the ingestion's refusal.
    func claim(_ token: String, account: AccountID, app: StoredApp) async throws -> AppTransactionClaimOutcome
}

/// What a store's own servers say about a purchase the ledger may not hold, for support's lookups by the store's
/// ids (the App Store's order ids, and transaction ids no ledger row has). Failures are `SupportError`s.
public protocol StorePurchaseLookup: Sendable {
    /// The environments the store can be asked in for `app`, the first to ask first; throws
    /// `server_api_not_configured` when it cannot be asked at all.
    func environments(of app: StoredApp) throws(SupportError) -> [StoreEnvironment]

    /// The transactions the store lists under order `orderID` of `app` in `environment`; empty when it knows none
    /// there.
    func order(_ orderID: String, app: StoredApp, environment: StoreEnvironment) async throws -> [Transaction]

    /// Transaction `id` of `app` in `environment`; throws `transaction_not_found` when the store knows none there.
    func transaction(_ id: String, app: StoredApp, environment: StoreEnvironment) async throws -> Transaction

    /// Brings chain `key`, whose transactions were just applied, up to date as the renewal job would.
    func refresh(_ key: ChainKey, app: StoredApp) async throws
}

/// The rows of `subledger import` a store reads back itself (the App Store's transaction ids and receipts).
public protocol StoreRowImport: Sendable {
    /// Whether this store reads `source`.
    func reads(_ source: ImportRow.Source) -> Bool

    /// Reads `row` back from the store and applies it to `app` as a first claim by the row's account, waiting at
    /// `gate` before each call and backing off as `configuration` allows. Throws `ImportRowError` or the ingestion's
    /// refusal.
    func importRow(
        _ row: ImportRow, app: StoredApp, gate: ImportRateGate, configuration: MigrationImporter.Configuration
    ) async throws -> ImportedRow

    /// The words for a row's failure this store raised (its API's errors, its answers that cannot be read); `nil`
    /// for any other failure.
    func reason(for error: any Error) -> ImportRowError.Reason?
}

/// What importing one row did.
public struct ImportedRow: Sendable, Hashable {
    /// The chains the row wrote.
    public var chains: Int
    /// The distinct transactions it applied.
    public var transactions: Int
    /// The chain it names, when one.
    public var chainID: String?

    public init(chains: Int, transactions: Int, chainID: String?) {
        self.chains = chains
        self.transactions = transactions
        self.chainID = chainID
    }
}

/// A signed offer answer (`OfferSigning.sign`).
public struct OfferSignatureAnswer: Sendable, Hashable {
    public var request: OfferSignatureRequest
    public var facts: OfferEligibilityFacts
    /// The transaction the signatures name: the request's, else the account's latest in the group.
    public var transactionID: String?
    /// The introductory-offer eligibility JWS, when a transaction is known.
    public var introductoryOfferEligibilityJWS: String?
    /// The promotional offer's signatures, when one was asked for.
    public var promotionalOffer: PromotionalOffer?

    public init(
        request: OfferSignatureRequest, facts: OfferEligibilityFacts, transactionID: String?,
        introductoryOfferEligibilityJWS: String?, promotionalOffer: PromotionalOffer?
    ) {
        self.request = request
        self.facts = facts
        self.transactionID = transactionID
        self.introductoryOfferEligibilityJWS = introductoryOfferEligibilityJWS
        self.promotionalOffer = promotionalOffer
    }

    /// A promotional offer signed both ways StoreKit takes it.
    public struct PromotionalOffer: Sendable, Hashable {
        /// StoreKit 1's signature (`SKPaymentDiscount`).
        public var signature: Signature
        /// StoreKit 2's compact JWS.
        public var jws: String

        public init(signature: Signature, jws: String) {
            self.signature = signature
            self.jws = jws
        }
    }

    /// StoreKit 1's promotional offer signature: the key's id, the nonce, the timestamp and the signature.
    public struct Signature: Sendable, Hashable {
        public var keyIdentifier: String
        public var nonce: String
        public var timestamp: Int64
        public var signature: String

        public init(keyIdentifier: String, nonce: String, timestamp: Int64, signature: String) {
            self.keyIdentifier = keyIdentifier
            self.nonce = nonce
            self.timestamp = timestamp
            self.signature = signature
        }
    }
}
