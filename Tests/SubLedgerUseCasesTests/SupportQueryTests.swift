import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerUseCases

/// What a support query may be, and the sentence the customer is told, without a database.
@Suite struct SupportQueryTests {
    @Test func eachKindIsValidatedAndNormalized() throws {
        #expect(try SupportQuery.order(parsing: " mk5tttvwjh ") == .order("MK5TTTVWJH"))
        #expect(try SupportQuery.transaction(parsing: "2000000001") == .transaction("2000000001"))
        #expect(
            try SupportQuery.appAccountToken(parsing: "6F1C2A4E-0000-4000-8000-000000000000").id
                == "6f1c2a4e-0000-4000-8000-000000000000")
        #expect(try SupportQuery.account(parsing: "alice@example.com").id == "alice@example.com")

        let refusals: [(() throws(SupportError) -> SupportQuery, SupportError.Code)] = [
            ({ () throws(SupportError) in try SupportQuery.order(parsing: "MK5") }, .invalidOrderID),
            ({ () throws(SupportError) in try SupportQuery.order(parsing: "MK5T/TVWJH") }, .invalidOrderID),
            (
                { () throws(SupportError) in try SupportQuery.order(parsing: String(repeating: "A", count: 33)) },
                .invalidOrderID
            ),
            ({ () throws(SupportError) in try SupportQuery.transaction(parsing: "12 34") }, .invalidTransactionID),
            ({ () throws(SupportError) in try SupportQuery.transaction(parsing: "") }, .invalidTransactionID),
            (
                { () throws(SupportError) in try SupportQuery.appAccountToken(parsing: "not-a-uuid") },
                .invalidAppAccountToken
            ),
            ({ () throws(SupportError) in try SupportQuery.account(parsing: "a b") }, .invalidAccountID),
        ]
        for (parse, code) in refusals {
            do {
                _ = try parse()
                Issue.record("accepted a malformed id (\(code))")
            } catch {
                #expect(error.code == code)
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test func theSearchBoxDetectsWhatTheTextCanBe() {
        #expect(
            SupportQuery.candidates("6f1c2a4e-0000-4000-8000-000000000000").map(\.kindName)
                == ["app_account_token", "account"])
        #expect(SupportQuery.candidates("2000000001").map(\.kindName) == ["transaction", "app_transaction", "account"])
        #expect(SupportQuery.candidates("MK5TTTVWJH").map(\.kindName) == ["account", "order"])
        #expect(SupportQuery.candidates("alice@example.com").map(\.kindName) == ["account"])
        #expect(SupportQuery.candidates("<b>").isEmpty)
        #expect(SupportQuery.candidates("   ").isEmpty)
    }

    @Test func aStripeIdIsKnownByItsPrefix() throws {
        #expect(try SupportQuery.stripe(parsing: " cus_NffrFeUfNV2Hib ") == .stripe(.customer, "cus_NffrFeUfNV2Hib"))
        #expect(try SupportQuery.stripe(parsing: "sub_1MowQVLkdIwHu7ix").kindName == "stripe_subscription")
        #expect(try SupportQuery.stripe(parsing: "in_1MtHbELkdIwHu7ixl4OzzPMv").kindName == "stripe_invoice")
        #expect(try SupportQuery.stripe(parsing: "ch_3MmlLrLkdIwHu7ix0snN0B15").kindName == "stripe_charge")
        #expect(
            try SupportQuery.stripe(parsing: "pi_3MtwBwLkdIwHu7ix28a3tqPa")
                == .stripe(.paymentIntent, "pi_3MtwBwLkdIwHu7ix28a3tqPa"))
        for refused in [
            "cus_", "pi_", "pm_1NzwOJLkdIwHu7ix", "prod_1", "cus_a b", "ch_Þ", String(repeating: "a", count: 65),
        ] {
            do {
                _ = try SupportQuery.stripe(parsing: refused)
                Issue.record("accepted \(refused)")
            } catch {
                #expect(error.code == .invalidStripeID)
            }
        }
        // Stripe's first; then the ledger's chain of that id, which another web store's `sub_…` (Paddle's) is.
        #expect(
            SupportQuery.candidates("sub_1MowQVLkdIwHu7ix").map(\.kindName)
                == ["stripe_subscription", "transaction", "account"])
        #expect(SupportQuery.candidates("ch_3MmlLrLkdIwHu7ix").first?.kindName == "stripe_charge")
        // Another web store's id is looked for as a transaction or chain id of the ledger, then as an account id;
        // Apple is never asked about it (its transaction ids are digits).
        #expect(SupportQuery.candidates("txn_01h8bxyzabc").map(\.kindName) == ["transaction", "account"])
        #expect(SupportQuery.candidates("user_alice").map(\.kindName) == ["transaction", "account"])
        #expect(!SupportQuery.couldBeAppleTransactionID("txn_01h8bxyzabc"))
        #expect(SupportQuery.couldBeAppleTransactionID("2000000001"))
        #expect(
            !SupportQuery.isWebStoreID("_x") && !SupportQuery.isWebStoreID("Txn_1")
                && !SupportQuery.isWebStoreID("txn_"))
        // An id a store declares is tried as that store's before the ledger's transaction or an account.
        let customer = StoreSupportID(store: .paddle, prefix: "ctm_", kindName: "paddle_customer", names: .customer)
        #expect(
            SupportQuery.candidates("ctm_01h8bxyz", storeIDs: [customer]).map(\.kindName) == [
                "paddle_customer", "account",
            ])
        #expect(
            SupportQuery.candidates("sub_1MowQVLkdIwHu7ix", storeIDs: [customer]).first?.kindName
                == "stripe_subscription")
        #expect(throws: SupportError.self) { try SupportQuery.store(parsing: "ctm_", among: [customer]) }
        #expect(throws: SupportError.self) { try SupportQuery.store(parsing: "ctm_a-b", among: [customer]) }
        #expect(throws: SupportError.self) {
            try SupportQuery.store(parsing: "ctm_" + String(repeating: "a", count: 61), among: [customer])
        }
    }

    static let start = Instant(millisecondsSince1970: 1_735_689_600_000)  // 2025-01-01
    static let day: Int64 = 86_400_000
    static let key = ChainKey(environment: .production, chainID: "1000")

    static func chain(
        owner: String?, willAutoRenew: Bool = true, revokedOnDay: Int64? = nil, bindings: [BindingChange] = [],
        source: TransactionSource = .serverAPI
    )
        throws -> ChainSnapshot
    {
        let transaction = Transaction(
            transactionID: "1000", chainID: "1000", productID: "pro.monthly", purchaseDate: start,
            expiresDate: start.adding(milliseconds: 31 * day),
            revocationDate: revokedOnDay.map { start.adding(milliseconds: $0 * day) },
            revocationReason: revokedOnDay == nil ? nil : 0, environment: .production, source: source)
        var known = KnownTransaction(
            transaction: transaction, observedAt: start.adding(milliseconds: 20 * day),
            account: try owner.map { try AccountID($0) })
        if let revokedOnDay {
            known.revocations = [
                ObservedRevocation(
                    revocationDate: start.adding(milliseconds: revokedOnDay * day), revocationReason: 0,
                    isFamilySharing: false, lastObservedAt: start.adding(milliseconds: 20 * day))
            ]
        }
        let renewal = RenewalInfo(
            chainID: "1000", productID: "pro.monthly", willAutoRenew: willAutoRenew,
            environment: .production,
            observedAt: start)
        return ChainSnapshot(
            header: SubscriptionChain(
                key: key, bundleID: "com.example.app", productType: .autoRenewable,
                owner: try owner.map { try AccountID($0) }, productID: "pro.monthly",
                latestExpiry: start.adding(milliseconds: 31 * day), renewalInfo: renewal),
            transactions: [known], bindingChanges: bindings)
    }

    static let app = App(
        bundleID: "com.example.app", environments: [.production],
        products: [Product(productID: "pro.monthly", type: .autoRenewable, entitlementIDs: ["pro"])])

    static func advice(_ chain: ChainSnapshot, expected: String? = nil, onDay day: Int64 = 10) throws -> String {
        let now = start.adding(milliseconds: day * Self.day)
        return CustomerAdvice.advice(
            for: chain, state: chain.state(at: now, in: app), expectedAccount: try expected.map { try AccountID($0) },
            now: now)
    }

    @Test func theAdviceFollowsTheStateNow() throws {
        #expect(try Self.advice(Self.chain(owner: "olga")) == "Active until 2025-02-01, renews automatically.")
        #expect(
            try Self.advice(Self.chain(owner: "olga", willAutoRenew: false))
                == "Active until 2025-02-01; auto-renew is off, so it ends then.")
        #expect(
            try Self.advice(Self.chain(owner: "rhea", revokedOnDay: 5))
                == "Refunded on 2025-01-06; access was revoked.")
        #expect(try Self.advice(Self.chain(owner: "olga", willAutoRenew: false), onDay: 40) == "Expired on 2025-02-01.")
        #expect(try Self.advice(Self.chain(owner: nil)).contains("no account has claimed it yet"))
    }

    /// The advice names the store that holds the purchase and retries the charge: Google Play for its chains.
    @Test func theAdviceNamesTheChainsStore() throws {
        let google = try Self.chain(owner: nil, source: .googlePlayAPI)
        #expect(try Self.advice(google).hasPrefix("Google Play has this purchase but no account has claimed it yet"))
        let now = Self.start.adding(milliseconds: 10 * Self.day)
        let owned = try Self.chain(owner: "olga", source: .googlePlayAPI)
        let retrying = CustomerAdvice.advice(for: owned, state: .billingRetry, expectedAccount: nil, now: now)
        #expect(
            retrying == "The last payment failed; access is paused while Google Play retries the charge. "
                + "Ask the customer to update their payment method.")
        #expect(!retrying.contains("Apple"))
        let apple = CustomerAdvice.advice(
            for: try Self.chain(owner: "olga"), state: .billingRetry, expectedAccount: nil, now: now)
        #expect(apple.contains("while Apple retries the charge"))
    }

    @Test func anotherOwnerAndATransferComeFirst() throws {
        let ann = try AccountID("ann")
        let ben = try AccountID("ben")
        let bindings = [
            BindingChange(
                chain: Self.key, sequence: 0, from: nil, to: ann, reason: .firstClaim, at: Self.start,
                transactionID: nil),
            BindingChange(
                chain: Self.key, sequence: 1, from: ann, to: ben, reason: .ownerNotActivelyAutoRenewing,
                at: Self.start.adding(milliseconds: 3 * Self.day), transactionID: "1000"),
        ]
        let advice = try Self.advice(Self.chain(owner: "ben", bindings: bindings), expected: "ann")
        #expect(
            advice
                == "Purchase made or restored while signed in as another account: owned by account ben, not ann. "
                + "Ask the customer to sign in as ben. It moved from account ann to ben on 2025-01-04 "
                + "(owner_not_actively_auto_renewing). Active until 2025-02-01, renews automatically.")
    }
}
