import SubLedgerCore

/// One line of the import file: an account and the chain it owns, named by an original transaction id
/// (fetched from the App Store Server API), by a base64 app receipt (verified through verifyReceipt), in a
/// Google Play file by a purchase token and its product (read from the Google Play Developer API), or in a Stripe
/// file by a subscription id (read from the Stripe API).
public struct ImportRow: Sendable, Hashable {
    /// Where the chain comes from.
    public enum Source: Sendable, Hashable {
        case chainID(String)
        case receipt(String)
        /// A Google Play purchase token of the product `productID`.
        case googlePurchase(token: String, productID: String)
        /// A Stripe subscription (`sub_…`).
        /// A subscription of a store that sells on the web, read back whole from its API (`StoreSubscriptionImport`).
        case storeSubscription(store: Store, id: String)
    }

    /// The longest base64 app receipt accepted, in bytes.
    public static let maximumReceiptBytes = 1024 * 1024
    /// The columns of the header row, in any order.
    public static let columns = ["account_id", "original_transaction_id", "receipt_data", "environment"]
    /// The columns of a Google Play file's header row, in any order.
    public static let googlePlayColumns = ["account_id", "purchase_token", "product_id"]
    /// The longest purchase token accepted (Google's are a few hundred characters).
    public static let maximumPurchaseTokenBytes = 1024
    /// The columns of a file of `store`'s subscriptions: `account_id` and `<store>_subscription_id`
    /// (`stripe_subscription_id`).
    public static func subscriptionColumns(of store: Store) -> [String] {
        ["account_id", subscriptionColumn(of: store)]
    }
    /// The column naming `store`'s subscription.
    public static func subscriptionColumn(of store: Store) -> String { "\(store.rawValue)_subscription_id" }
    /// The store whose subscription `columns` name, if any.
    public static func subscriptionStore(in columns: [String]) -> Store? {
        Store.allCases.first { columns.contains(subscriptionColumn(of: $0)) }
    }
    /// The longest subscription id accepted.
    public static let maximumSubscriptionIDBytes = 255

    /// The line of the file the row starts on (1-based; the header is line 1).
    public var lineNumber: Int
    public var account: AccountID
    public var source: Source
    /// The environment; for a receipt row it may be left empty (read from the receipt).
    public var environment: StoreEnvironment?

    public init(lineNumber: Int, account: AccountID, source: Source, environment: StoreEnvironment?) {
        self.lineNumber = lineNumber
        self.account = account
        self.source = source
        self.environment = environment
    }

    /// The original transaction id, when the row names one.
    public var chainID: String? {
        if case .chainID(let id) = source { return id }
        return nil
    }

    /// A row from its fields (`order` maps a column name to its index), or why it is refused.
    static func parse(fields: [String], order: [String: Int], lineNumber: Int) throws(ImportRowError) -> ImportRow {
        func field(_ name: String) -> String {
            guard let index = order[name], index < fields.count else { return "" }
            return fields[index].trimmingASCIIWhitespace
        }
        guard fields.count == order.count else { throw ImportRowError(lineNumber, .wrongColumnCount) }
        let account: AccountID
        do {
            account = try AccountID(field("account_id"))
        } catch {
            throw ImportRowError(lineNumber, .invalidAccount(IdentifierRule.accountID.summary))
        }
        if let store = subscriptionStore(in: Array(order.keys)) {
            // A web store's subscription id: `sub_` and letters, digits and underscores (Stripe's, Paddle's).
            let id = field(subscriptionColumn(of: store))
            guard id.utf8.count <= maximumSubscriptionIDBytes, id.hasPrefix("sub_"), id.utf8.count > 4,
                id.utf8.allSatisfy(Self.isSubscriptionIDByte)
            else { throw ImportRowError(lineNumber, .invalidSubscriptionID(store)) }
            return ImportRow(
                lineNumber: lineNumber, account: account, source: .storeSubscription(store: store, id: id),
                environment: nil)
        }
        if order["purchase_token"] != nil {
            let token = field("purchase_token")
            guard (1...maximumPurchaseTokenBytes).contains(token.utf8.count), token.utf8.allSatisfy(Self.isTokenByte)
            else { throw ImportRowError(lineNumber, .invalidPurchaseToken) }
            let productID = field("product_id")
            guard IdentifierRule.productID.accepts(productID) else {
                throw ImportRowError(lineNumber, .invalidProductID)
            }
            return ImportRow(
                lineNumber: lineNumber, account: account, source: .googlePurchase(token: token, productID: productID),
                environment: nil)
        }
        let environmentText = field("environment")
        var environment: StoreEnvironment?
        if !environmentText.isEmpty {
            switch environmentText.lowercased() {
            case "production": environment = .production
            case "sandbox": environment = .sandbox
            default: throw ImportRowError(lineNumber, .invalidEnvironment)
            }
        }
        let originalID = field("original_transaction_id")
        let receipt = field("receipt_data")
        switch (originalID.isEmpty, receipt.isEmpty) {
        case (false, false), (true, true):
            throw ImportRowError(lineNumber, .needsOneSource)
        case (false, true):
            guard originalID.utf8.count <= 64, originalID.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw ImportRowError(lineNumber, .invalidOriginalTransactionID)
            }
            guard let environment else { throw ImportRowError(lineNumber, .invalidEnvironment) }
            return ImportRow(
                lineNumber: lineNumber, account: account, source: .chainID(originalID),
                environment: environment)
        case (true, false):
            guard receipt.utf8.allSatisfy(Self.isBase64) else { throw ImportRowError(lineNumber, .invalidReceipt) }
            return ImportRow(
                lineNumber: lineNumber, account: account, source: .receipt(receipt), environment: environment)
        }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// Stripe's ids: a prefix, an underscore and letters and digits.
    private static func isSubscriptionIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            true
        default: false
        }
    }
}

extension String {
    var trimmingASCIIWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
