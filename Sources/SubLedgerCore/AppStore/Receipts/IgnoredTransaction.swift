/// A transaction that was left out of the ledger, and why; flagged, never a crash.
public struct IgnoredTransaction: Hashable, Sendable, Codable {
    /// Why a transaction (or renewal info) was not stored.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// The product id is not in the app's catalog (a new product not configured yet, or a foreign one).
        case unknownProduct = "unknown_product"
        /// The transaction states another app's bundle id.
        case otherApp = "other_app"
        /// The transaction's environment differs from its receipt's or input's.
        case environmentMismatch = "environment_mismatch"
        /// The transaction comes from another store than the one its product is sold in.
        case otherStore = "other_store"
    }

    public var transaction: Transaction
    public var reason: Reason

    public init(transaction: Transaction, reason: Reason) {
        self.transaction = transaction
        self.reason = reason
    }

    /// Why `transaction` cannot enter the ledger of `app` from an input in `environment`, if it cannot.
    static func reason(for transaction: Transaction, app: App, environment: StoreEnvironment) -> Reason? {
        if let bundleID = transaction.bundleID, bundleID != app.storeIdentifier(in: transaction.store) {
            return .otherApp
        }
        if transaction.environment != environment { return .environmentMismatch }
        guard let product = app.product(transaction.productID) else { return .unknownProduct }
        if product.store != transaction.store { return .otherStore }
        return nil
    }
}
