import SubLedgerCore

/// A realistic set of inputs for the convergence property: three accounts, subscription chains with
/// renewals, an upgrade, a refund and its reversal, renewal-state changes, a grace period, consumables,
/// a non-renewing pass, a Family Sharing revocation, orders by token and by fallback, notifications and
/// polls without submitter. All evaluated at `now`.
enum ConvergenceScenario {
    typealias F = Fixtures

    static let now = F.day(100)
    static let bobToken = "b0b00000-0000-4000-8000-000000000001"
    static let carolUpgradeOrder = Order(
        id: F.orderID(21), account: F.carol, productID: F.premiumMonthly, bundleID: F.bundleID, createdAt: F.day(10))
    static let carolFirstOrder = Order(
        id: F.orderID(20), account: F.carol, productID: F.proMonthly, bundleID: F.bundleID, createdAt: F.day(0))
    static let bobPassOrder = Order(
        id: F.orderID(30), account: F.bob, productID: F.pass, bundleID: F.bundleID, createdAt: F.day(70))
    static let aliceCoinsOrder = Order(
        id: F.orderID(40), account: F.alice, productID: F.coins, bundleID: F.bundleID, createdAt: F.day(6))

    /// A fresh ledger with the scenario's tokens and orders registered.
    static func emptyState() -> LedgerState {
        var state = LedgerState(catalog: F.catalog())
        if let token = AccountToken(bobToken) { state.register(token, for: F.bob, bundleID: F.bundleID) }
        for order in [carolUpgradeOrder, carolFirstOrder, bobPassOrder, aliceCoinsOrder] { state.place(order) }
        return state
    }

    static func signed(_ transaction: Transaction, on day: Int) -> Transaction {
        var transaction = transaction
        transaction.signedDate = F.day(day)
        transaction.source = .notificationV2
        // What only signed versions state; a different price per signing day, so that the orders in which
        // two statements of one transaction arrive must agree on the later one (`SignedTransactionDetails`).
        transaction.price = 9_000 + Int64(day)
        transaction.currency = "USD"
        transaction.appTransactionID = "70428957231155\(day)"
        return transaction
    }

    static func signedTransactions(
        by account: AccountID, _ transactions: [Transaction],
        renewals: [RenewalInfo] = [], observedOn day: Int
    ) -> LedgerInput {
        var input = F.receipt(by: account, transactions, renewals: renewals, observedOn: day)
        input.kind = .signedTransaction
        return input
    }

    // Alice: legacy receipts with empty applicationUsername; a monthly chain with a reversed refund.
    static let a1 = F.subscription("a1", chain: "a1", from: 0, to: 30, applicationUsername: "")
    static let a2 = F.subscription("a2", chain: "a1", from: 30, to: 60, applicationUsername: "")
    static let a2Refunded = F.subscription("a2", chain: "a1", from: 30, to: 60, revokedOn: 40, applicationUsername: "")
    static let a3 = F.subscription("a3", chain: "a1", from: 60, to: 90, applicationUsername: "")
    static let a4 = F.subscription("a4", chain: "a1", from: 90, to: 120, applicationUsername: "")
    static let l1 = F.purchase("l1", product: F.lifetime, on: 5)
    static let x1 = F.purchase("x1", product: F.coins, on: 6, applicationUsername: "")

    // Bob: StoreKit 2 with his account token; consumables (one refunded) and a pass bought through an order.
    static let b1 = F.purchase("b1", product: F.coins, on: 10, appAccountToken: bobToken)
    static let b2 = F.purchase("b2", product: F.coins, on: 20, appAccountToken: bobToken)
    static let b2Refunded = F.purchase("b2", product: F.coins, on: 20, revokedOn: 25, appAccountToken: bobToken)
    static let p1 = F.purchase("p1", product: F.pass, on: 70, appAccountToken: bobPassOrder.id.rawValue)

    // Carol: orders as tokens; an upgrade from pro to premium, renewals, then a grace period; a shared product.
    static let c1 = F.subscription("c1", chain: "c1", from: 0, to: 30, appAccountToken: carolFirstOrder.id.rawValue)
    static let c1Upgraded = F.subscription(
        "c1", chain: "c1", from: 0, to: 30, upgradedOn: 10, appAccountToken: carolFirstOrder.id.rawValue)
    static let c2 = F.subscription(
        "c2", chain: "c1", product: F.premiumMonthly, from: 10, to: 40, appAccountToken: carolUpgradeOrder.id.rawValue)
    static let c3 = F.subscription(
        "c3", chain: "c1", product: F.premiumMonthly, from: 40, to: 70, appAccountToken: carolUpgradeOrder.id.rawValue)
    static let c4 = F.subscription(
        "c4", chain: "c1", product: F.premiumMonthly, from: 70, to: 100,
        appAccountToken: carolUpgradeOrder.id.rawValue)
    static let f1 = F.purchase("f1", product: F.lifetime, on: 3, ownership: .familyShared)
    static let f1Revoked = F.purchase("f1", product: F.lifetime, on: 3, revokedOn: 50, ownership: .familyShared)

