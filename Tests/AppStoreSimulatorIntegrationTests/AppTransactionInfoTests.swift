import AppStore
import AppStoreClients
import AppStoreSimulator
import AsyncHTTPClient
import Crypto
import Foundation
import SubLedgerCore
import Testing

/// Get App Transaction Info (App Store Server API 1.17) against appstore-sim, and the control route that gives
/// what a device's `AppTransaction.shared` gets.
@Suite struct AppTransactionInfoTests {
    /// Decodes a JWS payload without verifying it (for fields of the simulator's own transactions).
    static func transaction(_ token: String?) throws -> JWSTransactionDecodedPayload {
        try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: try CompactJWS(try #require(token)).payload)
    }

    @Test func aTransactionAnOriginalTransactionAndTheAppTransactionIDFindTheSameVerifiedAppTransaction()
        async throws
    {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("download@example.com")
            let first = try await fixture.buy("download@example.com", "pro.monthly")
            _ = try await fixture.advance(days: 3)
            let renewal = try await fixture.action("/control/subscriptions/\(first.originalTransactionID!)/renew")
            _ = try await fixture.advance(days: 1)
            _ = try await fixture.buy("download@example.com", "coins")
            #expect(renewal.transactionID != renewal.originalTransactionID)
            let firstPurchase = try Self.transaction(first.signedTransaction)
            let appTransactionID = try #require(try Self.transaction(renewal.signedTransaction).appTransactionID)

            let client = try fixture.serverAPIClient()
            let verifier = try fixture.verifier()
            var found: [AppTransaction] = []
            for id in [renewal.transactionID!, first.originalTransactionID!, appTransactionID] {
                let body = try await client.appTransactionInfo(transactionID: id)
                found.append(try await verifier.verifyAppTransaction(try #require(body.signedAppTransactionInfo)))
            }
            // The manual clock stands still between the calls, so even the signing dates agree.
            #expect(found.count == 3 && Set(found).count == 1)
            let appTransaction = found[0]
            #expect(appTransaction.appTransactionID == appTransactionID)
            #expect(appTransaction.bundleID == SimulatorFixture.bundleID)
            #expect(appTransaction.appAppleID == fixture.app.appAppleID)
            #expect(appTransaction.environment == .sandbox)
            #expect(appTransaction.applicationVersion == fixture.app.applicationVersion)
            #expect(appTransaction.originalApplicationVersion == fixture.app.applicationVersion)
            #expect(appTransaction.versionExternalIdentifier == 0)
            #expect(appTransaction.rawOriginalPlatform == "iOS")
            #expect(appTransaction.preorderDate == nil)
            // The Apple ID got the app with its first purchase, not with a later one.
            #expect(appTransaction.originalPurchaseDate == firstPurchase.purchaseDate)
            let now = fixture.simulator.control.clock().now
            #expect(appTransaction.receiptCreationDate == now)
            #expect(appTransaction.signedDate == now)
            #expect(UUID(uuidString: try #require(appTransaction.deviceVerificationNonce)) != nil)
            #expect(Data(base64Encoded: try #require(appTransaction.deviceVerification))?.count == 48)
        }
    }

    @Test func unknownForeignAndMalformedIDsGetApplesErrors() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("sandbox@example.com")
            _ = try await fixture.createAppleID("production@example.com", environment: .production)
            _ = try await fixture.buy("sandbox@example.com", "pro.monthly")
            let production = try await fixture.buy("production@example.com", "lifetime")
            let productionAppTransactionID = try #require(
                try Self.transaction(production.signedTransaction).appTransactionID)
            let client = try fixture.serverAPIClient()

            // Unknown, and known only in the other environment (a transaction id or an app transaction id).
            for id in ["9999999999", production.transactionID!, productionAppTransactionID] {
                do {
                    _ = try await client.appTransactionInfo(transactionID: id)
                    Issue.record("\(id) was found in the sandbox")
                } catch let error as AppStoreServerAPIError {
                    #expect(error.code == .transactionIDNotFound)
                    #expect(error.apiErrorCode == 4_040_010)
                    #expect(error.httpStatus == 404)
                }
            }
            do {
                _ = try await client.appTransactionInfo(transactionID: "not-a-number")
                Issue.record("a non-numeric id was accepted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .apiError)
                #expect(error.apiErrorCode == 4_000_006)
                #expect(error.httpStatus == 400)
            }
            // Ids that would name another path are refused before anything is sent.
            for id in ["", ".", ".."] {
                do {
                    _ = try await client.appTransactionInfo(transactionID: id)
                    Issue.record("\"\(id)\" was sent")
                } catch let error as AppStoreServerAPIError {
                    #expect(error.code == .invalidArgument)
                    #expect(error.httpStatus == nil)
                }
            }

            // The production Server API finds it, and signs it as Production.
            let productionClient = try fixture.serverAPIClient(.production)
            let body = try await productionClient.appTransactionInfo(transactionID: production.transactionID!)
            let appTransaction = try await fixture.verifier(.production).verifyAppTransaction(
                try #require(body.signedAppTransactionInfo))
            #expect(appTransaction.environment == .production)
            #expect(appTransaction.appTransactionID == productionAppTransactionID)
            #expect(appTransaction.versionExternalIdentifier == nil)
        }
    }

    @Test func theEndpointIsBehindTheServerAPIsTokenAndRateLimits() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("limits@example.com")
            let bought = try await fixture.buy("limits@example.com", "pro.monthly")
            let stranger = AppStoreServerAPIClient(
                httpClient: fixture.http,
                configuration: .init(environment: .sandbox, baseURL: fixture.simulator.serverAPIBaseURL(.sandbox)),
                tokenIssuer: try ServerAPITokenIssuer(
                    issuerID: fixture.app.serverAPI.issuerID, keyID: fixture.app.serverAPI.keyID,
                    bundleID: SimulatorFixture.bundleID, privateKeyPEM: P256Key.fresh()),
                verifier: try fixture.verifier())
            do {
                _ = try await stranger.appTransactionInfo(transactionID: bought.transactionID!)
                Issue.record("a token signed by another key was accepted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .unauthorized)
            }

            // One token per 1000 s after a burst of one: the second call is refused on any machine.
            try fixture.simulator.control.setRateLimits(RateLimitSettings(requestsPerSecond: 0.001, burst: 1))
            let client = try fixture.serverAPIClient()
            _ = try await client.appTransactionInfo(transactionID: bought.transactionID!)
            do {
                _ = try await client.appTransactionInfo(transactionID: bought.transactionID!)
                Issue.record("a call beyond the burst was admitted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .rateLimited)
                #expect(error.apiErrorCode == 4_290_000)
            }
        }
    }

    @Test func theControlRouteGivesTheDevicesAppTransactionWithAVerifiableDeviceCheck() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("device@example.com")
            let bought = try await fixture.buy("device@example.com", "lifetime")
            let path = "/control/apple-ids/device%40example.com/app-transaction?bundle_id=\(SimulatorFixture.bundleID)"
            let device = try await fixture.controlClient.call(
                "GET", path, body: [String: String](), as: AppTransactionResult.self)
            let verifier = try fixture.verifier()
            let onDevice = try await verifier.verifyAppTransaction(device.signedAppTransaction)
            #expect(onDevice.appTransactionID == device.appTransactionID)
            #expect(device.appTransactionID == (try Self.transaction(bought.signedTransaction).appTransactionID))

            // The same app transaction as the Server API's, and as the in-process control's.
            let body = try await fixture.serverAPIClient().appTransactionInfo(transactionID: bought.transactionID!)
            #expect(try await verifier.verifyAppTransaction(try #require(body.signedAppTransactionInfo)) == onDevice)
            let inProcess = try fixture.simulator.control.appTransaction(
                appleID: "device@example.com", bundleID: SimulatorFixture.bundleID)
            #expect(inProcess.appTransactionID == device.appTransactionID)
            #expect(inProcess.deviceVerificationID == device.deviceVerificationID)
            #expect(try await verifier.verifyAppTransaction(inProcess.signedAppTransaction) == onDevice)

            // StoreKit's device check: SHA-384 of the lower-case nonce followed by the device's id.
            let nonce = try #require(onDevice.deviceVerificationNonce)
            let hash = SHA384.hash(data: Array((nonce.lowercased() + device.deviceVerificationID.lowercased()).utf8))
            #expect(Data(hash).base64EncodedString() == onDevice.deviceVerification)
        }
    }

    @Test func anAppleIDWithoutATransactionInTheAppHasNoAppTransaction() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("browser@example.com")
            _ = try await fixture.createAppleID("member@example.com")
            let path = "/control/apple-ids/browser%40example.com/app-transaction?bundle_id=\(SimulatorFixture.bundleID)"
            do {
                _ = try await fixture.controlClient.call(
                    "GET", path, body: [String: String](), as: AppTransactionResult.self)
                Issue.record("an Apple ID without a transaction got an app transaction")
            } catch let failure as ControlClient.Failure {
                #expect(failure.status == 404)
            }
            #expect(throws: SimulatorError.self) {
                try fixture.simulator.control.appTransaction(
                    appleID: "browser@example.com", bundleID: SimulatorFixture.bundleID)
            }
            #expect(throws: SimulatorError.self) {
                try fixture.simulator.control.appTransaction(appleID: "nobody@example.com", bundleID: "com.nowhere")
            }

            // A family member who receives a shared purchase got the app: an app transaction of their own.
            let bought = try await fixture.buy("browser@example.com", "lifetime")
            let shared = try await fixture.action(
                "/control/transactions/\(bought.transactionID!)/family-share",
                body: FamilyShareRequest(appleID: "member@example.com"))
            let purchaser = try fixture.simulator.control.appTransaction(
                appleID: "browser@example.com", bundleID: SimulatorFixture.bundleID)
            let member = try fixture.simulator.control.appTransaction(
                appleID: "member@example.com", bundleID: SimulatorFixture.bundleID)
            #expect(member.appTransactionID != purchaser.appTransactionID)
            let body = try await fixture.serverAPIClient().appTransactionInfo(transactionID: shared.transactionID!)
            let found = try await fixture.verifier().verifyAppTransaction(try #require(body.signedAppTransactionInfo))
            #expect(found.appTransactionID == member.appTransactionID)
        }
    }
}
