import AppStore
import AppStoreSimulator
import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import SubLedgerCore
import Testing

/// Where the simulator must answer exactly as Apple does.
@Suite struct AppleFidelityTests {
    /// A Server API bearer token for the fixture's app with exactly `claims`, signed by the app's key.
    static func bearer(_ fixture: SimulatorFixture, claims: [String: Any]) throws -> String {
        let key = try P256.Signing.PrivateKey(pemRepresentation: try #require(fixture.app.serverAPI.privateKeyPEM))
        let header = try JSONSerialization.data(
            withJSONObject: ["alg": "ES256", "kid": fixture.app.serverAPI.keyID, "typ": "JWT"], options: .sortedKeys)
        let body = try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        let input = Base64URL.encode(header) + "." + Base64URL.encode(body)
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// A token as `ServerAPITokenIssuer` makes it (with `iat`).
    static func issuedToken(_ fixture: SimulatorFixture) throws -> String {
        try ServerAPITokenIssuer(
            issuerID: fixture.app.serverAPI.issuerID, keyID: fixture.app.serverAPI.keyID,
            bundleID: SimulatorFixture.bundleID, privateKeyPEM: fixture.app.serverAPI.privateKeyPEM ?? ""
        ).token()
    }

    /// GETs a sandbox Server API path with a bearer token; status and JSON body.
    static func get(_ fixture: SimulatorFixture, _ path: String, token: String) async throws -> (Int, [String: Any]) {
        var request = HTTPClientRequest(url: fixture.simulator.serverAPIBaseURL(.sandbox) + path)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await fixture.http.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        let object = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any]
        return (Int(response.status.code), object ?? [:])
    }

    /// The JSON payload of a JWS, unverified (the simulator's signatures are checked elsewhere).
    static func payload(_ token: String?) throws -> [String: Any] {
        let jws = try CompactJWS(try #require(token))
        return try #require(try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])
    }

    static func claims(_ fixture: SimulatorFixture, expiresIn seconds: Int64) -> [String: Any] {
        [
            "iss": fixture.app.serverAPI.issuerID, "aud": "appstoreconnect-v1", "bid": SimulatorFixture.bundleID,
            "exp": Instant.systemNow().millisecondsSince1970 / 1000 + seconds,
        ]
    }

    @Test func serverAPITokenWithoutIssuedAtIsAcceptedAsApplesClientsSendIt() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("no-iat@example.com")
            let bought = try await fixture.buy("no-iat@example.com", "pro.monthly")
            let path = "/inApps/v1/transactions/\(bought.transactionID!)"

            let withoutIssuedAt = try Self.bearer(fixture, claims: Self.claims(fixture, expiresIn: 20 * 60))
            let (status, body) = try await Self.get(fixture, path, token: withoutIssuedAt)
            #expect(status == 200)
            #expect(
                try Self.payload(body["signedTransactionInfo"] as? String)["transactionId"] as? String
                    == bought.transactionID)

            // Without `iat` the 60-minute limit counts from now.
            let tooLong = try Self.bearer(fixture, claims: Self.claims(fixture, expiresIn: 2 * 3600))
            #expect(try await Self.get(fixture, path, token: tooLong).0 == 401)
            let expired = try Self.bearer(fixture, claims: Self.claims(fixture, expiresIn: -60))
            #expect(try await Self.get(fixture, path, token: expired).0 == 401)
            // Hostile times are refused, never trapped on.
            var hostile = Self.claims(fixture, expiresIn: 600)
            hostile["iat"] = Int64.min
            #expect(try await Self.get(fixture, path, token: try Self.bearer(fixture, claims: hostile)).0 == 401)
            hostile["exp"] = Int64.max
            hostile["iat"] = Int64.min
            #expect(try await Self.get(fixture, path, token: try Self.bearer(fixture, claims: hostile)).0 == 401)
        }
    }

    @Test func transactionHistoryV1LeavesOutFinishedConsumablesWhileV2ListsEverything() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("history@example.com")
            let subscription = try await fixture.buy("history@example.com", "pro.monthly")
            let finished = try await fixture.buy("history@example.com", "coins")
            _ = try await fixture.action("/control/transactions/\(finished.transactionID!)/finish")
            let unfinished = try await fixture.buy("history@example.com", "coins")
            let token = try Self.issuedToken(fixture)
            func listed(_ version: String) async throws -> Set<String> {
                let (status, body) = try await Self.get(
                    fixture, "/inApps/\(version)/history/\(subscription.transactionID!)", token: token)
                #expect(status == 200, "\(version)")
                #expect(body["bundleId"] as? String == SimulatorFixture.bundleID)
                #expect(body["environment"] as? String == "Sandbox")
                #expect(body["hasMore"] as? Bool == false)
                let signed = body["signedTransactions"] as? [String] ?? []
                return Set(try signed.map { try Self.payload($0)["transactionId"] as? String ?? "" })
            }
            #expect(
                try await listed("v1") == [subscription.transactionID!, unfinished.transactionID!])
            #expect(
                try await listed("v2") == [
                    subscription.transactionID!, finished.transactionID!, unfinished.transactionID!,
                ])
        }
    }

    @Test func transactionsAndRenewalInfoCarryAppTransactionIDAndTheTrialsOfferPeriod() async throws {
        try await SimulatorFixture.with { fixture in
            let trialApp = "com.example.trial"
            _ = try await fixture.controlClient.call(
                "POST", "/control/apps",
                body: AppDefinition(
                    bundleID: trialApp,
                    products: [
                        ProductDefinition(
                            productID: "trial.monthly", type: .autoRenewable, subscriptionGroupID: "t",
                            duration: .oneMonth, freeTrial: .oneWeek),
                        ProductDefinition(productID: "trial.coins", type: .consumable),
                    ]),
                as: AppDescription.self)
            _ = try await fixture.createAppleID("trial@example.com")
            _ = try await fixture.createAppleID("other@example.com")
            let trial = try await fixture.purchase(
                PurchaseRequest(appleID: "trial@example.com", bundleID: trialApp, productID: "trial.monthly"))
            let transaction = try Self.payload(trial.signedTransaction)
            let renewal = try Self.payload(trial.signedRenewalInfo)
            let appTransactionID = try #require(transaction["appTransactionId"] as? String)
            #expect(appTransactionID.count == 18 && appTransactionID.allSatisfy(\.isNumber))
            #expect(renewal["appTransactionId"] as? String == appTransactionID)
            #expect(transaction["offerType"] as? Int == 1)
            #expect(transaction["offerDiscountType"] as? String == "FREE_TRIAL")
            #expect(transaction["offerPeriod"] as? String == "P1W")

            // A paid purchase has no offer period; another app has another download id.
            let paid = try await fixture.buy("trial@example.com", "pro.monthly")
            let paidTransaction = try Self.payload(paid.signedTransaction)
            #expect(paidTransaction["offerPeriod"] == nil)
            #expect(paidTransaction["offerType"] == nil)
            let otherApp = paidTransaction["appTransactionId"] as? String
            #expect(otherApp != nil && otherApp != appTransactionID)
            // The same Apple ID and app keep the id.
            let again = try await fixture.purchase(
                PurchaseRequest(appleID: "trial@example.com", bundleID: trialApp, productID: "trial.coins"))
            #expect(try Self.payload(again.signedTransaction)["appTransactionId"] as? String == appTransactionID)
            // Another Apple ID downloads the app separately.
            let other = try await fixture.purchase(
                PurchaseRequest(appleID: "other@example.com", bundleID: trialApp, productID: "trial.monthly"))
            let otherID = try Self.payload(other.signedTransaction)["appTransactionId"] as? String
            #expect(otherID != nil && otherID != appTransactionID)

            // SubLedger's own decoder reads both fields.
            let decoded = try JSONDecoder().decode(
                JWSTransactionDecodedPayload.self, from: try CompactJWS(try #require(trial.signedTransaction)).payload)
            #expect(decoded.appTransactionID == appTransactionID)
            #expect(decoded.offerPeriod == "P1W")
        }
    }

    /// Get App Transaction Info answers Apple's `AppTransactionInfoResponse`, whose JWS payload has only the fields
    /// of Apple's `JWSAppTransactionDecodedPayload` (and StoreKit's `signedDate`), dates as milliseconds.
    @Test func appTransactionInfoAnswersApplesBodyAndPayloadFields() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("app-transaction@example.com")
            let bought = try await fixture.buy("app-transaction@example.com", "coins")
            let token = try Self.issuedToken(fixture)
            let (status, body) = try await Self.get(
                fixture, "/inApps/v1/transactions/appTransactions/\(bought.transactionID!)", token: token)
            #expect(status == 200)
            #expect(Set(body.keys) == ["signedAppTransactionInfo"])
            let payload = try Self.payload(body["signedAppTransactionInfo"] as? String)
            #expect(
                Set(payload.keys) == [
                    "receiptType", "appAppleId", "bundleId", "applicationVersion", "versionExternalIdentifier",
                    "receiptCreationDate", "originalPurchaseDate", "originalApplicationVersion", "deviceVerification",
                    "deviceVerificationNonce", "appTransactionId", "originalPlatform", "signedDate",
                ])
            #expect(payload["receiptType"] as? String == "Sandbox")
            #expect(payload["originalPlatform"] as? String == "iOS")
            #expect(payload["appAppleId"] as? Int64 == fixture.app.appAppleID)
            let purchaseDate = try Self.payload(bought.signedTransaction)["purchaseDate"] as? Int64
            #expect(payload["originalPurchaseDate"] as? Int64 == purchaseDate)

            // An unknown id: Apple's TransactionIdNotFoundError; a non-numeric one: InvalidTransactionIdError.
            let (missing, missingBody) = try await Self.get(
                fixture, "/inApps/v1/transactions/appTransactions/1234567890", token: token)
            #expect(missing == 404)
            #expect(missingBody["errorCode"] as? Int == 4_040_010)
            let (invalid, invalidBody) = try await Self.get(
                fixture, "/inApps/v1/transactions/appTransactions/abc", token: token)
            #expect(invalid == 400)
            #expect(invalidBody["errorCode"] as? Int == 4_000_006)
        }
    }

    @Test func iOS6StyleAnswerStatesAutoRenewStatusAndProductAtTheTopLevel() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("ios6@example.com")
            let bought = try await fixture.purchase(
                PurchaseRequest(
                    appleID: "ios6@example.com", bundleID: SimulatorFixture.bundleID, productID: "pro.monthly",
                    legacyReceipt: true))
            func answer() async throws -> [String: Any] {
                let body = try JSONSerialization.data(
                    withJSONObject: [
                        "receipt-data": try #require(bought.legacyReceiptData),
                        "password": SimulatorFixture.sharedSecret,
                    ])
                let (_, text) = try await fixture.rawVerifyReceipt(String(decoding: body, as: UTF8.self))
                return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            }
            let on = try await answer()
            #expect(on["status"] as? Int == 0)
            #expect(on["auto_renew_status"] as? Int == 1)
            #expect(on["auto_renew_product_id"] as? String == "pro.monthly")

            _ = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/auto-renew",
                body: AutoRenewRequest(enabled: false))
            #expect(try await answer()["auto_renew_status"] as? Int == 0)
        }
    }
}