    /// Inputs in which every chain is only ever attributed to one account (or to nobody).
    static let singleClaimantInputs: [LedgerInput] = [
        F.receipt(
            by: F.alice, [a1], renewals: [F.renewal(chain: "a1", willAutoRenew: true, observedOn: 1)],
            observedOn: 1),
        F.notification(
            [signed(a2, on: 30)], renewals: [F.renewal(chain: "a1", willAutoRenew: true, observedOn: 30)],
            observedOn: 30),
        F.notification([signed(a2Refunded, on: 41)], observedOn: 41),
        F.notification([signed(a2, on: 45)], observedOn: 45),
        F.notification(
            [],
            renewals: [
                F.renewal(
                    chain: "a1", willAutoRenew: false, observedOn: 50,
                    expirationIntent: 1)
            ], observedOn: 50),
        F.notification([], renewals: [F.renewal(chain: "a1", willAutoRenew: true, observedOn: 55)], observedOn: 55),
        F.notification([signed(a3, on: 60)], observedOn: 60),
        F.notification([signed(l1, on: 5)], observedOn: 5),
        F.notification([signed(x1, on: 6)], observedOn: 6),
        F.receipt(
            by: F.alice, [a3, a1, a4, a2, a1, l1, x1],
            renewals: [F.renewal(chain: "a1", willAutoRenew: true, observedOn: 91)], observedOn: 92),
        LedgerInput(
            kind: .poll, bundleID: F.bundleID, environment: .production,
            transactions: [a1, a2, a3, a4].map { signed($0, on: 95) },
            renewalInfo: [F.renewal(chain: "a1", willAutoRenew: true, observedOn: 95)], observedAt: F.day(95)),

        F.notification([signed(b1, on: 10)], observedOn: 10),
        F.notification([signed(b2, on: 20)], observedOn: 20),
        F.notification([signed(b2Refunded, on: 26)], observedOn: 26),
        signedTransactions(by: F.bob, [signed(b1, on: 10), signed(b2, on: 20)], observedOn: 21),
        F.notification([signed(p1, on: 70)], observedOn: 70),

        signedTransactions(
            by: F.carol, [signed(c1, on: 1)],
            renewals: [F.renewal(chain: "c1", willAutoRenew: true, observedOn: 1)], observedOn: 1),
        F.notification(
            [signed(c1Upgraded, on: 11), signed(c2, on: 10)],
            renewals: [
                F.renewal(
                    chain: "c1", product: F.premiumMonthly, willAutoRenew: true,
                    observedOn: 11)
            ], observedOn: 11),
        F.notification([signed(c3, on: 40)], observedOn: 40),
        F.notification([signed(c4, on: 70)], observedOn: 70),
        F.notification(
            [],
            renewals: [
                F.renewal(
                    chain: "c1", product: F.premiumMonthly, willAutoRenew: true,
                    observedOn: 100, billingRetry: true, graceUntil: 106)
            ],
            observedOn: 100),
        signedTransactions(by: F.carol, [signed(c2, on: 41), signed(c3, on: 41)], observedOn: 41),
        F.receipt(by: F.carol, [f1], observedOn: 4),
        F.notification([signed(f1Revoked, on: 50)], observedOn: 50),
    ]

    // Story 2 on chain s1: alice subscribes, turns auto-renew off, lapses; bob buys on the same Apple ID;
    // alice later uploads bob's renewal.
    static let s1 = F.subscription("s1", chain: "s1", from: 0, to: 30)
    static let s3 = F.subscription("s3", chain: "s1", from: 40, to: 70)
    static let s4 = F.subscription("s4", chain: "s1", from: 70, to: 110)

    /// Inputs on one chain claimed by two accounts, in their only meaningful order.
    static let contestedChainInputs: [LedgerInput] = [
        F.receipt(
            by: F.alice, [s1], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 0)],
            observedOn: 0),
        F.notification(
            [],
            renewals: [
                F.renewal(
                    chain: "s1", willAutoRenew: false, observedOn: 10,
                    expirationIntent: 1)
            ], observedOn: 10),
        F.receipt(
            by: F.bob, [s1, s3], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 40)],
            observedOn: 40),
        F.receipt(
            by: F.alice, [s1, s3, s4], renewals: [F.renewal(chain: "s1", willAutoRenew: true, observedOn: 71)],
            observedOn: 71),
    ]

    /// What two runs must agree on: every stored row and every answer the ledger gives.
    struct Outcome: Equatable {
        var chains: [ChainKey: ChainSnapshot]
        var entries: [String: LedgerEntry]
        var orders: [OrderID: Order]
        var entitlements: [[Entitlement]]
        var balances: [Int64]

        init(_ state: LedgerState) {
            chains = state.chains
            entries = state.entries
            orders = state.orders
            let accounts = [F.alice, F.bob, F.carol]
            let instants = [0, 5, 12, 35, 42, 45, 52, 75, 99, 100, 104, 107, 200].map { F.day($0) }
            entitlements = accounts.flatMap { account in
                instants.map { state.entitlements(for: account, bundleID: F.bundleID, at: $0) }
            }
            balances = accounts.flatMap { account in
                instants.map { state.creditBalance(for: account, bundleID: F.bundleID, at: $0) }
            }
        }
    }

    static func run(_ inputs: [LedgerInput]) throws -> LedgerState {
        var state = emptyState()
        for input in inputs { try state.apply(input, now: now) }
        return state
    }
}
