import AppStore
import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import NIOCore
import StripeSimulator
import StripeStore
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Apple's External Purchase reporting of web purchases, end to end: the iOS app's external purchase token, issued
/// by appstore-sim as StoreKit would, handed over with the web order to a live server on PostgreSQL; the order paid
/// in stripe-sim and its webhooks applied; the reports recorded with those applies and sent by the obligation
/// sender to appstore-sim's External Purchase Server API, which checks them as Apple does, then retrieved to confirm.
@Suite struct ExternalPurchaseReportingTests {
    static let bundleID = StripeHarness.bundleID
    /// 2025-11-27T00:00:00Z: both simulators' clocks, and the server's.
    static let start = Instant(millisecondsSince1970: 1_764_201_600_000)

    static let catalogYAML = StripeHarness.catalogYAML.replacingOccurrences(
        of: "    stripe:\n", with: "    external_purchase: {report: true, tax_country: DEU}\n    stripe:\n")

    struct Context: Sendable {
        let apple: AppStoreSimulator
        let stripe: StripeSimulator
        let h: StripeHarness
        let price: String
        let sender: StoreObligationSender

        /// A token for the app, as StoreKit hands one to it.
        func issueToken() throws -> IssuedExternalPurchaseToken {
            try apple.control.issueExternalPurchaseToken(bundleID: ExternalPurchaseReportingTests.bundleID, .init())
        }

        /// `POST /v1/checkout/stripe` for `account` with `token`.
        func checkout(_ account: String, token: String?) async throws -> (status: Int, json: [String: Any]) {
            var json: [String: Any] = [
                "account_id": account, "product_id": StripeHarness.product, "price": price,
                "success_url": "https://example.com/paid",
            ]
            if let token { json["external_purchase_token"] = token }
            let answer = try await h.client.call(
                .post, "/v1/checkout/stripe", key: h.key,
                raw: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
            return (Int(answer.status.code), answer.json)
        }

        /// Both simulators' clocks `days` on.
        func advance(days: Int64) async {
            _ = await apple.control.advanceClock(ClockAdvanceRequest(days: days))
            await stripe.control.advance(seconds: days * 86_400)
        }

        /// The reports appstore-sim accepted, oldest first.
        var accepted: [ReceivedExternalPurchaseReport] { apple.control.externalPurchaseReports() }

        func retrieved(_ requestIdentifier: String) -> ExternalPurchaseReport? {
            apple.control.externalPurchaseReport(
                bundleID: ExternalPurchaseReportingTests.bundleID, requestIdentifier: requestIdentifier)
        }

        /// What `subledger report external-purchases` shows, oldest report first.
        func reported() async throws -> [ExternalPurchasesReport.Row] {
            try await h.pool.withConnection { connection in
                try Reports.externalPurchases(on: connection, scope: .everything, limit: 100).rows.reversed()
            }
        }
    }

