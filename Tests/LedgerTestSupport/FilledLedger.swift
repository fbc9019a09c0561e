import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore

/// A ledger filled as the service fills it, for the tamper-evidence tests of the store and of `ledger verify`.
public enum FilledLedger {
    private typealias F = LedgerFixtures
    static let alice = F.account("alice")
    static let bob = F.account("bob")

    /// A ledger as the service writes it: purchases from stored receipts, renewals and a refund from stored
    /// notifications (received as Apple delivers them), a consumable bought and refunded, a replay.
    public static func fill(_ store: LedgerStore, _ app: StoredApp) async throws {
        func receipt(_ input: LedgerInput, _ body: String, by account: AccountID, day: Int) async throws {
            let id = try await store.storeSubmission(kind: .appReceipt, body: body, account: account, app: app)
            try await store.apply(input, app: app, reference: .submission(id), now: F.day(day))
        }
        func notification(_ id: String, _ type: String, _ transaction: Transaction, day: Int) async throws {
            let subscription = transaction.productID == "pro.monthly"
            let notification = ServerNotification(
                notificationID: id, version: .v2, notificationType: type, bundleID: F.bundleID,
                environment: .production, signedDate: F.day(day), transaction: transaction,
                renewalInfo: subscription
                    ? F.renewal(chain: transaction.chainID, willAutoRenew: true, on: day) : nil)
            _ = try await store.receive(
                notification, body: #"{"signedPayload":"\#(id)"}"#, input: LedgerInput(notification: notification),
                app: app, now: F.day(day))
        }
        try await receipt(
            F.receipt(by: alice, [F.subscription("a1", chain: "alice-sub", from: 0, to: 30)], on: 0), "receipt-a1",
            by: alice, day: 0)
        try await receipt(
            F.receipt(by: bob, [F.subscription("b1", chain: "bob-sub", from: 2, to: 32)], on: 2), "receipt-b1",
            by: bob, day: 2)
        try await receipt(
            F.receipt(by: bob, [F.consumable("coins-1", on: 3)], on: 3), "receipt-coins", by: bob, day: 3)
        for month in 1...3 {
            try await notification(
                "renew-a\(month)", "DID_RENEW",
                F.subscription("a\(month + 1)", chain: "alice-sub", from: month * 30, to: month * 30 + 30),
                day: month * 30)
        }
        try await notification(
            "renew-b1", "DID_RENEW", F.subscription("b2", chain: "bob-sub", from: 32, to: 62), day: 32)
        try await notification(
            "refund-b2", "REFUND", F.subscription("b2", chain: "bob-sub", from: 32, to: 62, refundedOn: 40), day: 40)
        try await notification("refund-coins", "REFUND", F.consumable("coins-1", on: 3, refundedOn: 5), day: 5)
        // A replay of alice's first receipt: stored again (the same row), applied again, changes nothing.
        try await receipt(
            F.receipt(by: alice, [F.subscription("a1", chain: "alice-sub", from: 0, to: 30)], on: 50), "receipt-a1",
            by: alice, day: 50)
    }

    /// Runs `sql` with the append-only triggers of the ledger and the links switched off, as a superuser could.
    public static func behindItsBack(_ pool: PostgresPool, _ sql: String) async throws {
        try await pool.execute(
            script: """
                ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_no_update;
                ALTER TABLE ledger_chain_links DISABLE TRIGGER ledger_chain_links_no_update;
                \(sql);
                ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_no_update;
                ALTER TABLE ledger_chain_links ENABLE TRIGGER ledger_chain_links_no_update;
                """)
    }
}
