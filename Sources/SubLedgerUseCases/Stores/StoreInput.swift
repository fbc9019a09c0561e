import Foundation
import SubLedgerCore

// What arrives for a store from outside, before anything of it is verified: a submission an app makes for one of
// its accounts (`StoreSubmission`), or a push the store itself sends (`StorePush`). Every store's routes hand the
// ledger one of these two shapes through the store's port (`StorePorts.submit`, `StorePorts.receive`), and each
// port answers with the same outcomes: a submission's `SubmissionOutcome`, a push's `PushOutcome`.

/// A purchase an app submits for one of its accounts: what the device holds, in its store's own artifact.
public struct StoreSubmission: Sendable, Hashable {
    /// The store's artifact, checked for shape by the route and verified by the store's port.
    public enum Artifact: Sendable, Hashable {
        /// An App Store app receipt (base64), with the transaction the client just finished if it named one.
        case appStoreReceipt(String, clientTransactionID: String?)
        /// A StoreKit 2 signed transaction (a compact JWS).
        case appStoreSignedTransaction(String)
        /// A Google Play purchase token, with the package and product it was bought for.
        case googlePlayPurchase(packageName: String, productID: String, purchaseToken: String)
        /// A Stripe Checkout Session (`cs_…`) the customer paid, as the app server's success page learned it.
        case stripeCheckout(sessionID: String)
    }

    /// The account submitting it.
    public var account: AccountID
    /// The order it pays for, when the app placed one (`POST /v1/orders`) and names it.
    public var order: OrderID?
    public var artifact: Artifact

    public init(account: AccountID, order: OrderID? = nil, artifact: Artifact) {
        self.account = account
        self.order = order
        self.artifact = artifact
    }

    /// The store that sold what it carries.
    public var store: Store {
        switch artifact {
        case .appStoreReceipt, .appStoreSignedTransaction: .appStore
        case .googlePlayPurchase: .googlePlay
        case .stripeCheckout: .stripe
        }
    }
}

/// A notification a store pushes: the request's body as received and the header that authenticates it, its
/// `credential`: Google's Pub/Sub push carries an OIDC bearer token in `Authorization`, Stripe signs its webhook in
/// `Stripe-Signature`; Apple's notification is signed in its body and carries none.
public struct StorePush: Sendable, Hashable {
    public var store: Store
    public var body: Data
    /// The store's authenticating header, as received (`Authorization` for Google Play, `Stripe-Signature` for
    /// Stripe); `nil` for the App Store.
    public var credential: String?

    public init(store: Store, body: Data, credential: String? = nil) {
        self.store = store
        self.body = body
        self.credential = credential
    }
}

/// What became of a push, in every store.
public enum PushOutcome: Sendable, Equatable {
    /// Stored and applied (or, for one naming nothing SubLedger sells, stored and recorded as applied); the store's
    /// own name of the notification's type.
    case applied(notificationType: String)
    /// Applied before: a redelivery, answered as accepted and changing nothing.
    case duplicate
    /// The store's test notification: authenticated, nothing to store.
    case test
}