    static func run(_ body: @Sendable (Context) async throws -> Void) async throws {
        let apple = try await AppStoreSimulator.start(
            .init(
                seed: 11, startTime: start, notificationTimeout: .seconds(60),
                apps: [
                    AppDefinition(
                        bundleID: bundleID, appAppleID: 1_111_111_111, sharedSecret: "web-secret", products: [])
                ]))
        let stripe = try await StripeSimulator.start(
            .init(startTime: start, secretKey: StripeHarness.secretKey, deliveryTimeout: .seconds(120)))
        do {
            let simApp = try apple.control.app(bundleID)
            let key = AppSecrets(
                serverAPI: .init(
                    issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID,
                    privateKeyPEM: try #require(simApp.serverAPI.privateKeyPEM)))
            let gateway = try AppleGateway(
                configuration: AppleConfiguration(
                    verifyReceiptProductionURL: apple.productionVerifyReceiptURL,
                    verifyReceiptSandboxURL: apple.sandboxVerifyReceiptURL, trustAppleRoot: false,
                    timeout: .seconds(20), serverAPIProductionURL: apple.serverAPIBaseURL(.production),
                    serverAPISandboxURL: apple.serverAPIBaseURL(.sandbox)),
                additionalRoots: [apple.trustedRoot], logger: TestDatabase.logger)
            try await StripeHarness.run(
                stripeURL: stripe.baseURL, now: { stripe.control.now }, catalog: catalogYAML, secrets: key,
                apple: gateway
            ) { h in
                guard let port = h.client.port else { throw StripeEndToEndTests.StripeSimulatorError.noPort }
                stripe.control.addWebhookEndpoint(
                    url: "http://127.0.0.1:\(port)/v1/notifications/stripe", secret: StripeHarness.webhookSecret)
                _ = try await stripe.control.createProduct(name: "Pro", id: StripeHarness.product)
                let price = try await stripe.control.createPrice(product: StripeHarness.product, unitAmount: 999)
                let configuration = StoreObligationSender.Configuration(worker: "external-purchase-e2e")
                let sender = StoreObligationSender(
                    configuration: configuration, store: StoreObligationStore(pool: h.pool), catalog: h.catalog,
                    senders: [
                        AppStoreObligationSender(
                            apple: gateway, tokens: AccountTokenStore(pool: h.pool),
                            consumption: ConsumptionAnswerSender(
                                store: ConsumptionStore(pool: h.pool), apple: gateway, retry: configuration.retry,
                                logger: TestDatabase.logger),
                            externalPurchases: ExternalPurchaseReportSender(
                                store: ExternalPurchaseStore(pool: h.pool), apple: gateway))
                    ],
                    logger: TestDatabase.logger, now: { stripe.control.now })
                try await body(Context(apple: apple, stripe: stripe, h: h, price: price, sender: sender))
            }
        } catch {
            try? await apple.shutdown()
            try? await stripe.shutdown()
            throw error
        }
        try await apple.shutdown()
        try await stripe.shutdown()
    }

    @Test func aWebPurchaseItsRenewalAndItsRefundAreReportedAndConfirmed() async throws {
        try await Self.run { c in
            // Stripe collects 19 % tax, included in the price: the reports state it.
            await c.stripe.control.setAutomaticTax(ratePPM: 190_000, inclusive: true)
            let token = try c.issueToken()
            let started = try await c.checkout("alice", token: token.token)
            #expect(started.status == 201, "\(started.json)")
            let session = try #require(started.json["checkout_session_id"] as? String)
            let subscription = try await c.stripe.control.completeCheckout(session)
            #expect(try await c.h.entitlements("alice") == ["pro"])

            // The purchase: one report, a SUBSCRIPTION_START, accepted and confirmed.
            #expect(c.accepted.isEmpty)
            #expect(try await c.sender.runCycle().sent == 1)
            #expect(c.accepted.map(\.status) == ["LINE_ITEM"])
            #expect(c.accepted.map(\.externalPurchaseID) == [token.externalPurchaseID])
            let first = try #require(c.accepted.first)
            let start = try #require(c.retrieved(first.requestIdentifier)?.lineItems?.first)
            #expect(start.eventType == .buy && start.productType == .subscription)
            #expect(start.rawSubscriptionEvent == "SUBSCRIPTION_START")
            #expect(start.amountTaxInclusive == 9_990 && start.reportingCurrency == "USD" && start.taxCountry == "DEU")
            #expect((start.taxAmount ?? 0) > 0 && start.amountTaxExclusive.map { $0 + (start.taxAmount ?? 0) } == 9_990)
            var reported = try await c.reported()
            #expect(reported.map(\.externalPurchaseID) == [token.externalPurchaseID])
            #expect(reported.map(\.accountID) == ["alice"] && reported.map(\.originalTransactionID) == [subscription])
            #expect(reported.map(\.requestIdentifier) == [first.requestIdentifier])
            #expect(reported.map(\.state) == ["confirmed"])
            // Nothing new: nothing more is sent.
            #expect(try await c.sender.runCycle().sent == 0)

            // A month on, the renewal: a second report under its own identifier, a RENEWAL of the start.
            await c.advance(days: 31)
            #expect(try await c.sender.runCycle().sent == 1)
            #expect(c.accepted.count == 2)
            let second = try #require(c.accepted.last)
            #expect(second.requestIdentifier != first.requestIdentifier)
            let renewal = try #require(c.retrieved(second.requestIdentifier)?.lineItems?.first)
            #expect(renewal.rawSubscriptionEvent == "RENEWAL")
            #expect(renewal.referenceLineItemID == start.lineItemID)
            #expect((renewal.subscriptionDaysOfPaidService ?? 0) > 0)

            // The renewal refunded in full: a third report, a REFUND of the renewal's line item.
            let charge = try #require(c.stripe.control.latestCharge(ofSubscription: subscription))
            try await c.stripe.control.refund(charge: charge)
            #expect(try await c.sender.runCycle().sent == 1)
            #expect(c.accepted.count == 3)
            let third = try #require(c.accepted.last)
            let refund = try #require(c.retrieved(third.requestIdentifier)?.lineItems)
            #expect(refund.map(\.eventType) == [.refund])
            #expect(refund.first?.referenceLineItemID == renewal.lineItemID)
            reported = try await c.reported()
            #expect(reported.map(\.requestIdentifier) == c.accepted.map(\.requestIdentifier))
            #expect(reported.map(\.state) == ["confirmed", "confirmed", "confirmed"])
            #expect(reported.map(\.lineItems) == [1, 1, 1])
        }
    }

    @Test func aBadTokenATokenUsedTwiceAndAnAppThatDoesNotReportAreRefused() async throws {
        try await Self.run { c in
            let malformed = try await c.checkout("alice", token: "not a token")
            #expect(malformed.status == 400)
            #expect(
                (malformed.json["error"] as? [String: Any])?["code"] as? String == "invalid_external_purchase_token")
            // Base64url of a JSON token naming another app.
            let json =
                #"{"externalPurchaseId":"SANDBOX_x1","bundleId":"com.example.other","appAppleId":1111111111,"tokenCreationDate":1764201600000}"#
            let other = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let wrongApp = try await c.checkout("alice", token: other)
            #expect(wrongApp.status == 400)
            #expect(
                (wrongApp.json["error"] as? [String: Any])?["message"] as? String
                    == "external_purchase_token is refused: wrongBundle (bundleId)")

            let token = try c.issueToken()
            #expect(try await c.checkout("alice", token: token.token).status == 201)
            let again = try await c.checkout("bob", token: token.token)
            #expect(again.status == 409)
            #expect((again.json["error"] as? [String: Any])?["code"] as? String == "external_purchase_token_taken")
            #expect(try await c.reported().map(\.accountID) == ["alice"])
            #expect(try await c.reported().map(\.state) == ["no_report"])

            // The app no longer reports: a token is refused before anything is recorded.
            let (plain, _) = try CatalogFile.read(StripeHarness.catalogYAML, sections: [StripeSecrets.catalogSection])
            try await c.h.catalog.applyCatalog(plain, secrets: [:])
            let app = try #require(try await c.h.catalog.app(bundleID: Self.bundleID))
            let refusal = #expect(throws: StripeCheckout.Refusal.self) {
                try StripeCheckout.check(try c.issueToken().token, app: app, now: c.stripe.control.now)
            }
            #expect(refusal?.code == .externalPurchaseNotReported)
        }
    }

