import SubLedgerCore

/// What a support lookup is asked about, validated: an Apple order id, a transaction id, an app account token,
/// an account id, an app transaction id, a Google Play purchase token or a Stripe id.
public enum SupportQuery: Sendable, Hashable, CustomStringConvertible {
    /// Apple's order id from the invoice e-mail, upper-cased (`MK5TTTVWJH`).
    case order(String)
    /// A transaction id or an original transaction id.
    case transaction(String)
    /// SubLedger's order token (the StoreKit `appAccountToken`), lower-cased.
    case appAccountToken(OrderID)
    /// The app's account id.
    case account(AccountID)
    /// Apple's `appTransactionId`: the customer's download or purchase of the app.
    case appTransaction(String)
    /// A Google Play purchase token (the app's `Purchase.getPurchaseToken()`).
    case purchaseToken(String)
    /// A Stripe id of a web purchase: its customer, subscription, invoice, payment intent or charge.
    case stripe(StripeKind, String)
    /// An id a later store declares (`StoreSupportID`: Paddle's customer `ctm_…`, transaction `txn_…`).
    case store(StoreSupportID, String)

    /// What a Stripe id names, by its prefix.
    public enum StripeKind: String, Sendable, Hashable, CaseIterable {
        /// `cus_…`: the customer who paid.
        case customer = "cus_"
        /// `sub_…`: the subscription (a chain).
        case subscription = "sub_"
        /// `in_…`: an invoice (a transaction once paid).
        case invoice = "in_"
        /// `ch_…`: the charge that paid an invoice or a one-time purchase.
        case charge = "ch_"
        /// `pi_…`: a one-time purchase (a chain).
        case paymentIntent = "pi_"

        /// The kind, as the answer names it.
        public var kindName: String {
            switch self {
            case .customer: "stripe_customer"
            case .subscription: "stripe_subscription"
            case .invoice: "stripe_invoice"
            case .charge: "stripe_charge"
            case .paymentIntent: "stripe_payment_intent"
            }
        }
    }

    /// The longest Apple order id accepted; Apple's are about ten characters.
    static let orderIDLength = 5...32

    /// `raw` as an Apple order id: 5 to 32 ASCII letters and digits, compared upper-cased (Apple's order ids are
    /// upper-case; customers retype them from the e-mail).
    public static func order(parsing raw: String) throws(SupportError) -> SupportQuery {
        let trimmed = raw.trimmingWhitespace
        guard orderIDLength.contains(trimmed.utf8.count), trimmed.utf8.allSatisfy(Self.isLetterOrDigit) else {
            throw SupportError(.invalidOrderID, "an Apple order id has 5 to 32 letters and digits, like MK5TTTVWJH")
        }
        return .order(trimmed.uppercased())
    }

    /// `raw` as a transaction id or an original transaction id.
    public static func transaction(parsing raw: String) throws(SupportError) -> SupportQuery {
        let trimmed = raw.trimmingWhitespace
        guard IdentifierRule.transactionID.accepts(trimmed) else {
            throw SupportError(.invalidTransactionID, IdentifierRule.transactionID.summary)
        }
        return .transaction(trimmed)
    }

    /// `raw` as an app account token (a UUID, either case).
    public static func appAccountToken(parsing raw: String) throws(SupportError) -> SupportQuery {
        do {
            return .appAccountToken(try OrderID(raw.trimmingWhitespace))
        } catch {
            throw SupportError(
                .invalidAppAccountToken, "an app account token is a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)")
        }
    }

    /// `raw` as an app transaction id (an identifier as Apple's transaction ids are).
    public static func appTransaction(parsing raw: String) throws(SupportError) -> SupportQuery {
        let trimmed = raw.trimmingWhitespace
        guard IdentifierRule.transactionID.accepts(trimmed) else {
            throw SupportError(
                .invalidAppTransactionID, "an app transaction id is \(IdentifierRule.transactionID.summary)")
        }
        return .appTransaction(trimmed)
    }

    /// `raw` as a Google Play purchase token: 1 to 1024 characters from `A-Z a-z 0-9 . _ -`.
    public static func purchaseToken(parsing raw: String) throws(SupportError) -> SupportQuery {
        let trimmed = raw.trimmingWhitespace
        guard (1...1024).contains(trimmed.utf8.count), trimmed.utf8.allSatisfy(Self.isTokenByte) else {
            throw SupportError(
                .invalidPurchaseToken, "a purchase token has 1 to 1024 characters from A-Z a-z 0-9 . _ -")
        }
        return .purchaseToken(trimmed)
    }

    /// `raw` as a Stripe id: `cus_`, `sub_`, `in_`, `ch_` or `pi_`, then letters and digits, up to 64 characters from
    /// `A-Z a-z 0-9 . _ -` in all (as the ledger keeps ids).
    public static func stripe(parsing raw: String) throws(SupportError) -> SupportQuery {
        let trimmed = raw.trimmingWhitespace
        guard let kind = StripeKind.allCases.first(where: { trimmed.hasPrefix($0.rawValue) }),
            trimmed.utf8.count > kind.rawValue.utf8.count, IdentifierRule.transactionID.accepts(trimmed)
        else {
            throw SupportError(
                .invalidStripeID,
                "a Stripe id is a customer (cus_…), subscription (sub_…), invoice (in_…), charge (ch_…) or payment intent (pi_…) id of up to 64 characters"
            )
        }
        return .stripe(kind, trimmed)
    }

