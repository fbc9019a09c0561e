import AppStore
import Foundation
import Hummingbird
import NIOCore
import SubLedgerCore

/// Serves `SimulatorControl` as JSON under `/control`; docs/reference/appstore-sim.md lists every route.
struct ControlRoutes: Sendable {
    let control: SimulatorControl
    let rootCertificateDER: [UInt8]
    let rootCertificatePEM: String

    func register(on router: Router<BasicRequestContext>) {
        let group = router.group("control")
        group.get("health") { _, _ in Self.json(["status": "ok"]) }
        registerRateLimits(on: group)
        registerBulkSeeding(on: group)
        registerExternalPurchase(on: group)
        group.get("root-certificate") { request, _ in
            if request.uri.queryParameters.get("format") == "pem" {
                return Response(
                    status: .ok, headers: [.contentType: "application/x-pem-file"],
                    body: .init(byteBuffer: ByteBuffer(string: rootCertificatePEM)))
            }
            return Response(
                status: .ok, headers: [.contentType: "application/pkix-cert"],
                body: .init(byteBuffer: ByteBuffer(bytes: rootCertificateDER)))
        }
        // Apps and products
        group.get("apps") { _, _ in Self.json(control.apps()) }
        group.post("apps") { request, _ in
            try await Self.run(request, AppDefinition.self) { body throws(SimulatorError) in try control.createApp(body)
            }
        }
        group.get("apps/:bundleID") { _, context in
            try await Self.run { () throws(SimulatorError) in try control.app(try Self.parameter(context, "bundleID")) }
        }
        group.patch("apps/:bundleID") { request, context in
            try await Self.run(request, AppUpdate.self) { body throws(SimulatorError) in
                try control.updateApp(try Self.parameter(context, "bundleID"), body)
            }
        }
        group.post("apps/:bundleID/products") { request, context in
            try await Self.run(request, ProductDefinition.self) { body throws(SimulatorError) in
                try control.addProduct(bundleID: try Self.parameter(context, "bundleID"), body)
            }
        }
        // Apple IDs
        group.get("apple-ids") { _, _ in Self.json(control.appleIDs()) }
        group.post("apple-ids") { request, _ in
            try await Self.run(request, AppleIDDefinition.self, allowEmpty: true) { body throws(SimulatorError) in
                try control.createAppleID(body)
            }
        }
        group.get("apple-ids/:appleID/receipt") { request, context in
            try await Self.run { () async throws(SimulatorError) in
                guard let bundleID = request.uri.queryParameters.get("bundle_id") else {
                    throw SimulatorError(.badRequest, "bundle_id query parameter is required")
                }
                return try await control.receipt(appleID: try Self.parameter(context, "appleID"), bundleID: bundleID)
            }
        }
        registerAppTransaction(on: group)
        registerWriteBacks(on: group)
        // Purchases
        group.post("purchases") { request, _ in
            try await Self.run(request, PurchaseRequest.self) { body async throws(SimulatorError) in
                try await control.purchase(body)
            }
        }
        Self.post(on: group, "ask-to-buy/:requestID/approve", parameter: "requestID", control.approveAskToBuy)
        Self.post(on: group, "ask-to-buy/:requestID/decline", parameter: "requestID", control.declineAskToBuy)
        // Subscriptions (by original transaction id or any transaction id of the chain)
        Self.post(on: group, "subscriptions/:id/renew", control.renew)
        group.post("subscriptions/:id/auto-renew") { request, context in
            try await Self.run(request, AutoRenewRequest.self) { body async throws(SimulatorError) in
                try await control.setAutoRenew(try Self.parameter(context, "id"), enabled: body.enabled)
            }
        }
        group.post("subscriptions/:id/billing-failure") { request, context in
            try await Self.run(request, BillingFailureRequest.self, allowEmpty: true) {
                body async throws(SimulatorError) in
                try await control.failBilling(try Self.parameter(context, "id"), immediately: body.immediately ?? false)
            }
        }
        Self.post(on: group, "subscriptions/:id/billing-recovery", control.recoverBilling)
        group.post("subscriptions/:id/price-increase") { request, context in
            try await Self.run(request, PriceIncreaseRequest.self) { body async throws(SimulatorError) in
                try await control.increasePrice(try Self.parameter(context, "id"), body)
            }
        }
        Self.post(on: group, "subscriptions/:id/price-increase/consent", control.consentToPriceIncrease)
        group.post("subscriptions/:id/change-product") { request, context in
            try await Self.run(request, ChangeProductRequest.self) { body async throws(SimulatorError) in
                try await control.changeProduct(try Self.parameter(context, "id"), to: body.productID)
            }
        }
        // Transactions
        group.get("transactions/:id/signed") { _, context in
            try await Self.run { () throws(SimulatorError) in
                ["signed_transaction": try control.signedTransaction(try Self.parameter(context, "id"))]
            }
        }
        group.post("transactions/:id/refund") { request, context in
            try await Self.run(request, RefundRequest.self, allowEmpty: true) { body async throws(SimulatorError) in
                try await control.refund(try Self.parameter(context, "id"), body)
            }
        }
        Self.post(on: group, "transactions/:id/refund-reversal", control.reverseRefund)
        Self.post(on: group, "transactions/:id/refund-decline", control.declineRefund)
        Self.post(on: group, "transactions/:id/finish", control.finishTransaction)
        ConsumptionControlRoutes(control: control).register(on: group)
        group.post("transactions/:id/family-share") { request, context in
            try await Self.run(request, FamilyShareRequest.self) { body async throws(SimulatorError) in
                try await control.shareWithFamily(try Self.parameter(context, "id"), with: body.appleID)
            }
        }
        group.post("transactions/:id/family-revoke") { request, context in
            try await Self.run(request, FamilyShareRequest.self) { body async throws(SimulatorError) in
                try await control.revokeFamilySharing(try Self.parameter(context, "id"), from: body.appleID)
            }
        }
        group.post("extensions/mass/complete") { _, _ in
            do throws(SimulatorError) {
                return Self.json(try await control.completeMassExtensions())
            } catch {
                return Self.error(error)
            }
        }
        // Clock
        group.get("clock") { _, _ in Self.json(control.clock()) }
        group.post("clock/advance") { request, _ in
            try await Self.run(request, ClockAdvanceRequest.self) { body async throws(SimulatorError) in
                await control.advanceClock(body)
            }
        }
        // Faults
        group.get("faults") { _, _ in Self.json(control.faults()) }
        group.put("faults/:endpoint") { request, context in
            try await Self.run(request, FaultRule.self) { body throws(SimulatorError) in
                let endpoint = try Self.endpoint(context)
                control.setFault(body, for: endpoint)
                return control.faults()
            }
        }
        group.delete("faults/:endpoint") { _, context in
            try await Self.run { () throws(SimulatorError) in
                control.setFault(nil, for: try Self.endpoint(context))
                return control.faults()
            }
        }
        group.delete("faults") { _, _ in
            control.clearFaults()
            return Self.json(control.faults())
        }
        group.get("verify-receipt-requests") { _, _ in Self.json(control.verifyReceiptRequests()) }
        // Notifications
        group.get("notifications") { _, _ in Self.json(control.notifications()) }
        group.patch("notifications/settings") { request, _ in
            try await Self.run(request, NotificationSettingsUpdate.self) { body async throws(SimulatorError) in
                await control.updateNotificationSettings(body)
            }
        }
        group.post("notifications/flush") { _, _ in
            await control.flushNotifications()
            return Self.json(control.notifications())
        }
        group.post("notifications/test") { request, _ in
            try await Self.run(request, TestNotificationRequest.self) { body async throws(SimulatorError) in
                try await control.sendTestNotification(
                    bundleID: body.bundleID, environment: body.environment ?? .sandbox)
            }
        }
    }

