import CatalogFile
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// Every field of `POST /v1/offers/signatures` refused with its own code, and an app whose catalog gives no
/// usable In-App Purchase key answered 409, never 500.
@Suite struct OfferSignatureRefusalTests {
    static let token = "5e3b0e5c-0e42-4f0c-9c4a-1d2e3f405060"

    /// A body that is accepted, changed by `edit`.
    static func body(_ edit: (inout [String: String]) -> Void = { _ in }) -> [String: String] {
        var body = ["account_id": "alice", "product_id": "pro.monthly"]
        edit(&body)
        return body
    }

    static let refusals: [(String, [String: String], HTTPResponse.Status, String)] = [
        ("no account", body { $0["account_id"] = nil }, .badRequest, "missing_account_id"),
        ("account with a space", body { $0["account_id"] = "al ice" }, .badRequest, "invalid_account_id"),
        (
            "account too long", body { $0["account_id"] = String(repeating: "a", count: 129) }, .badRequest,
            "invalid_account_id"
        ),
        ("no product", body { $0["product_id"] = nil }, .badRequest, "missing_product_id"),
        ("product with a space", body { $0["product_id"] = "pro monthly" }, .badRequest, "invalid_product_id"),
        (
            "product too long", body { $0["product_id"] = String(repeating: "p", count: 256) }, .badRequest,
            "invalid_product_id"
        ),
        (
            "product not in the catalog", body { $0["product_id"] = "gold.yearly" }, .unprocessableContent,
            "unknown_product"
        ),
        ("another app's product", body { $0["product_id"] = "two.monthly" }, .unprocessableContent, "unknown_product"),
        ("a consumable", body { $0["product_id"] = "coins.100" }, .unprocessableContent, "product_not_auto_renewable"),
        ("empty offer", body { $0["offer_identifier"] = "" }, .badRequest, "invalid_offer_identifier"),
        ("offer with a space", body { $0["offer_identifier"] = "spring 50" }, .badRequest, "invalid_offer_identifier"),
        (
            "offer with Apple's separator", body { $0["offer_identifier"] = "spring\u{2063}50" }, .badRequest,
            "invalid_offer_identifier"
        ),
        (
            "offer too long", body { $0["offer_identifier"] = String(repeating: "o", count: 256) }, .badRequest,
            "invalid_offer_identifier"
        ),
        ("token not a UUID", body { $0["app_account_token"] = "not-a-uuid" }, .badRequest, "invalid_app_account_token"),
        ("token too long", body { $0["app_account_token"] = token + "0" }, .badRequest, "invalid_app_account_token"),
        (
            "transaction with a space", body { $0["transaction_id"] = "2000 0001" }, .badRequest,
            "invalid_transaction_id"
        ),
        (
            "transaction too long", body { $0["transaction_id"] = String(repeating: "1", count: 65) }, .badRequest,
            "invalid_transaction_id"
        ),
        ("a field the route does not know", body { $0["nonce"] = token }, .badRequest, "unknown_field"),
    ]

    /// Runs `body` on a service whose app one has an In-App Purchase key and app two has none.
    static func run(
        appOneKeyPEM: String = P256.Signing.PrivateKey().pemRepresentation,
        _ body: @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await ServiceHarness.run { service, client in
            let (catalog, _) = try CatalogFile.read(ServiceHarness.catalogYAML)
            try await service.catalog.applyCatalog(
                catalog,
                secrets: [
                    ServiceHarness.appOne: AppSecrets(
                        serverAPI: .init(issuerID: "issuer-one", keyID: "KEYONE", privateKeyPEM: appOneKeyPEM))
                ])
            try await body(service, client)
        }
    }

    @Test func everyBadFieldIsRefusedWithItsOwnCode() async throws {
        try await Self.run { service, client in
            let accepted = try await client.call(.post, "/v1/offers/signatures", key: service.keyOne, json: Self.body())
            #expect(accepted.status == .ok)
            for (what, body, status, code) in Self.refusals {
                let answer = try await client.call(.post, "/v1/offers/signatures", key: service.keyOne, json: body)
                #expect(answer.status == status, "\(what)")
                #expect(answer.json.errorCode == code, "\(what)")
                #expect(!(answer.json.errorMessage ?? "").isEmpty, "\(what)")
            }
            for raw in ["{", "[]", #"{"account_id": 5, "product_id": "pro.monthly"}"#] {
                let answer = try await client.call(
                    .post, "/v1/offers/signatures", key: service.keyOne, raw: ByteBuffer(string: raw))
                #expect(answer.status == .badRequest, "\(raw)")
                #expect(answer.json.errorCode == "malformed_json", "\(raw)")
            }
            let anonymous = try await client.call(.post, "/v1/offers/signatures", key: nil, json: Self.body())
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test func anAppWithoutAUsableKeyIsAConflictNeverAServerError() async throws {
        // App one's key is not a P-256 key; app two has none at all.
        let notAKey = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
        try await Self.run(appOneKeyPEM: notAKey) { service, client in
            let unusable = try await client.call(.post, "/v1/offers/signatures", key: service.keyOne, json: Self.body())
            #expect(unusable.status == .conflict)
            #expect(unusable.json.errorCode == "offer_key_unusable")
            #expect(!(unusable.json.errorMessage ?? "").contains("AAAA"))
            let missing = try await client.call(
                .post, "/v1/offers/signatures", key: service.keyTwo,
                json: ["account_id": "alice", "product_id": "two.monthly"])
            #expect(missing.status == .conflict)
            #expect(missing.json.errorCode == "offer_key_not_configured")
        }
    }
}