    @Test func anUnreportedNotificationIsAnsweredOnceForAnUnknownAndAnUnpaidToken() async throws {
        try await Self.run { c in
            let port = try #require(c.h.client.port)
            _ = try c.apple.control.updateApp(
                Self.bundleID,
                AppUpdate(
                    notificationURL: "http://127.0.0.1:\(port)/v1/notifications/appstore", notificationVersion: "V2"))
            // A token the app never handed over: reported UNRECOGNIZED_TOKEN.
            let unknown = try c.issueToken()
            let sent = try await c.apple.control.sendExternalPurchaseTokenNotification(
                externalPurchaseID: unknown.externalPurchaseID, subtype: "UNREPORTED")
            #expect(sent.delivered)
            #expect(try await c.sender.runCycle().sent == 1)
            #expect(c.accepted.map(\.status) == ["UNRECOGNIZED_TOKEN"])
            #expect(c.accepted.map(\.externalPurchaseID) == [unknown.externalPurchaseID])

            // A token handed over with an order never paid: NO_LINE_ITEM.
            let unpaid = try c.issueToken()
            #expect(try await c.checkout("alice", token: unpaid.token).status == 201)
            _ = try await c.apple.control.sendExternalPurchaseTokenNotification(
                externalPurchaseID: unpaid.externalPurchaseID, subtype: "UNREPORTED")
            #expect(try await c.sender.runCycle().sent == 1)
            #expect(c.accepted.map(\.status) == ["UNRECOGNIZED_TOKEN", "NO_LINE_ITEM"])

            // Apple's reminder for a token already reported: nothing new is owed.
            _ = try await c.apple.control.sendExternalPurchaseTokenNotification(
                externalPurchaseID: unknown.externalPurchaseID, subtype: "ACTIVE_TOKEN_REMINDER")
            #expect(try await c.sender.runCycle().sent == 0)
            #expect(c.accepted.count == 2)
            let reported = try await c.reported()
            #expect(reported.map(\.status) == ["UNRECOGNIZED_TOKEN", "NO_LINE_ITEM"])
            #expect(reported.map(\.state) == ["confirmed", "confirmed"])
            #expect(reported.map(\.accountID) == [nil, "alice"])
        }
    }

