import AppStore
import AppStoreSimulator
import CatalogFile
import Crypto
import Foundation
import HTTPTypes
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// The end-to-end harness with a product that has a one-week free trial, and the app's In-App Purchase key
/// (the simulator's App Store Server API key, the same kind of key) in SubLedger's catalog.
enum OfferHarness {
    typealias E = EndToEndHarness

    static func run(_ body: @Sendable (EndToEndHarness) async throws -> Void) async throws {
        let sim = try await AppStoreSimulator.start(
            .init(
                seed: 11,
                notificationTimeout: EndToEndHarness.notificationTimeout,
                apps: [
                    AppDefinition(
                        bundleID: E.bundleID, appAppleID: ServiceHarness.appleAppIDOne, sharedSecret: "one-secret",
                        products: [
                            ProductDefinition(
                                productID: "pro.monthly", type: .autoRenewable, subscriptionGroupID: "g1",
                                duration: .oneMonth, price: 9_990, currency: "USD", freeTrial: .oneWeek),
                            ProductDefinition(productID: "coins.100", type: .consumable, price: 990, currency: "USD"),
                        ])
                ]))
        do {
            let apple = AppleConfiguration(
                verifyReceiptProductionURL: sim.productionVerifyReceiptURL,
                verifyReceiptSandboxURL: sim.sandboxVerifyReceiptURL, trustAppleRoot: false, timeout: .seconds(20),
                serverAPIProductionURL: sim.serverAPIBaseURL(.production),
                serverAPISandboxURL: sim.serverAPIBaseURL(.sandbox))
            try await ServiceHarness.run(
                apple: apple, additionalRoots: [sim.trustedRoot],
                now: { Instant(millisecondsSince1970: sim.control.clock().now) }
            ) { service, client in
                // Before the first request, so no process has the app cached without its key.
                let simApp = try sim.control.app(E.bundleID)
                let pem = try #require(simApp.serverAPI.privateKeyPEM)
                let (catalog, _) = try CatalogFile.read(ServiceHarness.catalogYAML)
                try await service.catalog.applyCatalog(
                    catalog,
                    secrets: [
                        E.bundleID: AppSecrets(
                            serverAPI: .init(
                                issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID,
                                privateKeyPEM: pem))
                    ])
                let port = try #require(client.port)
                _ = await sim.control.updateNotificationSettings(
                    .init(defaultURL: "http://127.0.0.1:\(port)/v1/notifications/appstore"))
                try await body(EndToEndHarness(sim: sim, service: service, client: client))
            }
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    /// The public half of the app's key, as App Store Connect would keep it: what StoreKit verifies with.
    static func publicKey(_ e: EndToEndHarness) throws -> P256.Signing.PublicKey {
        try P256.Signing.PublicKey(pemRepresentation: try e.control.app(E.bundleID).serverAPI.publicKeyPEM)
    }

    /// `POST /v1/offers/signatures` with `body`.
    static func sign(_ e: EndToEndHarness, _ body: [String: String]) async throws
        -> (status: HTTPResponse.Status, json: [String: Any])
    {
        let answer = try await e.client.call(.post, "/v1/offers/signatures", key: e.key, json: body)
        return (answer.status, answer.json)
    }

    /// A compact JWS taken apart: its header and payload as JSON, and whether `publicKey` verifies its ES256
    /// signature over `header.payload`.
    static func open(_ jws: String?, with publicKey: P256.Signing.PublicKey) throws
        -> (header: [String: Any], payload: [String: Any], verifies: Bool)
    {
        let text = try #require(jws)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let headerBytes = try #require(Base64URL.decode(parts[0]))
        let payloadBytes = try #require(Base64URL.decode(parts[1]))
        let signatureBytes = try #require(Base64URL.decode(parts[2]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
        let payload = try #require(try JSONSerialization.jsonObject(with: payloadBytes) as? [String: Any])
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        return (header, payload, publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `json["introductory_offer"]`.
    var introductoryOffer: [String: Any] { self["introductory_offer"] as? [String: Any] ?? [:] }
    /// `json["promotional_offer"]`.
    var promotionalOffer: [String: Any]? { self["promotional_offer"] as? [String: Any] }
}
