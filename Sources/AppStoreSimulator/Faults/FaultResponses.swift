import AppStore
import Hummingbird
import NIOCore
import SubLedgerCore

/// What each fault answers, per endpoint family; `nil` means "after the delay, answer normally".
enum FaultResponses {
    static let maintenancePage =
        "<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We'll be back soon.</h1></body></html>"

    static func verifyReceipt(
        _ rule: FaultRule, environment: StoreEnvironment, faults: FaultInjector
    ) async -> Response? {
        switch rule.kind {
        case .appleStatus:
            let status = rule.status ?? 21005
            let body = VerifyReceiptResponder.status(
                status, endpoint: environment,
                isRetryable: (21100...21199).contains(status) ? (rule.isRetryable ?? true) : nil)
            return SimpleResponse.json(body).response
        case .http500:
            return SimpleResponse(
                status: 500, contentType: "text/html", body: "<html><body>Internal Server Error</body></html>"
            ).response
        case .http503:
            return SimpleResponse(
                status: 503, contentType: "text/html", body: "<html><body>Service Unavailable</body></html>"
            ).response
        case .http429:
            return SimpleResponse(status: 429, contentType: "text/plain", retryAfter: "1", body: "Too Many Requests")
                .response
        case .html200:
            return SimpleResponse(status: 200, contentType: "text/html", body: maintenancePage).response
        case .latency, .timeout:
            await delay(rule, endpoint: .verifyReceipt, faults: faults)
            return nil
        }
    }

    static func serverAPI(_ rule: FaultRule, faults: FaultInjector) async -> Response? {
        switch rule.kind {
        case .appleStatus: return ServerAPIError.generalRetryable.response
        case .http500: return ServerAPIError.general.response
        case .http503: return ServerAPIError.unavailable.response
        case .http429: return ServerAPIError.rateLimited.response
        case .html200: return SimpleResponse(status: 200, contentType: "text/html", body: maintenancePage).response
        case .latency, .timeout:
            await delay(rule, endpoint: .serverAPI, faults: faults)
            return nil
        }
    }

    private static func delay(_ rule: FaultRule, endpoint: FaultEndpoint, faults: FaultInjector) async {
        let milliseconds = max(rule.kind == .latency ? (rule.latencyMs ?? 200) : (rule.holdMs ?? 60_000), 0)
        if let gather = rule.gather, gather > 0 {
            await faults.hold(endpoint, until: gather, atMost: .milliseconds(milliseconds))
        } else {
            try? await Task.sleep(for: .milliseconds(milliseconds))
        }
    }
}
