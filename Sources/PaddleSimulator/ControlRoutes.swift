import Foundation
import Hummingbird
import NIOCore

/// paddle-sim's control API over HTTP (JSON), for what a test in another language drives: the same operations as
/// `PaddleSimulatorControl`. Refusals use Paddle's error shape.
struct ControlRoutes: Sendable {
    let control: PaddleSimulatorControl

    func register(on router: Router<BasicRequestContext>) {
        router.get("/control/health") { _, _ in Self.json(["status": "ok"]) }
        router.get("/control/clock") { _, _ in Self.clock(control) }
        router.post("/control/clock/advance") { request, _ in
            let body = try await Self.body(request)
            return await Self.answer {
                let seconds = try body.int("seconds", in: 0...315_360_000)
                let days = try body.int("days", in: 0...3650)
                guard seconds != nil || days != nil else {
                    throw PaddleFailure.invalidField("days", "give days (0 to 3650) or seconds (0 to 315360000)")
                }
                await control.advance(seconds: (seconds ?? 0) + (days ?? 0) * 86_400)
                let now = control.now.millisecondsSince1970 / 1000
                return ["now": .int(now), "now_rfc3339": .string(PaddleCalendar.format(now))]
            }
        }
        router.post("/control/transactions/{id}/checkout") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await Self.body(request)
            return await Self.answer {
                let customer = try body.string("customer_id", maxLength: 64)
                let email = try body.string("email", maxLength: 320)
                let result = try await control.completeCheckout(id, customerID: customer, email: email)
                return [
                    "transaction_id": .string(result.transaction), "subscription_id": PaddleJSON(result.subscription),
                ]
            }
        }
        router.post("/control/customers/{id}/payments") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await Self.body(request)
            return await Self.answer {
                guard let outcome = try body.oneOf("outcome", ["decline", "succeed"], required: true) else {
                    return nil
                }
                try control.setPaymentsDecline(id, outcome == "decline")
                return ["customer_id": .string(id), "outcome": .string(outcome)]
            }
        }
        router.post("/control/transactions/{id}/chargeback") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await Self.body(request)
            return await Self.answer {
                let amount = body.has("amount") ? try body.amount("amount") : nil
                return ["adjustment_id": .string(try await control.chargeback(id, amount: amount))]
            }
        }
        for decision in ["approve", "reject"] {
            router.post("/control/adjustments/{id}/\(decision)") { _, context in
                let id = context.parameters.get("id") ?? ""
                return await Self.answer {
                    try await control.decideRefund(id, approve: decision == "approve")
                    return [
                        "adjustment_id": .string(id),
                        "status": .string(decision == "approve" ? "approved" : "rejected"),
                    ]
                }
            }
        }
        router.get("/control/notifications") { _, _ in
            Self.json([
                "data": .array(
                    control.notifications().map {
                        [
                            "type": .string($0.type), "attempts": .int(Int64($0.attempts)),
                            "delivered": .bool($0.delivered),
                            "failed": .bool($0.failed),
                        ]
                    })
            ])
        }
    }

    static func clock(_ control: PaddleSimulatorControl) -> Response {
        let seconds = control.now.millisecondsSince1970 / 1000
        return json(["now": .int(seconds), "now_rfc3339": .string(PaddleCalendar.format(seconds))])
    }

    static func body(_ request: Request) async throws -> RequestFields {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        guard buffer.readableBytes > 0, let any = try? JSONSerialization.jsonObject(with: Data(buffer: buffer)),
            let json = PaddleJSON(any: any)
        else { return RequestFields(.object([:])) }
        return RequestFields(json)
    }

    static func answer(_ operation: () async throws -> PaddleJSON?) async -> Response {
        do {
            return json(try await operation() ?? .null)
        } catch let refusal as PaddleFailure {
            return refuse(refusal)
        } catch {
            return json(["error": ["detail": .string("\(error)")]], status: .internalServerError)
        }
    }

    static func refuse(_ failure: PaddleFailure) -> Response {
        json(failure.body(requestID: "control"), status: .init(code: failure.status))
    }

    static func json(_ value: PaddleJSON, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: value.data)))
    }
}
