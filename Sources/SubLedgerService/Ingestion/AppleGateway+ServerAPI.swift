import AppStore

/// Why a call to the App Store Server API through `AppleGateway.callServerAPI` returned no answer.
public enum ServerAPICallFailure: Error, Sendable {
    /// Nothing was sent: the circuit breaker refused the call (Apple kept failing); try again after the wait.
    case notCalled(retryAfter: Duration)
    /// Apple failed or refused the call.
    case apple(AppStoreServerAPIError)
}

extension AppleGateway {
    /// Calls the App Store Server API the one way every caller does: refused at once while the circuit breaker
    /// is open, measured by `AppleCallMetrics` as `endpoint`, and reported to the breaker (a retryable failure
    /// counts against Apple; any answer, a refusal included, shows that Apple answers).
    public func callServerAPI<T: Sendable>(
        _ endpoint: AppleCallMetrics.Endpoint, _ call: () async throws(AppStoreServerAPIError) -> T
    ) async throws(ServerAPICallFailure) -> T {
        if let wait = breaker.refusal() { throw .notCalled(retryAfter: wait) }
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