    // MARK: Plumbing

    /// `POST path` with no body that acts on the path's `parameter` (an id) and answers with the result.
    static func post(
        on group: RouterGroup<BasicRequestContext>, _ path: RouterPath, parameter: String = "id",
        _ action: @escaping @Sendable (String) async throws(SimulatorError) -> ActionResult
    ) {
        group.post(path) { _, context in
            try await run { () async throws(SimulatorError) in
                try await action(try Self.parameter(context, parameter))
            }
        }
    }

    static func parameter(_ context: BasicRequestContext, _ name: String) throws(SimulatorError) -> String {
        guard let value = context.parameters.get(name), let decoded = value.removingPercentEncoding else {
            throw SimulatorError(.badRequest, "missing \(name)")
        }
        return decoded
    }

    static func endpoint(_ context: BasicRequestContext) throws(SimulatorError) -> FaultEndpoint {
        let name = try parameter(context, "endpoint")
        guard let endpoint = FaultEndpoint(rawValue: name) else {
            throw SimulatorError(.badRequest, "endpoint must be verify_receipt or server_api")
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
            ["error": error.code.description, "message": error.message],
            status: HTTPResponse.Status(code: error.code.httpStatus))
    }

    static func run<Output: Encodable>(
        _ body: () async throws(SimulatorError) -> Output
    ) async throws -> Response {
        do throws(SimulatorError) {
            return json(try await body())
        } catch {
            return Self.error(error)
        }
    }

    static func run<Input: Decodable, Output: Encodable>(
        _ request: Request,
        _ type: Input.Type,
        allowEmpty: Bool = false,
        _ body: (Input) async throws(SimulatorError) -> Output
    ) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: 4 * 1024 * 1024)
        var data = Data(buffer.readableBytesView)
        if data.isEmpty, allowEmpty { data = Data("{}".utf8) }
        let input: Input
        do {
            input = try ControlJSON.decoder.decode(Input.self, from: data)
        } catch {
            return Self.error(SimulatorError(.badRequest, "body is not a valid \(Input.self): \(error)"))
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
    var bundleID: String
    /// `Production` or `Sandbox` (default).
    var environment: StoreEnvironment?
}
