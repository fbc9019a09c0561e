import AsyncHTTPClient
import Foundation
import HTTPTestSupport
import NIOCore
import PaddleSimulator
import SubLedgerCore
import Synchronization
import Testing

/// paddle-sim over a real socket, with a real webhook receiver: what a backend under test sees.
@Suite struct PaddleSimulatorServerTests {
    static let key = "pdl_sdbx_apikey_test"
    static let secret = "pdl_ntfset_test_secret"

    static func call(_ simulator: PaddleSimulator, _ path: String, post body: String? = nil)
        async throws -> (status: Int, json: [String: Any])
    {
        var request = HTTPClientRequest(url: simulator.baseURL + path)
        request.method = body == nil ? .GET : .POST
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any] ?? [:]
        return (Int(response.status.code), json)
    }

    @Test func aCheckoutSendsSignedWebhooksAndRetriesAFailedOneOnTheClock() async throws {
        let attempts = Mutex(0)
        let receiver = try await StubHTTPServer.start { _ in
            // The first delivery fails: Paddle must send it again.
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            return .empty(status: attempt == 1 ? 500 : 200)
        }
        let simulator = try await PaddleSimulator.start(
            PaddleSimulator.Configuration(
                apiKey: Self.key, webhookURL: receiver.baseURL + "/paddle", webhookSecretKey: Self.secret))
        do {
            let product = try await Self.call(simulator, "/products", post: #"{"name":"Pro","tax_category":"saas"}"#)
            #expect(product.status == 201)
            let productID = (product.json["data"] as? [String: Any])?["id"] as? String ?? ""
            let price = try await Self.call(
                simulator, "/prices",
                post:
                    #"{"product_id":"\#(productID)","description":"m","unit_price":{"amount":"500","currency_code":"EUR"},"#
                    + #""billing_cycle":{"interval":"year","frequency":1}}"#)
            let priceID = (price.json["data"] as? [String: Any])?["id"] as? String ?? ""
            let transaction = try await Self.call(
                simulator, "/transactions", post: #"{"items":[{"price_id":"\#(priceID)","quantity":2}]}"#)
            let transactionID = (transaction.json["data"] as? [String: Any])?["id"] as? String ?? ""
            #expect((transaction.json["data"] as? [String: Any])?["status"] as? String == "draft")
            let paid = try await simulator.control.completeCheckout(transactionID, email: "bo@example.com")
            let subscription = try await Self.call(simulator, "/subscriptions/\(paid.subscription ?? "")")
            #expect((subscription.json["data"] as? [String: Any])?["status"] as? String == "active")

            let firstRound = receiver.requests
            #expect(firstRound.count > 5)
            // Each signature is checked at the moment it names (`ts`): the signing is under test here, not how fast a
            // loaded machine delivers (the tolerance has tests of its own).
            for request in firstRound {
                let header = try #require(request.header("Paddle-Signature"))
                let signedAt = try #require(
                    header.split(separator: ";").first { $0.hasPrefix("ts=") }.flatMap { Int64($0.dropFirst(3)) })
                #expect(
                    PaddleSignature.verify(header: header, body: request.body, secretKey: Self.secret, now: signedAt))
            }
            let types = firstRound.compactMap {
                (try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any])?["event_type"] as? String
            }
            #expect(types.contains("subscription.created") && types.contains("transaction.completed"))

            await simulator.control.advance(seconds: 60)
            #expect(receiver.requests.count == firstRound.count + 1)
            #expect(receiver.requests.last?.body == firstRound.first?.body)
            #expect(simulator.control.notifications().allSatisfy { $0.delivered })
        } catch {
            try await simulator.shutdown()
            await receiver.shutdown()
            throw error
        }
        try await simulator.shutdown()
        await receiver.shutdown()
    }
}
