import AppStore
import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Customer support lookups end to end: appstore-sim as Apple (Look Up Order ID, Get Transaction Info), real
/// PostgreSQL, through the function `subledger support` runs (`SupportLookup`), `/v1/admin/lookup/...` and
/// the admin page's search box.
@Suite struct SupportLookupTests {
    typealias E = EndToEndHarness

    /// Gives the app its App Store Server API key (the simulator's), as `subledger catalog apply` would.
    static func configureServerAPI(_ e: E) async throws {
        let simApp = try e.control.app(E.bundleID)
        let pem = try #require(simApp.serverAPI.privateKeyPEM)
        let (catalog, _) = try CatalogFile.read(ServiceHarness.catalogYAML)
        try await e.service.catalog.applyCatalog(
            catalog,
            secrets: [
                E.bundleID: AppSecrets(
                    serverAPI: .init(
                        issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID, privateKeyPEM: pem))
            ])
    }

    /// The lookup `subledger support` builds, with its own gateway to the simulator.
    static func lookup(_ e: E) throws -> SupportLookup {
        let gateway = try AppleGateway(
            configuration: AppleConfiguration(
                verifyReceiptProductionURL: e.sim.productionVerifyReceiptURL,
                verifyReceiptSandboxURL: e.sim.sandboxVerifyReceiptURL, trustAppleRoot: false, timeout: .seconds(20),
                serverAPIProductionURL: e.sim.serverAPIBaseURL(.production),
                serverAPISandboxURL: e.sim.serverAPIBaseURL(.sandbox)),
            additionalRoots: [e.sim.trustedRoot], logger: TestDatabase.logger)
        return SupportLookup(
            store: e.service.store, catalog: e.service.catalog, apple: gateway, logger: TestDatabase.logger,
            now: { Instant(millisecondsSince1970: e.control.clock().now) })
    }

    static func admin(_ e: E) async throws -> String {
        try await e.service.keys.create(bundleID: nil, name: "support").secret
    }

    /// The admin page for `query`, as a browser gets it.
    static func adminSearch(_ e: E, _ query: String, admin: String) async throws -> String {
        let basic = "Basic " + Data("ops:\(admin)".utf8).base64EncodedString()
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query
        let page = try await e.client.executeRequest(
            uri: "/admin?q=\(encoded)", method: .get, headers: [.authorization: basic], body: nil)
        #expect(page.status == .ok)
        return String(buffer: page.body)
    }

    @Test func anOrderIDFromAPurchaseResolvesToItsAccountThroughTheCommandTheRouteAndTheSearchBox() async throws {
        try await E.run { e in
            try await Self.configureServerAPI(e)
            let appleID = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "olga")
            let orderID = try #require(bought.orderID)

            // The command's function; the customer typed the order id in lower case.
            let answer = try await Self.lookup(e).lookUp(
                try SupportQuery.order(parsing: orderID.lowercased()), bundleID: E.bundleID)
            #expect(answer.kind == .order)
            #expect(answer.query == orderID)
            #expect(answer.accountID == "olga")
            #expect(answer.chains.map(\.ownerAccountID) == ["olga"])
            #expect(answer.chains.first?.state == "active")
            #expect(answer.chains.first?.ownership.map(\.reason) == ["first_claim"])
            #expect(answer.chains.first?.submittedBy == ["olga"])
            #expect(answer.apple?.unrecordedTransactionIDs == [])
            #expect(answer.advice.hasPrefix("Active until "))
            #expect(answer.advice.hasSuffix("renews automatically."))
            #expect(
                answer.timeline.contains { $0.category == .ledgerEntry && $0.kind == "grant" && $0.accountID == "olga" }
            )
            #expect(answer.text.contains("Tell the customer: Active until"))
            #expect(answer.text.contains("olga"))

            let admin = try await Self.admin(e)
            let route = try await e.client.call(
                .get, "/v1/admin/lookup/order/\(orderID)?bundle_id=\(E.bundleID)", key: admin)
            #expect(route.status == .ok)
            #expect(route.json["account_id"] as? String == "olga")
            #expect(route.json["kind"] as? String == "order")
            let chains = route.json["chains"] as? [[String: Any]] ?? []
            #expect(chains.first?["owner_account_id"] as? String == "olga")
            #expect(chains.first?["store"] as? String == "app_store")
            #expect(chains.first?["original_transaction_id"] as? String == bought.originalTransactionID)
            #expect((route.json["advice"] as? String)?.hasPrefix("Active until") == true)
            #expect((route.json["timeline"] as? [[String: Any]])?.isEmpty == false)

