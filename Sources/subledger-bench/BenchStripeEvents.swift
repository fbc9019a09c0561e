import AsyncHTTPClient
import Foundation
import NIOCore
import Stripe

/// Prepares the Stripe phase of scripts/bench: `count` web purchases made through SubLedger's checkout
/// (`POST /v1/checkout/stripe`) and paid in a running stripe-sim, whose webhooks go nowhere (the simulator has no
/// endpoint), and each purchase's `invoice.paid` event read from Stripe's events list: what Stripe would have sent.
/// `sign` then signs them with the endpoint's secret at the time of the phase, since a signature is good for five
/// minutes.
enum BenchStripeEvents {
    static let secretKey = "sk_test_subledger_bench"
    static let webhookSecret = "whsec_subledger_bench"
    static let productID = "prod_benchweb"

    /// The bench app's catalog entry with its Stripe account and web product (and its Google Play listing when
    /// `googleKeyFile` is given).
    static func catalogYAML(googleKeyFile: String?) -> String {
        var lines = [
            "apps:",
            "  - bundle_id: \(BenchShape.bundleID)",
            "    apple_app_id: \(BenchShape.appAppleID)",
            "    environments: [production, sandbox]",
            "    stripe:",
            "      secret_key: \(secretKey)",
            "      webhook_secret: \(webhookSecret)",
        ]
        if let googleKeyFile {
            lines += [
                "    google_play:",
                "      package_name: \(BenchGoogleNotifications.packageName)",
                "      service_account_key_file: \(googleKeyFile)",
                "      push_audience: \(BenchGoogleNotifications.audience)",
                "      push_service_account: \(BenchGoogleNotifications.serviceAccount)",
            ]
        }
        lines += [
            "    products:",
            "      - { product_id: \(BenchShape.productID), type: auto_renewable, subscription_group_id: \"\(BenchShape.groupID)\", entitlements: [pro] }",
            "      - { product_id: \(productID), type: auto_renewable, subscription_group_id: \"web\", entitlements: [pro], store: stripe }",
        ]
        if googleKeyFile != nil {
            lines.append(
                "      - { product_id: \(BenchGoogleNotifications.productID), type: auto_renewable, subscription_group_id: \"play\", entitlements: [pro], store: google_play }"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// `count` purchases by accounts `web-0`…, then their `invoice.paid` events, one compact JSON object per line,
    /// in DIRECTORY/stripe-events.jsonl.
    static func write(count: Int, simulator: String, server: String, apiKey: String, to directory: String)
        async throws
    {
        let client = HTTPClient.shared
        _ = try await stripe(client, simulator, "/v1/products", ["id": productID, "name": "Bench web"])
        let price = try await stripe(
            client, simulator, "/v1/prices",
            ["product": productID, "unit_amount": "999", "currency": "usd", "recurring[interval]": "month"])
        guard let priceID = price["id"] as? String else { throw BenchError("stripe-sim created no price") }

        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                guard next < count else { return }
                let index = next
                next += 1
                group.addTask {
                    let started = try await json(
                        client, server + "/v1/checkout/stripe", bearer: apiKey,
                        body: [
                            "account_id": "web-\(index)", "product_id": productID, "price": priceID,
                            "success_url": "https://bench.example/paid",
                        ])
                    guard let session = started["checkout_session_id"] as? String else {
                        throw BenchError("SubLedger started no checkout: \(started)")
                    }
                    _ = try await json(
                        client, simulator + "/control/checkout/sessions/\(session)/complete", body: [:])
                }
            }
            for _ in 0..<16 { add() }
            while try await group.next() != nil { add() }
        }

        var lines = Data()
        var after: String?
        var written = 0
        repeat {
            var path = "/v1/events?type=invoice.paid&limit=100"
            if let after { path += "&starting_after=\(after)" }
            let page = try await json(client, simulator + path, bearer: secretKey)
            guard let events = page["data"] as? [[String: Any]] else { throw BenchError("no events list: \(page)") }
            for event in events {
                lines.append(try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]))
                lines.append(UInt8(ascii: "\n"))
                written += 1
            }
            after = (page["has_more"] as? Bool) == true ? events.last?["id"] as? String : nil
        } while after != nil
        guard written == count else { throw BenchError("\(count) purchases but \(written) invoice.paid events") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try lines.write(to: URL(fileURLWithPath: directory + "/stripe-events.jsonl"))
    }

    /// DIRECTORY/stripe-events.jsonl as DIRECTORY/stripe.jsonl: each line `Stripe-Signature` value, a tab, the body,
    /// signed now.
    static func sign(directory: String) throws {
        let events = try String(contentsOfFile: directory + "/stripe-events.jsonl", encoding: .utf8)
        let timestamp = Int64(Date().timeIntervalSince1970)
        var out = ""
        for line in events.split(separator: "\n") where !line.isEmpty {
            let header = StripeSignature.header(body: Data(line.utf8), timestamp: timestamp, secrets: [webhookSecret])
            out += header + "\t" + line + "\n"
        }
        try out.write(toFile: directory + "/stripe.jsonl", atomically: true, encoding: .utf8)
    }

    /// A form-encoded POST to Stripe's API.
    static func stripe(_ client: HTTPClient, _ simulator: String, _ path: String, _ form: [String: String])
        async throws -> [String: Any]
    {
        var request = HTTPClientRequest(url: simulator + path)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(secretKey)")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = form.sorted { $0.key < $1.key }.map { key, value in
            "\(escape(key))=\(escape(value))"
        }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        return try await answer(client.execute(request, timeout: .seconds(60)), path)
    }

    /// A GET, or with `body` a JSON POST.
    static func json(_ client: HTTPClient, _ url: String, bearer: String? = nil, body: [String: String]? = nil)
        async throws -> [String: Any]
    {
        var request = HTTPClientRequest(url: url)
        request.method = body == nil ? .GET : .POST
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        return try await answer(client.execute(request, timeout: .seconds(60)), url)
    }

    static func answer(_ response: HTTPClientResponse, _ what: String) async throws -> [String: Any] {
        let bytes = try await response.body.collect(upTo: 64 * 1024 * 1024)
        let value = try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))
        guard (200..<300).contains(Int(response.status.code)), let object = value as? [String: Any] else {
            throw BenchError("\(what) answered \(response.status): \(String(buffer: bytes).prefix(300))")
        }
        return object
    }

    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