    /// `raw` as one of `ids`, all of one store: its prefix, then 1 to 60 letters and digits.
    public static func store(parsing raw: String, among ids: [StoreSupportID]) throws(SupportError) -> SupportQuery {
        let trimmed = raw.trimmingWhitespace
        guard let kind = ids.first(where: { $0.accepts(trimmed) }) else {
            let store = ids.first?.store.displayName ?? "the store"
            throw SupportError(
                .invalidStoreID,
                "a \(store) id here starts with \(ids.map(\.prefix).joined(separator: " or ")), then up to 60 letters and digits"
            )
        }
        return .store(kind, trimmed)
    }

    /// `raw` as an account id.
    public static func account(parsing raw: String) throws(SupportError) -> SupportQuery {
        do {
            return .account(try AccountID(raw.trimmingWhitespace))
        } catch {
            throw SupportError(.invalidAccountID, IdentifierRule.accountID.summary)
        }
    }

    /// What free text (the admin page's search box) could name, in the order to try: a UUID is a token;
    /// digits are a transaction id; anything an account id can be is tried as an account before it is sent to
    /// Apple as an order id, so a lookup that the ledger can answer never calls Apple. Empty when the text can
    /// be none of them.
    public static func candidates(_ text: String, storeIDs: [StoreSupportID] = []) -> [SupportQuery] {
        let trimmed = text.trimmingWhitespace
        // Apple's order ids mix letters and digits; all-digit text is taken for a transaction id or an account id.
        let isDigits =
            !trimmed.isEmpty && trimmed.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        var candidates: [SupportQuery] = []
        if let token = try? appAccountToken(parsing: trimmed) { candidates.append(token) }
        // A Google Play order id (`GPA.3312-…`, a renewal's with `..N`) is a transaction id of the ledger.
        if trimmed.hasPrefix("GPA."), let transaction = try? transaction(parsing: trimmed) {
            candidates.append(transaction)
        }
        // Google's purchase tokens are long (over 100 characters) and never a UUID or an account id.
        if trimmed.utf8.count >= 64, let token = try? purchaseToken(parsing: trimmed) { candidates.append(token) }
        // Stripe's ids start with their kind (`cus_`, `sub_`, `in_`, `ch_`, `pi_`).
        let stripe = try? stripe(parsing: trimmed)
        if let stripe { candidates.append(stripe) }
        // The ids later stores declare (Paddle's `ctm_…`, `txn_…`), unless Stripe's took the text.
        let declared = stripe == nil ? storeIDs.first { $0.accepts(trimmed) } : nil
        if let declared { candidates.append(.store(declared, trimmed)) }
        // Another web store's id names its kind before an underscore: the ledger keeps its transactions and chains
        // under that id. Tried before an account id, which such text could also be, and after Stripe's, which
        // looks only at Stripe's purchases (Paddle's subscriptions are `sub_…` too).
        if declared == nil, !isDigits, Self.isWebStoreID(trimmed),
            let transaction = try? transaction(parsing: trimmed)
        {
            candidates.append(transaction)
        }
        if isDigits, let transaction = try? transaction(parsing: trimmed) { candidates.append(transaction) }
        if isDigits, let appTransaction = try? appTransaction(parsing: trimmed) { candidates.append(appTransaction) }
        if let account = try? account(parsing: trimmed) { candidates.append(account) }
        if !isDigits, let order = try? order(parsing: trimmed) { candidates.append(order) }
        return candidates
    }

    /// The kind, as the answer names it.
    public var kindName: String {
        switch self {
        case .order: "order"
        case .transaction: "transaction"
        case .appAccountToken: "app_account_token"
        case .account: "account"
        case .appTransaction: "app_transaction"
        case .purchaseToken: "purchase_token"
        case .stripe(let kind, _): kind.kindName
        case .store(let kind, _): kind.kindName
        }
    }

    /// The normalized id.
    public var id: String {
        switch self {
        case .order(let id), .transaction(let id), .appTransaction(let id), .purchaseToken(let id), .stripe(_, let id),
            .store(_, let id):
            id
        case .appAccountToken(let token): token.rawValue
        case .account(let account): account.rawValue
        }
    }

    public var description: String { "\(kindName) \(id)" }

    /// Whether `text` is shaped as a web store's id: 2 to 8 lowercase letters naming its kind, `_`, then letters and
    /// digits (`txn_01h8bxyz`, `sub_01h8…`, `in_1Nabc`).
    static func isWebStoreID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let underscore = bytes.firstIndex(of: UInt8(ascii: "_")), (2...8).contains(underscore),
            underscore + 1 < bytes.count
        else { return false }
        return bytes[..<underscore].allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
            && bytes[(underscore + 1)...].allSatisfy(isLetterOrDigit)
    }

    /// Whether `id` could be an App Store transaction id, which are decimal digits: only such ids are sent to Apple.
    public static func couldBeAppleTransactionID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