            // An app key is not enough.
            let appKey = try await e.client.call(
                .get, "/v1/admin/lookup/order/\(orderID)?bundle_id=\(E.bundleID)", key: e.key)
            #expect(appKey.status == .forbidden)

            // The search box: the order id, the transaction id, the original transaction id and the account.
            for query in [orderID, try #require(bought.transactionID), "olga"] {
                let html = try await Self.adminSearch(e, query, admin: admin)
                #expect(html.contains("Tell the customer:"))
                #expect(html.contains("<code>olga</code>"))
                #expect(html.contains("Active until"))
            }
            let html = try await Self.adminSearch(e, orderID, admin: admin)
            #expect(html.contains("order <code>\(orderID)</code>"))
        }
    }

    @Test func aPurchaseMadeOnOneAccountAndClaimedByAnotherShowsTheOwnerAndTheTransfer() async throws {
        try await E.run { e in
            try await Self.configureServerAPI(e)
            await e.loseNotifications()  // the story is about uploads, as in docs/explanation/ownership.md
            let appleID = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "ann")
            // Ann lets it lapse; later the same Apple ID resubscribes while signed in to the app as Ben.
            let original = try #require(bought.originalTransactionID)
            _ = try await e.control.setAutoRenew(original, enabled: false)
            _ = await e.control.advanceClock(.init(days: 35))
            let resubscribed = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            #expect(resubscribed.originalTransactionID == original)
            _ = try await e.submitReceipt(resubscribed.receiptData, account: "ben")

            let lookup = try Self.lookup(e)
            let byOrder = try await lookup.lookUp(
                try SupportQuery.order(parsing: try #require(bought.orderID)), bundleID: E.bundleID)
            let chain = try #require(byOrder.chains.first)
            #expect(chain.ownerAccountID == "ben")
            #expect(chain.ownership.map(\.accountID) == ["ann", "ben"])
            #expect(chain.ownership.last?.fromAccountID == "ann")
            #expect(chain.ownership.first?.endedAt != nil)
            #expect(Set(chain.submittedBy) == ["ann", "ben"])
            #expect(byOrder.advice.contains("moved from account ann to ben"))
            #expect(byOrder.advice.contains("renews automatically"))

            // Ann asks: her account is told who owns it.
            let byAccount = try await lookup.lookUp(try SupportQuery.account(parsing: "ann"), bundleID: E.bundleID)
            #expect(byAccount.accountID == "ann")
            #expect(byAccount.chains.first?.ownerAccountID == "ben")
            #expect(
                byAccount.advice.contains(
                    "Purchase made or restored while signed in as another account: owned by account ben"))
            #expect(byAccount.timeline.contains { $0.category == .bindingEnded && $0.accountID == "ann" })

            let admin = try await Self.admin(e)
            let route = try await e.client.call(
                .get, "/v1/admin/lookup/account/ann?bundle_id=\(E.bundleID)", key: admin)
            #expect(route.status == .ok)
            #expect((route.json["advice"] as? String)?.contains("owned by account ben") == true)
            let html = try await Self.adminSearch(e, "ann", admin: admin)
            #expect(html.contains("owned by account ben"))
            #expect(html.contains("ann (first_claim) -&gt; ben (owner_not_actively_auto_renewing)"))
        }
    }

    @Test func aRefundedPurchaseSaysSo() async throws {
        try await E.run { e in
            try await Self.configureServerAPI(e)
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "rhea")
            let transactionID = try #require(bought.transactionID)
            _ = try await e.control.refund(transactionID)
            await e.deliverNotifications()

            let answer = try await Self.lookup(e).lookUp(
                try SupportQuery.transaction(parsing: transactionID), bundleID: E.bundleID)
            #expect(answer.chains.first?.state == "revoked")
            #expect(answer.chains.first?.revokedAt != nil)
            #expect(answer.advice.hasPrefix("Refunded on "))
            #expect(answer.advice.hasSuffix("access was revoked."))
            #expect(answer.timeline.contains { $0.category == .ledgerEntry && $0.kind == "revoke" })
            #expect(answer.apple == nil)  // the ledger knew it: Apple was not asked

            let admin = try await Self.admin(e)
            let route = try await e.client.call(
                .get, "/v1/admin/lookup/order/\(try #require(bought.orderID))?bundle_id=\(E.bundleID)", key: admin)
            #expect((route.json["chains"] as? [[String: Any]])?.first?["state"] as? String == "revoked")
            #expect((route.json["advice"] as? String)?.hasPrefix("Refunded on") == true)
        }
    }

    @Test func anOrderUnknownToTheLedgerIsOfferedAndAppliedOnlyWhenAsked() async throws {
        try await E.run { e in
            try await Self.configureServerAPI(e)
            await e.loseNotifications()
            let admin = try await Self.admin(e)
            // Tia's app created an order (its id is the app account token), the purchase reached Apple only.
            let order = try await e.client.call(
                .post, "/v1/orders", key: e.key, json: ["account_id": "tia", "product_id": "pro.monthly"])
            let token = try #require(order.json["order_id"] as? String)
            let bought = try await e.control.purchase(
                PurchaseRequest(
                    appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly", appAccountToken: token))
            let orderID = try #require(bought.orderID)

            let byToken = try await e.client.call(
                .get, "/v1/admin/lookup/token/\(token.uppercased())?bundle_id=\(E.bundleID)", key: admin)
            #expect(byToken.status == .ok)
            #expect((byToken.json["order"] as? [String: Any])?["state"] as? String == "pending")
            #expect(
                (byToken.json["advice"] as? String)?.contains("no purchase with this token has reached SubLedger")
                    == true)

            let offered = try await e.client.call(
                .get, "/v1/admin/lookup/order/\(orderID)?bundle_id=\(E.bundleID)", key: admin)
            #expect(offered.status == .ok)
            let apple = offered.json["apple"] as? [String: Any] ?? [:]
            #expect(apple["unrecorded_transaction_ids"] as? [String] == [bought.transactionID!])
            #expect(apple["applied"] as? Bool == false)
            #expect(
                (offered.json["advice"] as? String)?.hasPrefix(
                    "Apple knows this purchase but SubLedger has no record of it") == true)
            #expect(try await e.entitlements("tia").entitlementIDs.isEmpty)  // a GET changed nothing

            let applied = try await e.client.call(
                .post, "/v1/admin/lookup/order/\(orderID)?bundle_id=\(E.bundleID)", key: admin)
            #expect(applied.status == .ok)
            #expect((applied.json["apple"] as? [String: Any])?["applied"] as? Bool == true)
            // No submitter: the app account token names Tia's order, so Tia owns it.
            #expect(applied.json["account_id"] as? String == "tia")
            #expect(try await e.entitlements("tia").entitlementIDs == ["pro"])

            // Applying again is a no-op: the ledger now knows it.
            let again = try await Self.lookup(e).lookUp(
                try SupportQuery.order(parsing: orderID), bundleID: E.bundleID, apply: true)
            #expect(again.apple?.unrecordedTransactionIDs == [])
            #expect(again.apple?.applied == false)

            let byTokenNow = try await Self.lookup(e).lookUp(
                try SupportQuery.appAccountToken(parsing: token), bundleID: E.bundleID)
            #expect(byTokenNow.order?.accountID == "tia")
            #expect(byTokenNow.chains.first?.ownerAccountID == "tia")
            let html = try await Self.adminSearch(e, token, admin: admin)
            #expect(html.contains("Order token <code>\(token)</code>"))
            #expect(html.contains("<code>tia</code>"))

            // Without a token a purchase applied from Apple stays unclaimed until the customer restores it.
            let anonymous = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            let unclaimed = try await Self.lookup(e).lookUp(
                try SupportQuery.transaction(parsing: try #require(anonymous.transactionID)), bundleID: E.bundleID,
                apply: true)
            #expect(unclaimed.apple?.applied == true)
            #expect(unclaimed.chains.first?.ownerAccountID == nil)
            #expect(unclaimed.advice.contains("no account has claimed it yet"))
        }
    }

    @Test func unknownAndMalformedIDsGetClearErrors() async throws {
        try await E.run { e in
            try await Self.configureServerAPI(e)
            let admin = try await Self.admin(e)
            let app = "bundle_id=\(E.bundleID)"
            let cases: [(String, HTTPResponse.Status, String)] = [
                ("/v1/admin/lookup/order/ZZZZZZZZZZ?\(app)", .notFound, "order_not_found"),
                ("/v1/admin/lookup/order/AB?\(app)", .badRequest, "invalid_order_id"),
                ("/v1/admin/lookup/order/MK5T%2FTVWJH?\(app)", .badRequest, "invalid_order_id"),
                ("/v1/admin/lookup/transaction/9999999999?\(app)", .notFound, "transaction_not_found"),
                ("/v1/admin/lookup/transaction/12%2034?\(app)", .badRequest, "invalid_transaction_id"),
                ("/v1/admin/lookup/token/not-a-uuid?\(app)", .badRequest, "invalid_app_account_token"),
                (
                    "/v1/admin/lookup/token/6f1c2a4e-0000-4000-8000-000000000000?\(app)", .notFound,
                    "app_account_token_not_found"
                ),
                ("/v1/admin/lookup/account/nobody?\(app)", .notFound, "account_not_found"),
                ("/v1/admin/lookup/account/a%20b?\(app)", .badRequest, "invalid_account_id"),
                ("/v1/admin/lookup/account/nobody", .badRequest, "bundle_id_required"),
                ("/v1/admin/lookup/account/nobody?bundle_id=com.example.none", .notFound, "unknown_app"),
                ("/v1/admin/lookup/account/nobody?\(app)&verbose=1", .badRequest, "unknown_parameter"),
                // App two has no Server API key: Apple cannot be asked.
                ("/v1/admin/lookup/order/MK5TTTVWJH?bundle_id=com.example.two", .conflict, "server_api_not_configured"),
            ]
            for (uri, status, code) in cases {
                let answer = try await e.client.call(.get, uri, key: admin)
                #expect(answer.status == status, "\(uri)")
                #expect(answer.json.errorCode == code, "\(uri)")
                #expect(answer.json.errorMessage?.isEmpty == false)
            }
            await #expect(throws: SupportError.self) {
                _ = try await Self.lookup(e).lookUp(try SupportQuery.order(parsing: "ZZZZZZZZZZ"), bundleID: E.bundleID)
            }
            #expect(throws: SupportError.self) { _ = try SupportQuery.order(parsing: "not an order") }

            for query in ["ZZZZZZZZZZ", "nobody", "9999999999"] {
                let html = try await Self.adminSearch(e, query, admin: admin)
                #expect(html.contains("Nothing has the id <code>\(query)</code>"))
            }
            let refused = try await Self.adminSearch(e, "<b>?</b>", admin: admin)
            #expect(refused.contains("not an order id, a transaction id, an app account token or an account id"))
            #expect(!refused.contains("<b>?</b>"))
        }
    }

    @Test func appleUnavailableAnswers503WithRetryAfter() async throws {
        try await E.run { e in
            try await Self.configureServerAPI(e)
            let admin = try await Self.admin(e)
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "MK5ACCOUNT")
            e.control.setFault(FaultRule(kind: .http503, rate: 1), for: .serverAPI)
            let answer = try await e.client.call(
                .get, "/v1/admin/lookup/order/MK5TTTVWJH?bundle_id=\(E.bundleID)", key: admin)
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.json.errorCode == "apple_unavailable")
            #expect(answer.headers[.retryAfter].flatMap { Int($0) }.map { $0 > 0 } == true)
            // The ledger answers without Apple: a transaction it holds, an account id shaped like an order id.
            for query in [try #require(bought.transactionID), "MK5ACCOUNT"] {
                let found = try await Self.adminSearch(e, query, admin: admin)
                #expect(found.contains("Tell the customer:"), "\(query)")
                #expect(found.contains("<code>MK5ACCOUNT</code>"), "\(query)")
            }
            let html = try await Self.adminSearch(e, "MK5TTTVWJH", admin: admin)
            #expect(html.contains("Apple is unavailable"))
        }
    }
}
