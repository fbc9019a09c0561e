import Foundation
import Hummingbird
import NIOCore

/// stripe-sim's control API over HTTP (JSON), for what a test in another language or the quick start drives:
/// the same operations as `StripeSimulatorControl`.
struct ControlRoutes: Sendable {
    let control: StripeSimulatorControl

    func register(on router: Router<BasicRequestContext>) {
        router.get("/control/health") { _, _ in Self.json(["status": "ok"]) }
        router.get("/control/clock") { _, _ in
            Self.json(["now": .int(control.now.millisecondsSince1970 / 1000)])
        }
        router.post("/control/clock/advance") { request, context in
            let body = try await Self.body(request)
            let seconds = (body["seconds"] as? NSNumber)?.int64Value ?? 0
            let days = (body["days"] as? NSNumber)?.int64Value ?? 0
            guard seconds >= 0, days >= 0, days <= 3650, seconds <= 315_360_000 else {
                return Self.json(
                    ["error": ["message": "seconds and days must be small non-negative integers"]], status: .badRequest)
            }
            await control.advance(seconds: seconds + days * 86_400)
            return Self.json(["now": .int(control.now.millisecondsSince1970 / 1000)])
        }
        router.post("/control/checkout/sessions/{id}/complete") { _, context in
            let id = context.parameters.get("id") ?? ""
            return await Self.answer {
                let created = try await control.completeCheckout(id)
                return created.hasPrefix("pi_")
                    ? ["payment_intent": .string(created)] : ["subscription": .string(created)]
            }
        }
        router.post("/control/customers/{id}/card") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await Self.body(request)
            await control.setCardDeclines(id, body["outcome"] as? String == "decline")
            return Self.json(["customer": .string(id)])
        }
        router.post("/control/charges/{id}/dispute") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await Self.body(request)
            return await Self.answer {
                [
                    "dispute": .string(
                        try await control.openDispute(charge: id, reason: body["reason"] as? String ?? "fraudulent"))
                ]
            }
        }
        router.post("/control/disputes/{id}/close") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await Self.body(request)
            guard let outcome = body["outcome"] as? String, outcome == "won" || outcome == "lost" else {
                return Self.json(["error": ["message": "outcome must be won or lost"]], status: .badRequest)
            }
            return await Self.answer {
                try await control.closeDispute(id, won: outcome == "won")
                return ["dispute": .string(id), "status": .string(outcome)]
            }
        }
        router.post("/control/tax") { request, _ in
            let body = try await Self.body(request)
            let percentage = (body["percentage"] as? NSNumber)?.doubleValue ?? 0
            let behavior = body["tax_behavior"] as? String ?? "inclusive"
            guard percentage.isFinite, percentage >= 0, percentage <= 100,
                ["inclusive", "exclusive"].contains(behavior)
            else {
                return Self.json(
                    ["error": ["message": "percentage must be 0 to 100, tax_behavior inclusive or exclusive"]],
                    status: .badRequest)
            }
            let ppm = Int64((percentage * 10_000).rounded())
            await control.setAutomaticTax(ratePPM: ppm, inclusive: behavior == "inclusive")
            return Self.json(["rate_ppm": .int(ppm), "tax_behavior": .string(behavior)])
        }
        router.post("/control/faults") { request, _ in
            let body = try await Self.body(request)
            let failures = (body["api_failures"] as? [NSNumber] ?? []).map(\.intValue).filter {
                [429, 500, 502, 503].contains($0)
            }
            control.failNextRequests(Array(failures.prefix(100)))
            control.dropNextWebhooks(min(100, max(0, (body["drop_webhooks"] as? NSNumber)?.intValue ?? 0)))
            control.duplicateNextWebhooks(min(100, max(0, (body["duplicate_webhooks"] as? NSNumber)?.intValue ?? 0)))
            return Self.json(["armed": true])
        }
        router.get("/control/webhooks/deliveries") { _, _ in
            Self.json([
                "data": .array(
                    control.deliveries().map {
                        [
                            "type": .string($0.type), "attempts": .int(Int64($0.attempts)),
                            "delivered": .bool($0.delivered),
                            "dropped": .bool($0.dropped),
                        ]
                    })
            ])
        }
    }

    static func body(_ request: Request) async throws -> [String: Any] {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        guard buffer.readableBytes > 0 else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any]) ?? [:]
    }

    static func answer(_ operation: () async throws -> JSONValue) async -> Response {
        do {
            return json(try await operation())
        } catch let refusal as StripeSimulatorControl.Refusal {
            var error: JSONValue = ["message": .string(refusal.message)]
            if let code = refusal.code { error["code"] = .string(code) }
            return json(["error": error], status: .init(code: refusal.status))
        } catch {
            return json(["error": ["message": .string("\(error)")]], status: .internalServerError)
        }
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: value.data)))
    }
}
