/// A purchase an account announced before paying: the app passes `id` to StoreKit as `appAccountToken`.
public struct Order: Hashable, Sendable, Codable {
    /// Whether the purchase the order waits for has been seen.
    public enum State: String, Hashable, Sendable, Codable {
        case pending
        case fulfilled
    }

    public var id: OrderID
    public var account: AccountID
    public var productID: String
    public var bundleID: String
    public var createdAt: Instant
    public var state: State
    /// The transaction that fulfilled the order; set exactly when `state == .fulfilled`.
    public var fulfilledBy: String?

    public init(
        id: OrderID,
        account: AccountID,
        productID: String,
        bundleID: String,
        createdAt: Instant,
        state: State = .pending,
        fulfilledBy: String? = nil
    ) {
        self.id = id
        self.account = account
        self.productID = productID
        self.bundleID = bundleID
        self.createdAt = createdAt
        self.state = state
        self.fulfilledBy = fulfilledBy
    }
}
