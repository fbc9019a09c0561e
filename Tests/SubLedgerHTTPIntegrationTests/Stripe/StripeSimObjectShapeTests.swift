import Foundation
import StripeSimulator
import SubLedgerCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// stripe-sim answers each kind of object with every property Stripe always sends: the keys of Stripe's own example
/// of that object (its OpenAPI fixtures, `Tests/StripeTests/Resources/stripe-fixtures.json`), each object made and
/// read through stripe-sim's HTTP API as a client of Stripe would.
@Suite struct StripeSimObjectShapeTests {
    static let secretKey = "sk_test_shapes"

    /// Properties of Stripe's example that Stripe sends only when a request asks for them (`expand[]`).
    static let includableOnly: [String: Set<String>] = ["charge": ["refunds"]]

    static func fixtures() throws -> [String: [String: Any]] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("StripeTests/Resources/stripe-fixtures.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        return try #require(root["resources"] as? [String: [String: Any]])
    }

    /// stripe-sim's HTTP API: Stripe's form-encoded requests with the secret key, and the control routes (JSON).
    struct API {
        let baseURL: String

        func stripe(_ method: String, _ path: String, _ form: [(String, String)] = []) async throws -> [String: Any] {
            let encoded = form.map { "\(Self.escaped($0.0))=\(Self.escaped($0.1))" }.joined(separator: "&")
            let query = method == "GET" && !encoded.isEmpty ? "?" + encoded : ""
            var request = URLRequest(url: try #require(URL(string: baseURL + path + query)))
            request.httpMethod = method
            request.setValue("Bearer \(StripeSimObjectShapeTests.secretKey)", forHTTPHeaderField: "Authorization")
            if method == "POST" {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data(encoded.utf8)
            }
            return try await send(request)
        }

        func control(_ path: String, _ body: [String: Any] = [:]) async throws -> [String: Any] {
            var request = URLRequest(url: try #require(URL(string: baseURL + path)))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            return try await send(request)
        }

        private func send(_ request: URLRequest) async throws -> [String: Any] {
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode
            #expect(status == 200, "\(request.httpMethod ?? "") \(request.url?.path ?? ""): \(status ?? 0)")
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        static func escaped(_ text: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }
    }

    /// The keys `object` lacks of Stripe's example of `kind`, and those it has that the example does not.
    static func difference(_ object: [String: Any]?, _ kind: String, _ fixtures: [String: [String: Any]]) throws
        -> String
    {
        let example = try #require(fixtures[kind], "no example of \(kind)")
        let wanted = Set(example.keys).subtracting(includableOnly[kind] ?? [])
        let have = Set((object ?? [:]).keys)
        let missing = wanted.subtracting(have).sorted()
        let extra = have.subtracting(wanted).sorted()
        return missing.isEmpty && extra.isEmpty ? "" : "\(kind): missing \(missing), not Stripe's \(extra)"
    }

    @Test func everyObjectHasTheKeysOfStripesExample() async throws {
        let fixtures = try Self.fixtures()
        let sim = try await StripeSimulator.start(
            .init(startTime: Instant(millisecondsSince1970: 1_764_201_600_000), secretKey: Self.secretKey))
        do {
            let api = API(baseURL: sim.baseURL)
            let clock = try await api.stripe("POST", "/v1/test_helpers/test_clocks", [("frozen_time", "1764201600")])
            let clockID = try #require(clock["id"] as? String)
            let customer = try await api.stripe(
                "POST", "/v1/customers", [("email", "ada@example.com"), ("test_clock", clockID)])
            let customerID = try #require(customer["id"] as? String)
            let product = try await api.stripe("POST", "/v1/products", [("name", "Pro")])
            let productID = try #require(product["id"] as? String)
            let price = try await api.stripe(
                "POST", "/v1/prices",
                [
                    ("product", productID), ("currency", "usd"), ("unit_amount", "999"),
                    ("recurring[interval]", "month"),
                ])
            let oneTime = try await api.stripe(
                "POST", "/v1/prices", [("product", productID), ("currency", "eur"), ("unit_amount", "1500")])

            // A subscription bought through Checkout, by the customer on the test clock.
            let session = try await api.stripe(
                "POST", "/v1/checkout/sessions",
                [
                    ("mode", "subscription"), ("line_items[0][price]", try #require(price["id"] as? String)),
                    ("line_items[0][quantity]", "1"), ("customer", customerID),
                    ("success_url", "https://example.com/done"),
                ])
            let sessionID = try #require(session["id"] as? String)
            let completed = try await api.control("/control/checkout/sessions/\(sessionID)/complete")
            let subscriptionID = try #require(completed["subscription"] as? String)
            let subscription = try await api.stripe("GET", "/v1/subscriptions/\(subscriptionID)")
            let invoiceID = try #require(subscription["latest_invoice"] as? String)
            let invoice = try await api.stripe("GET", "/v1/invoices/\(invoiceID)")
            let paidSession = try await api.stripe("GET", "/v1/checkout/sessions/\(sessionID)")

            // A one-time payment by a guest whose customer Checkout creates; refunded in part, then disputed.
            let paymentSession = try await api.stripe(
                "POST", "/v1/checkout/sessions",
                [
                    ("mode", "payment"), ("line_items[0][price]", try #require(oneTime["id"] as? String)),
                    ("customer_creation", "always"), ("customer_email", "grace@example.com"),
                    ("success_url", "https://example.com/done"),
                ])
            let paid = try await api.control(
                "/control/checkout/sessions/\(try #require(paymentSession["id"] as? String))/complete")
            let intentID = try #require(paid["payment_intent"] as? String)
            let intent = try await api.stripe("GET", "/v1/payment_intents/\(intentID)")
            let chargeID = try #require(intent["latest_charge"] as? String)
            let refund = try await api.stripe("POST", "/v1/refunds", [("charge", chargeID), ("amount", "500")])
            let opened = try await api.control("/control/charges/\(chargeID)/dispute", ["reason": "fraudulent"])
            let dispute = try await api.stripe("GET", "/v1/disputes/\(try #require(opened["dispute"] as? String))")
            let charge = try await api.stripe("GET", "/v1/charges/\(chargeID)")
            let events = try await api.stripe("GET", "/v1/events", [("limit", "100")])

            let subscriptionItem = (subscription["items"] as? [String: Any])?["data"] as? [[String: Any]]
            let lines = (invoice["lines"] as? [String: Any])?["data"] as? [[String: Any]]
            var objects: [(String, [String: Any]?)] = [
                ("customer", try await api.stripe("GET", "/v1/customers/\(customerID)")), ("product", product),
                ("price", price), ("checkout.session", paidSession), ("checkout.session", paymentSession),
                ("subscription", subscription), ("subscription_item", subscriptionItem?.first),
                ("invoice", invoice), ("line_item", lines?.first), ("payment_intent", intent), ("charge", charge),
                ("refund", refund), ("dispute", dispute), ("test_helpers.test_clock", clock),
            ]
            let eventList = try #require(events["data"] as? [[String: Any]])
            #expect(eventList.count > 10)
            objects += eventList.map { ("event", $0) }
            var differences: [String] = []
            for (kind, object) in objects {
                #expect(object != nil, "no \(kind)")
                let difference = try Self.difference(object, kind, fixtures)
                if !difference.isEmpty { differences.append(difference) }
            }
            #expect(differences == [])

            // Values Stripe copies from what it knows.
            #expect(subscription["test_clock"] as? String == clockID)
            #expect(invoice["customer_email"] as? String == "ada@example.com")
            #expect(lines?.first?["subscription"] as? String == subscriptionID)
            #expect((paidSession["customer_details"] as? [String: Any])?["email"] as? String == "ada@example.com")
            #expect((charge["billing_details"] as? [String: Any])?["email"] as? String == "grace@example.com")
            #expect(refund["customer"] as? String == charge["customer"] as? String)
            let prefix = try #require(customer["invoice_prefix"] as? String)
            #expect(invoice["number"] as? String == prefix + "-0001")
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }
}