    /// Apple failing (a 503) leaves the report due and it goes through on a later cycle under the same identifier;
    /// Apple's refusal (a token Apple never issued: `NotFoundError` on `externalPurchaseId`) is final and shown.
    @Test func aFailingAppleIsTriedAgainAndARefusalIsKeptAndNeverResent() async throws {
        try await Self.run { c in
            let token = try c.issueToken()
            c.apple.control.setFault(FaultRule(kind: .http503, rate: 1, remaining: 1), for: .serverAPI)
            let started = try await c.checkout("alice", token: token.token)
            let session = try #require(started.json["checkout_session_id"] as? String)
            _ = try await c.stripe.control.completeCheckout(session)
            let failing = try await c.sender.runCycle()
            #expect(failing.retrying == 1 && failing.sent == 0)
            #expect(try await c.reported().map(\.state) == ["due"])
            let due = try #require(try await c.reported().first?.requestIdentifier)
            try await c.h.pool.query("UPDATE store_obligations SET next_attempt_at = NULL")
            #expect(try await c.sender.runCycle().sent == 1)
            #expect(c.accepted.map(\.requestIdentifier) == [due])

            // A token of the app's shape that Apple never issued: checked and taken (tokens are not signed), then
            // refused by Apple when reported.
            let json =
                #"{"externalPurchaseId":"SANDBOX_never-issued","bundleId":"com.example.web","appAppleId":1111111111,"#
                + #""tokenCreationDate":1764201600000}"#
            let forged = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let other = try await c.checkout("bob", token: forged)
            #expect(other.status == 201, "\(other.json)")
            _ = try await c.stripe.control.completeCheckout(try #require(other.json["checkout_session_id"] as? String))
            let refused = try await c.sender.runCycle()
            #expect(refused.failed == 1 && refused.sent == 0)
            let row = try #require(try await c.reported().last)
            #expect(row.externalPurchaseID == "SANDBOX_never-issued" && row.state == "failed")
            #expect(row.error == "report_rejected: 3 externalPurchaseId")
            // Apple's error objects as received, kept as jsonb (which spaces its output so).
            #expect(row.appleErrors?.contains(#""errorCode": 3"#) == true, "\(row.appleErrors ?? "")")
            try await c.h.pool.query("UPDATE store_obligations SET next_attempt_at = NULL")
            #expect(try await c.sender.runCycle() == StoreObligationSender.CycleReport())
            #expect(c.accepted.count == 1)
        }
    }
}
