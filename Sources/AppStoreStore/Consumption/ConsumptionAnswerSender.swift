import AppStore
import AppStoreClients
import Foundation
import Logging
import Metrics
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// The App Store adapter's answer to one consumption request (a customer asked Apple for a refund), the
/// `send_consumption_information` obligation the request's notification owed: within Apple's 12 hours it reads the
/// ledger's facts and the app server's reports, lets `ConsumptionAnswer.decide` choose (nothing without consent or
/// when the app's policy is off), calls Send Consumption Information (V2, or V1 when the catalog says so) and
/// records the call, Apple's answer and the request's new state in the audit trail. Transient failures (5xx, 429,
/// timeouts, a missing API key) are tried again under the obligation sender's `ObligationRetryPolicy` until the
/// deadline; Apple's 4xx refusals and the deadline are final. Every outcome is counted in
/// `subledger_consumption_answers_total{outcome}`.
public struct ConsumptionAnswerSender: Sendable {
    let store: ConsumptionStore
    let apple: AppleGateway
    /// When a transient failure is tried again: the obligation sender's own policy, so that the request's
    /// `next_attempt_at` is the obligation's.
    let retry: ObligationRetryPolicy
    let logger: Logger

    public init(store: ConsumptionStore, apple: AppleGateway, retry: ObligationRetryPolicy, logger: Logger) {
        self.store = store
        self.apple = apple
        self.retry = retry
        self.logger = logger
    }

    /// Answers the request `requestID` for `app` once at `now`, records the attempt and the request's state, and
    /// says how it went; never throws (a failure is an attempt's outcome).
    func send(requestID: Int64, app: StoredApp, now instant: Instant) async -> ObligationAttempt {
        let request: DueConsumptionRequest
        do {
            guard let found = try await store.request(requestID) else {
                return .refused(detail: "unknown_request: the consumption request is gone")
            }
            request = found
        } catch {
            return .transient(detail: "database: \(error)")
        }
        // Answered already (a lease that ran out while the answer was recorded): nothing more to send.
        guard request.waiting else { return .skipped(detail: "answered: the request was answered already") }
        let record = await answer(request, app: app, now: instant)
        do {
            try await store.finish(request, record, now: instant)
        } catch {
            // The call was made (or decided) but not recorded: tried again, like any database failure; Apple
            // answers a second identical answer the same way.
            return .transient(detail: "database: \(error)")
        }
        Counter(label: "subledger_consumption_answers_total", dimensions: [("outcome", record.outcome.rawValue)])
            .increment()
        let detail = record.detail ?? ""
        if record.outcome == .finalFailure || record.outcome == .transientFailure {
            logger.warning(
                "consumption request not answered",
                metadata: [
                    "request": "\(request.requestID)", "outcome": "\(record.outcome.rawValue)", "detail": "\(detail)",
                ])
        }
        switch record.outcome {
        case .accepted:
            return .sent()
        case .skippedNoConsent, .skippedDisabled:
            return .skipped(detail: "\(record.outcome.rawValue): \(detail)")
        case .transientFailure:
            return .transient(
                httpStatus: record.httpStatus, storeErrorCode: record.appleErrorCode, detail: detail,
                notBefore: record.nextAttemptAt)
        case .finalFailure:
            return .refused(httpStatus: record.httpStatus, storeErrorCode: record.appleErrorCode, detail: detail)
        }
    }

