import Foundation
import HTTPTypes
import SubLedgerCore
import SubLedgerUseCases
import Testing

@testable import SubLedgerHTTP

/// Every store's checkout route is served from its form (`WebCheckoutForm`), one controller for all: a body holds
/// the fields that store's form takes and no other, and each it requires. Nothing here reaches a store: each refusal
/// comes before the store is asked. The values are each store's to check (`StripeWebhookRefusalTests`,
/// `PaddleCheckoutRefusalTests`).
@Suite struct WebCheckoutFormTests {
    typealias H = ServiceHarness

    /// Each registered store's form, by its route.
    static var forms: [(path: String, form: WebCheckoutForm)] {
        let registry = EveryStore.registry
        return registry.stores.compactMap { store in
            registry[store]?.checkoutForm.map { (path: WebCheckoutForm.path(of: store), form: $0) }
        }
    }

    @Test func aFieldOfAnotherStoresFormIsUnknownAndARequiredOneIsMissed() async throws {
        let forms = Self.forms
        #expect(forms.count >= 2)
        try await H.run(stores: EveryStore.besideTheAppStore) { harness, client in
            for (path, form) in forms {
                // A body with every field the form requires, each of a value no store would accept.
                var body = ["account_id": "alice", "product_id": "pro.monthly"]
                for field in form.required { body[field.rawValue] = "x" }
                // A field some other store's form takes and this one does not is named as unknown.
                let others = Set(WebCheckoutForm.Field.allCases).subtracting(form.required).subtracting(form.optional)
                if let other = others.filter({ $0 != .trialPeriodDays }).map(\.rawValue).min() {
                    var extra = body
                    extra[other] = "https://example.com"
                    let answer = try await client.call(.post, path, key: harness.keyOne, json: extra)
                    #expect(answer.status == .badRequest, "\(path) \(other): \(answer.json)")
                    #expect(answer.json.errorCode == "unknown_field", "\(path) \(other): \(answer.json)")
                }
                for field in form.required {
                    var missing = body
                    missing[field.rawValue] = nil
                    let answer = try await client.call(.post, path, key: harness.keyOne, json: missing)
                    #expect(answer.status == .badRequest, "\(path) \(field): \(answer.json)")
                    #expect(answer.json.errorCode == "malformed_json", "\(path) \(field): \(answer.json)")
                    let message = (answer.json["error"] as? [String: Any])?["message"] as? String ?? ""
                    #expect(message.contains("missing field '\(field.rawValue)'"), "\(path): \(message)")
                }
            }
        }
    }

    /// A process without a store serves no checkout route for it.
    @Test func aStoreNotRegisteredHasNoRoute() async throws {
        try await H.run { harness, client in
            for (path, _) in Self.forms {
                let answer = try await client.call(
                    .post, path, key: harness.keyOne, json: ["account_id": "alice", "product_id": "pro.monthly"])
                #expect(answer.status == .notFound, "\(path): \(answer.json)")
            }
        }
    }
}
