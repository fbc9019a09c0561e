import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SubLedgerCore
import SubLedgerUseCases
import Testing
import Yams

@testable import SubLedgerHTTP

/// Every route that takes a JSON body refuses a field it does not take with 400 `unknown_field` (`JSONRequestBody`),
/// and openapi.yaml says so: each of those bodies is `additionalProperties: false` with exactly the fields the
/// server reads. The stores' notification bodies stay open: a store adding a field must never lose a notification.
@Suite struct UnknownBodyFieldTests {
    typealias H = ServiceHarness

    static var registry: StoreRegistry { EveryStore.registry }

    /// Each route's body fields, by the operation that takes it: the server's own routes' body types, and each
    /// registered store's checkout form.
    static var bodies: [(path: String, fields: Set<String>)] {
        let routes: [(path: String, type: any JSONRequestBody.Type)] = [
            ("/v1/orders", OrdersController.CreateBody.self),
            ("/v1/receipts", SubmissionsController.ReceiptRequest.self),
            ("/v1/transactions", SubmissionsController.TransactionRequest.self),
            ("/v1/purchases/google", GooglePlayPurchasesController.PurchaseRequest.self),
            ("/v1/purchases/stripe", StripePurchasesController.PurchaseRequest.self),
            ("/v1/app-transactions", AppTransactionsController.ClaimRequest.self),
            ("/v1/accounts/{account_id}/grants", GrantsController.GrantRequest.self),
            ("/v1/accounts/{account_id}/merge", MergesController.MergeRequest.self),
            ("/v1/accounts/{account_id}/consent", ConsumptionController.ConsentRequest.self),
            ("/v1/accounts/{account_id}/usage", ConsumptionController.UsageRequest.self),
            ("/v1/offers/signatures", OffersController.SignatureRequestBody.self),
            ("/v1/admin/webhooks", WebhooksController.NewEndpoint.self),
            ("/v1/admin/webhooks/{id}/rotate-secret", WebhooksController.Rotation.self),
            ("/v1/admin/webhooks/{id}/replay", WebhooksController.Replay.self),
        ]
        let checkouts = registry.stores.compactMap { store in
            registry[store]?.checkoutForm.map { (path: WebCheckoutForm.path(of: store), fields: $0.fieldNames) }
        }
        return routes.map { (path: $0.path, fields: $0.type.fields) } + checkouts
    }

    /// The notification routes: their bodies are the stores', read leniently.
    static let storeBodies = Set(registry.stores.compactMap { registry[$0]?.pushRoute?.path })

    @Test func everyRequestBodyIsClosedInTheDocumentWithTheFieldsTheServerReads() throws {
        let document = try #require(try Yams.load(yaml: OpenAPIDocument.text) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        var documented: Set<String> = []
        for (path, item) in paths {
            for (_, operation) in (item as? [String: Any]) ?? [:] {
                guard let operation = operation as? [String: Any],
                    let requestBody = operation["requestBody"] as? [String: Any]
                else { continue }
                documented.insert(path)
                if Self.storeBodies.contains(path) { continue }
                let content = try #require(requestBody["content"] as? [String: Any])
                let schema = try #require((content["application/json"] as? [String: Any])?["schema"] as? [String: Any])
                #expect(schema["additionalProperties"] as? Bool == false, "\(path)")
                let properties = Set(((schema["properties"] as? [String: Any]) ?? [:]).keys)
                let fields = try #require(Self.bodies.first { $0.path == path }?.fields, "\(path): no body listed")
                #expect(properties == fields, "\(path): openapi.yaml \(properties.sorted()), server \(fields.sorted())")
            }
        }
        #expect(documented == Set(Self.bodies.map(\.path)).union(Self.storeBodies))
    }

