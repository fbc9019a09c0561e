import AppStore
import Foundation
import SubLedgerCore

/// The App Store Server API endpoints AppStore's client uses, for one environment's base path.
struct ServerAPIResponder: Sendable {
    let engine: SimulatorEngine
    var authenticator = ServerAPIAuthenticator()
    /// Transactions (or notifications) per page, as Apple pages them.
    static let pageSize = 20

    /// Answers a request whose path starts at `/inApps/` or `/externalPurchase/`.
    func respond(
        method: String,
        path: String,
        query: [String: [String]],
        body: Data,
        authorization: String?,
        environment: StoreEnvironment
    ) -> SimpleResponse {
        let segments = path.split(separator: "/").map(String.init)
        let apps = engine.state.withLock { $0.apps }
        guard let app = authenticator.authenticate(authorization: authorization, apps: apps) else {
            return ServerAPIError.unauthorized
        }
        if let limited = engine.rateLimits.admit(bundleID: app.bundleID) { return limited }
        let now = engine.clock.now()
        let signer = engine.signer
        let request = Request(
            app: app.description, environment: environment, query: query, body: body, now: now, signer: signer)
        do throws(SimulatorError) {
            return try engine.read { state throws(SimulatorError) in
                switch (method, segments.count >= 3 ? Array(segments.prefix(3)) : segments) {
                case ("GET", ["inApps", "v2", "history"]) where segments.count == 4:
                    return try state.transactionHistory(segments[3], request, version: .v2)
                case ("GET", ["inApps", "v1", "history"]) where segments.count == 4:
                    return try state.transactionHistory(segments[3], request, version: .v1)
                case ("GET", ["inApps", "v1", "subscriptions"]) where segments.count == 4:
                    return try state.subscriptionStatuses(segments[3], request)
                case ("GET", ["inApps", "v1", "transactions"]) where segments.count == 4:
                    return try state.transactionInfo(segments[3], request)
                case ("GET", ["inApps", "v1", "transactions"])
                where segments.count == 5 && segments[3] == "appTransactions":
                    return try state.appTransactionInfo(segments[4], request)
                case ("GET", ["inApps", "v1", "lookup"]) where segments.count == 4:
                    return try state.lookUpOrder(segments[3], request)
                case ("GET", ["inApps", "v2", "refund"]) where segments.count == 5 && segments[3] == "lookup":
                    return try state.refundHistory(segments[4], request)
                case ("POST", ["inApps", "v1", "notifications"]) where segments.count == 4 && segments[3] == "history":
                    return try state.notificationHistory(request)
                case ("PUT", ["inApps", "v1", "transactions"])
                where segments.count == 5 && segments[4] == "appAccountToken":
                    return state.setAppAccountToken(segments[3], request)
                case ("POST", ["inApps", "v1", "transactions"]) where segments.count == 5 && segments[4] == "finish":
                    return state.finishFromServer(segments[3], request)
                case ("PUT", _) where segments.count == 5 && segments[2...3] == ["transactions", "consumption"]:
                    return state.receiveConsumptionInformation(segments[4], version: segments[1], request)
                case ("GET", ["inApps", "v1", "notifications"]) where segments.count == 5 && segments[3] == "test":
                    return try state.testNotificationStatus(segments[4], request)
                case ("PUT", ["inApps", "v1", "subscriptions"]) where segments.count == 5 && segments[3] == "extend":
                    return try extendRenewalDate(segments[4], request, state: &state)
                case ("POST", ["inApps", "v1", "subscriptions"])
                where segments.count == 5 && segments[3...] == ["extend", "mass"]:
                    return massExtendRenewalDate(request, state: &state)
                case ("GET", ["inApps", "v1", "subscriptions"])
                where segments.count == 7 && segments[3...4] == ["extend", "mass"]:
                    return massExtensionStatus(
                        productID: segments[5], requestIdentifier: segments[6], request, state: state)
                case ("PUT", ["externalPurchase", "v1", "reports"]) where segments.count == 3:
                    return state.sendExternalPurchaseReport(request)
                case ("GET", ["externalPurchase", "v1", "reports"]) where segments.count == 4:
                    return state.retrieveExternalPurchaseReport(segments[3], request)
                default:
                    return ServerAPIError.body(4_040_000, "Not found.", status: 404)
                }
            }
        } catch {
            engine.logger.debug("server API failed", metadata: ["error": "\(error)"])
            return ServerAPIError.general
        }
    }

    /// What a handler needs to know about the request.
    struct Request: Sendable {
        var app: AppDescription
        var environment: StoreEnvironment
        var query: [String: [String]]
        var body: Data
        var now: Instant
        var signer: PayloadSigner

        func first(_ name: String) -> String? { query[name]?.first }
        func all(_ name: String) -> [String] { query[name] ?? [] }
    }

    /// Encodes an answer body with Apple's camel-case names.
    static func encode(_ value: some Encodable, status: Int = 200) -> SimpleResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return ServerAPIError.general }
        return .json(String(decoding: data, as: UTF8.self), status: status)
    }

    /// `revision` / `paginationToken` ↔ offset.
    static func token(offset: Int) -> String { Base64URL.encode(Data("offset:\(offset)".utf8)) }

    static func offset(token: String?) -> Int?? {
        guard let token else { return .some(0) }
        guard let data = Base64URL.decode(token), let text = String(data: data, encoding: .utf8),
            text.hasPrefix("offset:"), let offset = Int(text.dropFirst("offset:".count)), offset >= 0
        else { return .some(nil) }
        return .some(offset)
    }
}

extension ServerAPIResponder {
    /// Request a Test Notification: sends a `TEST` notification and answers its token.
    func requestTestNotification(
        authorization: String?,
        environment: StoreEnvironment,
        control: SimulatorControl
    ) async -> SimpleResponse {
        let apps = engine.state.withLock { $0.apps }
        guard let app = authenticator.authenticate(authorization: authorization, apps: apps) else {
            return ServerAPIError.unauthorized
        }
        do throws(SimulatorError) {
            let summary = try await control.sendTestNotification(bundleID: app.bundleID, environment: environment)
            return Self.encode(["testNotificationToken": summary.notificationUUID])
        } catch {
            return ServerAPIError.general
        }
    }
}
