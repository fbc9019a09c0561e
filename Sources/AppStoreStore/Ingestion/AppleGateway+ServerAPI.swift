import AppStore
import SubLedgerUseCases

/// Why a call to the App Store Server API through `AppleGateway.callServerAPI` returned no answer.
public enum ServerAPICallFailure: Error, Sendable {
    /// Nothing was sent: the circuit breaker refused the call (Apple kept failing), or every call slot stayed
    /// busy (`AppleCallSlots`); try again after the wait.
    case notCalled(retryAfter: Duration)
    /// Apple failed or refused the call.
    case apple(AppStoreServerAPIError)
}

extension AppleGateway {
    /// How long a caller refused for want of a free call slot is asked to wait.
    static let busyRetryAfter: Duration = .seconds(5)

    /// Calls the App Store Server API the one way every caller does: refused at once while the circuit breaker
    /// is open, within one of the call slots (waiting for one up to their bound), measured by `AppleCallMetrics` as `endpoint`, and reported to the breaker (a retryable failure
    /// counts against Apple; any answer, a refusal included, shows that Apple answers).
    public func callServerAPI<T: Sendable>(
        _ endpoint: AppleCallMetrics.Endpoint, _ call: () async throws(AppStoreServerAPIError) -> T
    ) async throws(ServerAPICallFailure) -> T {
        if let wait = breaker.refusal() { throw .notCalled(retryAfter: wait) }
        guard await callSlots.acquire() else { throw .notCalled(retryAfter: Self.busyRetryAfter) }
        defer { callSlots.release() }
        let clock = ContinuousClock()
        let started = clock.now
        do {
            let result = try await call()
            AppleCallMetrics.record(endpoint, outcome: .success, duration: clock.now - started)
            breaker.recordSuccess()
            return result
        } catch {
            AppleCallMetrics.record(endpoint, outcome: AppleCallMetrics.Outcome(error), duration: clock.now - started)
            if error.isRetryable {
                breaker.recordFailure()
            } else {
                breaker.recordSuccess()
            }
            throw .apple(error)
        }
    }
}

extension AppleCallMetrics.Outcome {
    /// The outcome of an App Store Server API call that failed.
    public init(_ error: AppStoreServerAPIError) {
        if error.isRetryable {
            self = .retryable
        } else if error.code == .unauthorized || error.code == .invalidConfiguration {
            self = .configurationError
        } else if error.code == .malformedResponse || error.code == .verificationFailed {
            self = .upstreamFailure
        } else {
            self = .rejected
        }
    }
}
