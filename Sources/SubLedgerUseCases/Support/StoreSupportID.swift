import SubLedgerCore

/// An id a store gives a purchase or its payer, which support may look a purchase up by (Paddle's customer
/// `ctm_…`), declared by the store's registration (`StoreRegistration.supportIDs`): `GET
/// /v1/admin/lookup/{store}/{id}` and the admin page's search box read it.
public struct StoreSupportID: Sendable, Hashable {
    /// What the id names in the ledger.
    public enum Names: Sendable, Hashable {
        /// A chain or a transaction, kept under this very id (Paddle's `txn_…`).
        case chainOrTransaction
        /// The store's customer: every purchase of theirs, whose kept transactions name them (`customerID`).
        case customer
    }

    /// The store whose id it is.
    public var store: Store
    /// How its ids start (`ctm_`).
    public var prefix: String
    /// The answer's kind for a lookup by it (`paddle_customer`).
    public var kindName: String
    public var names: Names

    public init(store: Store, prefix: String, kindName: String, names: Names) {
        self.store = store
        self.prefix = prefix
        self.kindName = kindName
        self.names = names
    }

    /// Whether `raw` is such an id: the prefix, then 1 to 60 letters and digits.
    public func accepts(_ raw: String) -> Bool {
        let rest = raw.utf8.dropFirst(prefix.utf8.count)
        return raw.hasPrefix(prefix) && (1...60).contains(rest.count)
            && rest.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
            }
    }
}
