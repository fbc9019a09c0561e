import Foundation
import Hummingbird
import NIOCore

/// Serves `SimulatorControl` as JSON under `/control`; docs/reference/play-sim.md lists every route. Refusals are
/// `{"error": {"code", "message"}}` with a 4xx status.
struct ControlRoutes: Sendable {
    let control: SimulatorControl
    let serviceAccountJSON: @Sendable () -> Data
    let jwksJSON: Data

    /// The largest control body read.
    static let maximumBodyBytes = 1024 * 1024

    func register(on router: Router<BasicRequestContext>) {
        let group = router.group("control")
        group.get("health") { _, _ in Self.json(["status": "ok"]) }
        group.get("service-account") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: serviceAccountJSON())))
        }
        group.get("jwks") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: jwksJSON)))
        }
        // Packages
        group.get("packages") { _, _ in Self.json(control.packages()) }
        group.post("packages") { request, _ in
            try await Self.run(request, PackageDefinition.self) { body throws(SimulatorError) in
                try control.createPackage(body)
            }
        }
        // Purchases
        group.post("purchases") { request, _ in
            try await Self.run(request, PurchaseRequest.self) { body async throws(SimulatorError) in
                try await control.purchase(body)
            }
        }
        group.get("purchases/:token") { _, context in
            try await Self.run { () throws(SimulatorError) in try control.describe(try Self.token(context)) }
        }
        group.post("purchases/:token/refund") { request, context in
            try await Self.run(request, RefundRequest.self, allowEmpty: true) { body async throws(SimulatorError) in
                try await control.refund(try Self.token(context), body)
            }
        }
        group.post("purchases/:token/complete-pending") { _, context in
            try await Self.run { () async throws(SimulatorError) in
                try await control.completePending(try Self.token(context))
            }
        }
        group.post("purchases/:token/cancel-pending") { _, context in
            try await Self.run { () async throws(SimulatorError) in
                try await control.cancelPending(try Self.token(context))
            }
        }
        // Subscriptions
        for (path, action) in [
            ("cancel", control.cancel), ("restart", control.restart), ("billing-failure", control.failBilling),
            ("billing-recovery", control.recoverBilling), ("resume", control.resume),
        ] as [(String, @Sendable (String) async throws(SimulatorError) -> PurchaseDescription)] {
            group.post(RouterPath("subscriptions/:token/\(path)")) { _, context in
                try await Self.run { () async throws(SimulatorError) in try await action(try Self.token(context)) }
            }
        }
        group.post("subscriptions/:token/pause") { request, context in
            try await Self.run(request, PauseRequest.self) { body async throws(SimulatorError) in
                try await control.pause(try Self.token(context), body)
            }
        }
        group.post("subscriptions/:token/change-plan") { request, context in
            try await Self.run(request, ChangePlanRequest.self) { body async throws(SimulatorError) in
                try await control.changePlan(try Self.token(context), body)
            }
        }
        group.get("voided-purchases") { _, _ in Self.json(control.voidedPurchases()) }
        // Clock
        group.get("clock") { _, _ in Self.json(control.clock()) }
        group.post("clock/advance") { request, _ in
            try await Self.run(request, ClockAdvanceRequest.self) { body async throws(SimulatorError) in
                try await control.advanceClock(body)
            }
        }
        // Notifications
        group.get("notifications") { _, _ in Self.json(control.notifications()) }
        group.get("notifications/settings") { _, _ in Self.json(control.notificationSettings()) }
        group.patch("notifications/settings") { request, _ in
            try await Self.run(request, NotificationSettingsUpdate.self) { body async throws(SimulatorError) in
                try await control.updateNotificationSettings(body)
            }
        }
        group.post("notifications/test") { request, _ in
            try await Self.run(request, TestNotificationRequest.self) { body async throws(SimulatorError) in
                ["message_ids": try await control.sendTestNotification(packageName: body.packageName)]
            }
        }
        // Faults
        group.get("faults") { _, _ in Self.json(control.faults()) }
        group.put("faults/:endpoint") { request, context in
            try await Self.run(request, FaultRule.self) { body throws(SimulatorError) in
                try control.setFault(body, for: try Self.endpoint(context))
                return control.faults()
            }
        }
        group.delete("faults/:endpoint") { _, context in
            try await Self.run { () throws(SimulatorError) in
                try control.setFault(nil, for: try Self.endpoint(context))
                return control.faults()
            }
        }
        group.delete("faults") { _, _ in
            control.clearFaults()
            return Self.json(control.faults())
        }
    }

    // MARK: Plumbing

    static func token(_ context: BasicRequestContext) throws(SimulatorError) -> String {
        guard let value = context.parameters.get("token"), let decoded = value.removingPercentEncoding,
            decoded.utf8.count <= 2048, !decoded.unicodeScalars.contains(where: { $0.value < 0x20 })
        else { throw SimulatorError(.badRequest, "the purchase token is missing or unacceptable") }
        return decoded
    }

    static func endpoint(_ context: BasicRequestContext) throws(SimulatorError) -> FaultEndpoint {
        guard let name = context.parameters.get("endpoint"), let endpoint = FaultEndpoint(rawValue: name) else {
            throw SimulatorError(.badRequest, "endpoint must be developer_api or token")
        }
        return endpoint
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? ControlJSON.encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func error(_ error: SimulatorError) -> Response {
        json(
            ["error": ["code": error.code.description, "message": error.message]],
            status: HTTPResponse.Status(code: error.code.httpStatus))
    }

    static func run<Output: Encodable>(_ body: () async throws(SimulatorError) -> Output) async throws -> Response {
        do throws(SimulatorError) {
            return json(try await body())
        } catch {
            return Self.error(error)
        }
    }

    static func run<Input: Decodable, Output: Encodable>(
        _ request: Request, _ type: Input.Type, allowEmpty: Bool = false,
        _ body: (Input) async throws(SimulatorError) -> Output
    ) async throws -> Response {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maximumBodyBytes)
        } catch {
            return Self.error(SimulatorError(.badRequest, "the body is larger than \(maximumBodyBytes) bytes"))
        }
        var data = Data(buffer.readableBytesView)
        if data.isEmpty, allowEmpty { data = Data("{}".utf8) }
        guard !data.contains(0), String(validating: data, as: UTF8.self) != nil else {
            return Self.error(SimulatorError(.badRequest, "the body must be UTF-8 JSON without NUL"))
        }
        let input: Input
        do {
            input = try ControlJSON.decoder.decode(Input.self, from: data)
        } catch {
            return Self.error(SimulatorError(.badRequest, "the body is not a valid \(Input.self)"))
        }
        do throws(SimulatorError) {
            return json(try await body(input))
        } catch {
            return Self.error(error)
        }
    }
}

/// Body of `POST /control/notifications/test`.
struct TestNotificationRequest: Sendable, Codable {
    var packageName: String
}
