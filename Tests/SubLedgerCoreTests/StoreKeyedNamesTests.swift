import Foundation
import SubLedgerCore
import Testing

/// The names stored for each store's transactions, notifications and refresh routes (`transactions.source`,
/// `notifications.version`, `chains.refresh_via`) are derived from `Store` for every store but the App Store. These
/// pin the names already in databases (the first stores', in `Store`'s order, never to change), check that every
/// later store's names follow the rule (`paddle_api`, `paddle_event`, `paddle`, `paddle_checkout`), and that a name
/// no store owns, or one naming the App Store in another store's form, is refused.
@Suite struct StoreKeyedNamesTests {
    /// The stores after the first three, whose names are checked by the rule.
    static let laterStores = Store.allCases.filter { ![.appStore, .googlePlay, .stripe].contains($0) }

    @Test func laterStoresFollowTheFirst() {
        #expect(Array(Store.allCases.prefix(3)) == [.appStore, .googlePlay, .stripe])
    }

    @Test func storedTransactionSourcesKeepTheirNames() throws {
        #expect(
            TransactionSource.allCases.map(\.rawValue) == [
                "verify_receipt", "signed_transaction", "notification_v2", "notification_v1", "server_api",
                "google_play_api", "stripe_api",
            ] + Self.laterStores.map { $0.rawValue + "_api" })
        for source in TransactionSource.allCases {
            #expect(TransactionSource(rawValue: source.rawValue) == source)
            let encoded = try JSONEncoder().encode([source])
            #expect(String(decoding: encoded, as: UTF8.self) == "[\"\(source.rawValue)\"]")
            #expect(try JSONDecoder().decode([TransactionSource].self, from: encoded) == [source])
        }
        #expect(TransactionSource.googlePlayAPI.store == .googlePlay)
        #expect(TransactionSource.stripeAPI.store == .stripe)
        for refused in ["app_store_api", "nostore_api", "_api", "stripe", "STRIPE_API", ""] {
            #expect(TransactionSource(rawValue: refused) == nil, "\(refused)")
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([TransactionSource].self, from: Data("[\"app_store_api\"]".utf8))
        }
    }

    @Test func onlyGooglePlaysSourceLeavesRevocationUnstated() {
        #expect(TransactionSource.allCases.filter { !$0.statesRevocation } == [.googlePlayAPI])
    }

    @Test func salesStatingTheirFeesAreTheStoresTakingNoCommission() {
        #expect(TransactionSource.statingFees == [.stripeAPI] + Self.laterStores.map { .storeAPI($0) })
        for store in Store.allCases {
            let basis = Commission.basis(
                of: store, subscription: true, smallBusiness: false, accruedPaidMilliseconds: 0)
            #expect((basis == .web) == !store.takesCommission, "\(store)")
        }
    }

    @Test func storedNotificationFormatsKeepTheirNames() {
        #expect(
            NotificationFormat.allCases.map(\.rawValue)
                == ["v1", "v2", "google_rtdn", "stripe_event"] + Self.laterStores.map { $0.rawValue + "_event" })
        for format in NotificationFormat.allCases {
            #expect(NotificationFormat(rawValue: format.rawValue) == format)
        }
        #expect(NotificationFormat.googlePlayRTDN.store == .googlePlay)
        #expect(NotificationFormat.stripeEvent.store == .stripe)
        for refused in ["google_play_event", "app_store_event", "v3", "_event", ""] {
            #expect(NotificationFormat(rawValue: refused) == nil, "\(refused)")
        }
    }

    @Test func storedRefreshRoutesKeepTheirNames() {
        #expect(
            ChainRefreshRoute.allCases.map(\.rawValue)
                == ["server_api", "verify_receipt", "google_play", "stripe"] + Self.laterStores.map(\.rawValue))
        for route in ChainRefreshRoute.allCases {
            #expect(ChainRefreshRoute(rawValue: route.rawValue) == route)
        }
        #expect(ChainRefreshRoute(rawValue: "app_store") == nil)
        #expect(ChainRefreshRoute.googlePlay.store == .googlePlay)
        #expect(ChainRefreshRoute.stripe.store == .stripe)
    }

    @Test func storedSubmissionKindsKeepTheirNames() throws {
        #expect(
            SubmissionKind.allCases.map(\.rawValue) == [
                "app_receipt", "signed_transaction", "google_purchase", "stripe_checkout",
            ] + Self.laterStores.map { $0.rawValue + "_checkout" })
        for kind in SubmissionKind.allCases {
            #expect(SubmissionKind(rawValue: kind.rawValue) == kind)
        }
        #expect(SubmissionKind.googlePurchase.store == .googlePlay)
        #expect(SubmissionKind.stripeCheckout.store == .stripe)
        for refused in ["google_play_checkout", "app_store_checkout", "stripe_purchase", "_checkout", ""] {
            #expect(SubmissionKind(rawValue: refused) == nil, "\(refused)")
        }
    }

    /// An input's kind: each submission's as stored, but an app receipt's, which is `receipt`.
    @Test func inputKindsKeepTheirNames() throws {
        let kinds: [LedgerInput.Kind] =
            [.receipt, .signedTransaction, .notification, .poll, .import, .googlePurchase, .stripeCheckout]
        #expect(
            kinds.map(\.rawValue) == [
                "receipt", "signed_transaction", "notification", "poll", "import", "google_purchase", "stripe_checkout",
            ])
        for kind in kinds {
            #expect(LedgerInput.Kind(rawValue: kind.rawValue) == kind)
            let encoded = try JSONEncoder().encode([kind])
            #expect(try JSONDecoder().decode([LedgerInput.Kind].self, from: encoded) == [kind])
        }
        #expect(LedgerInput.Kind(rawValue: "app_receipt") == nil)
        #expect(LedgerInput.Kind.receipt == .submission(.appReceipt))
    }
}