    /// A misspelt or extra field is named, on every route, before any required field is missed: an app key's routes
    /// and an admin key's alike.
    @Test func anUnknownFieldIsRefusedOnEveryRoute() async throws {
        try await H.run(stores: EveryStore.besideTheAppStore) { harness, client in
            let admin = try await harness.keys.create(scope: .admin, name: "admin").secret
            let app = H.appOne
            let calls: [(path: String, key: String, body: String)] = [
                ("/v1/orders", harness.keyOne, #"{"account_id":"alice","product_id":"pro.monthly","bogus":1}"#),
                ("/v1/receipts", harness.keyOne, #"{"account_id":"alice","receipt_data":"AAAA","orderId":"x"}"#),
                ("/v1/transactions", harness.keyOne, #"{"account_id":"alice","signed_transaction":"a.b.c","bogus":1}"#),
                ("/v1/purchases/google", harness.keyOne, #"{"account_id":"alice","bogus":true}"#),
                ("/v1/purchases/stripe", harness.keyOne, #"{"account_id":"alice","bogus":null}"#),
                ("/v1/app-transactions", harness.keyOne, #"{"bogus":1}"#),
                ("/v1/accounts/alice/consent", harness.keyOne, #"{"consented":true,"bogus":1}"#),
                ("/v1/accounts/alice/usage", harness.keyOne, #"{"transaction_id":"1","bogus":1}"#),
                ("/v1/offers/signatures", harness.keyOne, #"{"account_id":"alice","bogus":1}"#),
                ("/v1/accounts/alice/grants", admin, #"{"bundle_id":"\#(app)","bogus":1}"#),
                ("/v1/accounts/alice/merge", admin, #"{"bundle_id":"\#(app)","bogus":1}"#),
                ("/v1/admin/webhooks", admin, #"{"bundle_id":"\#(app)","url":"https://example.com","bogus":1}"#),
            ]
            let checkouts = Self.registry.stores.filter { Self.registry[$0]?.checkoutForm != nil }.map {
                (path: WebCheckoutForm.path(of: $0), key: harness.keyOne, body: #"{"account_id":"alice","bogus":"x"}"#)
            }
            #expect(!checkouts.isEmpty)
            for call in calls + checkouts {
                let answer = try await client.call(.post, call.path, key: call.key, raw: ByteBuffer(string: call.body))
                #expect(answer.status == .badRequest, "\(call.path): \(answer.json)")
                #expect(answer.json.errorCode == "unknown_field", "\(call.path): \(answer.json)")
                let message = (answer.json["error"] as? [String: Any])?["message"] as? String ?? ""
                let name = call.body.contains("orderId") ? "'orderId'" : "'bogus'"
                #expect(message.contains(name), "\(call.path): \(message)")
            }
        }
    }

    /// The documented fields alone still decode, optional ones left out, and an empty body of a route whose every
    /// field is optional still reads as `{}`.
    @Test func theDocumentedFieldsStillDecode() throws {
        let order = try Request.decodeJSON(
            OrdersController.CreateBody.self, from: Data(#"{"account_id":"a","product_id":"p"}"#.utf8))
        #expect(order.account_id == "a" && order.product_id == "p")
        let receipt = try Request.decodeJSON(
            SubmissionsController.ReceiptRequest.self,
            from: Data(#"{"account_id":"a","receipt_data":"AAAA","order_id":null}"#.utf8))
        #expect(receipt.order_id == nil)
        let rotation = try Request.decodeJSON(WebhooksController.Rotation.self, from: Data("{}".utf8))
        #expect(rotation.expirePreviousAfter == nil)
        // A body that is not an object is malformed JSON, not an unknown field.
        #expect {
            try Request.decodeJSON(OrdersController.CreateBody.self, from: Data("[1]".utf8))
        } throws: { ($0 as? APIError)?.code == "malformed_json" }
        // Refusing null where the body says so.
        #expect {
            try Request.decodeJSON(MergesController.MergeRequest.self, from: Data(#"{"from":null}"#.utf8))
        } throws: { ($0 as? APIError)?.code == "malformed_json" }
    }
}
