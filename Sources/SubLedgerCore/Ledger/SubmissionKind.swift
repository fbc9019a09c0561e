/// What an account submitted for its store to verify, stored as `receipts.kind` before anything else happens to it
/// (the submission's outbox row, then retried by the renewal job until applied or refused), and the input it becomes
/// (`LedgerInput.Kind.submission`).
///
/// The App Store takes two; every other store takes one, its purchase (`storePurchase`), so a store added to `Store`
/// has its kind without a change here.
public enum SubmissionKind: Hashable, Sendable {
    /// A base64 PKCS#7 app receipt, verified through verifyReceipt.
    case appReceipt
    /// A StoreKit 2 JWS signed transaction.
    case signedTransaction
    /// A purchase made in another store (never the App Store), read back from that store's API: a Google Play
    /// purchase token (`{package_name, product_id, purchase_token}`), a paid Stripe Checkout Session
    /// (`{checkout_session_id}`).
    case storePurchase(Store)

    /// A Google Play purchase token, verified with the Google Play Developer API.
    public static let googlePurchase = SubmissionKind.storePurchase(.googlePlay)
    /// A paid Stripe Checkout Session, read back from the Stripe API.
    public static let stripeCheckout = SubmissionKind.storePurchase(.stripe)

    /// The store whose API verifies it.
    public var store: Store {
        switch self {
        case .appReceipt, .signedTransaction: .appStore
        case .storePurchase(let store): store
        }
    }
}

extension SubmissionKind: RawRepresentable, CaseIterable {
    public static let allCases: [SubmissionKind] =
        [.appReceipt, .signedTransaction] + Store.allCases.filter { $0 != .appStore }.map { .storePurchase($0) }

    /// As stored: `app_receipt`, `signed_transaction`, `google_purchase`, or a web store's `<store>_checkout`
    /// (`stripe_checkout`).
    public var rawValue: String {
        switch self {
        case .appReceipt: "app_receipt"
        case .signedTransaction: "signed_transaction"
        case .storePurchase(.googlePlay): "google_purchase"
        case .storePurchase(let store): store.rawValue + "_checkout"
        }
    }

    public init?(rawValue: String) {
        switch rawValue {
        case "app_receipt": self = .appReceipt
        case "signed_transaction": self = .signedTransaction
        case "google_purchase": self = .storePurchase(.googlePlay)
        default:
            guard rawValue.hasSuffix("_checkout"), let store = Store(rawValue: String(rawValue.dropLast(9))),
                store != .appStore, store != .googlePlay
            else { return nil }
            self = .storePurchase(store)
        }
    }
}
