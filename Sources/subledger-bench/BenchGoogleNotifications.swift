import AsyncHTTPClient
import Foundation
import GooglePlay
import NIOCore
import SubLedgerCore
import _CryptoExtras

/// Prepares the Google Play notification phase of scripts/bench: `count` subscription purchases made in a running
/// play-sim (which publishes a `SUBSCRIPTION_PURCHASED` notification for each), and those notifications written as
/// Pub/Sub push bodies, one per line, with one OIDC push token signed by play-sim's push key (the key directory's
/// `push-signing-key.pem`, its id from `jwks.json`), valid for an hour.
enum BenchGoogleNotifications {
    static let packageName = "com.example.bench.android"
    static let productID = "bench.google"
    static let audience = "https://subledger.bench/v1/notifications/google"
    static let serviceAccount = "rtdn-push@play-sim.iam.gserviceaccount.com"

    /// play-sim's packages (`--config`).
    static let packagesJSON = """
        {"packages": [{"package_name": "\(packageName)", "subscriptions": [{"product_id": "\(productID)",
          "base_plans": [{"base_plan_id": "monthly", "billing_period": "P1M", "price_micros": 9990000}]}]}]}
        """

    /// The Google listing and product added to the bench catalog's app.
    static func catalogYAML(keyFile: String) -> String {
        """
        apps:
          - bundle_id: \(BenchShape.bundleID)
            apple_app_id: \(BenchShape.appAppleID)
            environments: [production, sandbox]
            google_play:
              package_name: \(packageName)
              service_account_key_file: \(keyFile)
              push_audience: \(audience)
              push_service_account: \(serviceAccount)
            products:
              - { product_id: \(BenchShape.productID), type: auto_renewable, subscription_group_id: "\(BenchShape.groupID)", entitlements: [pro] }
              - { product_id: \(productID), type: auto_renewable, subscription_group_id: "play", entitlements: [pro], store: google_play }
        """
    }

    static func write(count: Int, simulator: String, keyDirectory: String, to directory: String) async throws {
        let client = HTTPClient.shared
        // Purchases, 16 at a time.
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                guard next < count else { return }
                let index = next
                next += 1
                group.addTask {
                    try await post(
                        client, simulator + "/control/purchases",
                        [
                            "package_name": packageName, "product_id": productID, "base_plan_id": "monthly",
                            "obfuscated_external_account_id": "gacct-\(index)",
                        ])
                }
            }
            for _ in 0..<16 { add() }
            while try await group.next() != nil { add() }
        }
        // Every published notification, as the push body Pub/Sub would send.
        var request = HTTPClientRequest(url: simulator + "/control/notifications")
        request.method = .GET
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 512 * 1024 * 1024)
        guard response.status == .ok,
            let records = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [[String: Any]]
        else { throw BenchError("play-sim listed no notifications (\(response.status))") }
        var lines = Data()
        for record in records {
            guard let data = record["data"] as? String, let messageID = record["message_id"] as? String else {
                continue
            }
            let push: [String: Any] = [
                "message": ["data": data, "messageId": messageID, "publishTime": "2026-01-01T00:00:00.000Z"],
                "subscription": "projects/bench/subscriptions/rtdn",
            ]
            lines.append(try JSONSerialization.data(withJSONObject: push))
            lines.append(UInt8(ascii: "\n"))
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try lines.write(to: URL(fileURLWithPath: directory + "/google.jsonl"))
        try Data(try pushToken(keyDirectory: keyDirectory).utf8).write(
            to: URL(fileURLWithPath: directory + "/google.token"))
    }

    static func post(_ client: HTTPClient, _ url: String, _ json: [String: Any]) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        let response = try await client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1024 * 1024)
        guard response.status == .ok || response.status == .created else {
            throw BenchError("play-sim refused a purchase: \(response.status)")
        }
    }

    /// A push token as Pub/Sub signs one, with play-sim's push key.
    static func pushToken(keyDirectory: String) throws -> String {
        let pem = try String(contentsOfFile: keyDirectory + "/push-signing-key.pem", encoding: .utf8)
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        let jwks = try Data(contentsOf: URL(fileURLWithPath: keyDirectory + "/jwks.json"))
        guard let document = try JSONSerialization.jsonObject(with: jwks) as? [String: Any],
            let keys = document["keys"] as? [[String: Any]], let kid = keys.first?["kid"] as? String
        else { throw BenchError("no key id in \(keyDirectory)/jwks.json") }
        struct Claims: Encodable {
            var aud: String
            var email: String
            var email_verified: Bool
            var exp: Int64
            var iat: Int64
            var iss: String
            var sub: String
        }
        let now = Int64(Date().timeIntervalSince1970)
        return try RS256.sign(
            header: CompactJWT.Header(alg: "RS256", kid: kid),
            claims: Claims(
                aud: audience, email: serviceAccount, email_verified: true, exp: now + 3600, iat: now,
                iss: "https://accounts.google.com", sub: "1"),
            with: key)
    }
}
