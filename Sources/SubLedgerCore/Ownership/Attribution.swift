/// Whom an arriving transaction is attributed to: the "submitter" of the ownership rule.
public enum Attribution: Hashable, Sendable {
    /// A token of the transaction names a known account of the app, directly or through an order.
    case token(AccountID)
    /// No token resolved; the account that submitted the input.
    case submitter(AccountID)
    /// No submitter, and a token that does not resolve (yet): kept unclaimed rather than guessed.
    case deferred
    /// No submitter and no token at all: kept unclaimed until an account submits it.
    case unknown

    /// The attributed account, if any.
    public var account: AccountID? {
        switch self {
        case .token(let account), .submitter(let account): account
        case .deferred, .unknown: nil
        }
    }

    /// Resolves the submitter of `transaction`.
    ///
    /// A token (`appAccountToken`, then `applicationUsername`, normalized) wins over the explicit submitter
    /// when it names an account of this app: it was set when the purchase was made, by whoever made it, while
    /// the submitter is merely whoever is signed in now. A token that names nothing known, or an order of
    /// another app, is ignored in favour of the submitter.
    ///
    /// - Parameters:
    ///   - accountsByToken: tokens of this app's accounts (the storage layer loads only this app's).
    ///   - ordersByID: orders that tokens may name; orders of other apps are not trusted.
    public static func resolve(
        _ transaction: Transaction,
        submitter: AccountID?,
        accountsByToken: [AccountToken: AccountID],
        ordersByID: [OrderID: Order],
        app: App
    ) -> Attribution {
        let tokens = AccountToken.tokens(of: transaction)
        for token in tokens {
            if let account = accountsByToken[token] { return .token(account) }
            if let order = OrderMatching.order(namedBy: token, in: ordersByID, app: app) {
                return .token(order.account)
            }
        }
        if let submitter { return .submitter(submitter) }
        return tokens.isEmpty ? .unknown : .deferred
    }
}