    /// Decides and, when there is something to send, calls Apple once; never throws (a failure is a record).
    func answer(_ request: DueConsumptionRequest, app: StoredApp, now instant: Instant) async
        -> ConsumptionAttemptRecord
    {
        guard instant < request.deadline else {
            return ConsumptionAttemptRecord(outcome: .finalFailure, detail: "deadline_passed: Apple's 12 hours ran out")
        }
        let facts: ConsumptionFacts
        do {
            facts = try await store.facts(for: request, app: app, now: instant)
        } catch {
            return retry(request, at: instant, detail: "database: \(error)")
        }
        let information: ConsumptionInformation
        switch ConsumptionAnswer.decide(facts, policy: app.definition.consumption, now: instant) {
        case .skip(.disabled):
            return ConsumptionAttemptRecord(
                outcome: .skippedDisabled, detail: "the app's catalog does not enable consumption answers")
        case .skip(.noConsent):
            return ConsumptionAttemptRecord(
                outcome: .skippedNoConsent, detail: "no consent in force for the purchase's account")
        case .send(let computed):
            information = computed
        }
        let version = app.definition.consumption.endpoint
        let body: String
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data =
                switch version {
                case .v2: try encoder.encode(ConsumptionRequest(information))
                case .v1: try encoder.encode(ConsumptionRequestV1(information))
                }
            body = String(decoding: data, as: UTF8.self)
        } catch {
            return ConsumptionAttemptRecord(outcome: .finalFailure, detail: "the request body could not be encoded")
        }
        let client: AppStoreServerAPIClient
        do {
            guard let configured = try apple.serverAPIClient(for: app, environment: request.environment) else {
                // A configuration the operator can still fix before the deadline.
                return retry(
                    request, at: instant, endpoint: version.rawValue, body: body,
                    detail: "no_server_api_key: the app has no App Store Server API key")
            }
            client = configured
        } catch {
            return retry(
                request, at: instant, endpoint: version.rawValue, body: body, detail: "server_api_key: \(error)")
        }
        do {
            try await apple.callServerAPI(.consumptionInformation) { () async throws(AppStoreServerAPIError) in
                switch version {
                case .v2:
                    try await client.sendConsumptionInformation(
                        transactionID: request.transactionID, ConsumptionRequest(information))
                case .v1:
                    try await client.sendConsumptionInformationV1(
                        transactionID: request.transactionID, ConsumptionRequestV1(information))
                }
            }
            return ConsumptionAttemptRecord(outcome: .accepted, endpoint: version.rawValue, body: body, httpStatus: 202)
        } catch {
            switch error {
            case .notCalled(let wait):
                // Nothing was sent (the breaker is open, or every call is busy): tried again like any transient
                // failure.
                return retry(
                    request, at: instant, endpoint: version.rawValue, body: body,
                    detail: "apple_unavailable: Apple is not called now; not sent",
                    after: instant.adding(milliseconds: wait.milliseconds))
            case .apple(let error):
                if error.isRetryable {
                    return retry(
                        request, at: instant, endpoint: version.rawValue, body: body, httpStatus: error.httpStatus,
                        appleErrorCode: error.apiErrorCode, detail: "\(error)", after: error.retryAfter)
                }
                return ConsumptionAttemptRecord(
                    outcome: .finalFailure, endpoint: version.rawValue, body: body, httpStatus: error.httpStatus,
                    appleErrorCode: error.apiErrorCode, detail: "\(error)")
            }
        }
    }

    /// A transient failure, tried again under the retry policy after the request's attempts (or Apple's
    /// `Retry-After`); final when the next try would come after the deadline.
    private func retry(
        _ request: DueConsumptionRequest, at instant: Instant, endpoint: String? = nil, body: String? = nil,
        httpStatus: Int? = nil, appleErrorCode: Int? = nil, detail: String, after retryAfter: Instant? = nil
    ) -> ConsumptionAttemptRecord {
        let next = retry.nextAttempt(afterAttempts: request.attempts, now: instant, notBefore: retryAfter)
        guard next < request.deadline else {
            return ConsumptionAttemptRecord(
                outcome: .finalFailure, endpoint: endpoint, body: body, httpStatus: httpStatus,
                appleErrorCode: appleErrorCode, detail: "deadline_passed after: \(detail)")
        }
        return ConsumptionAttemptRecord(
            outcome: .transientFailure, endpoint: endpoint, body: body, httpStatus: httpStatus,
            appleErrorCode: appleErrorCode, detail: detail, nextAttemptAt: next)
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
