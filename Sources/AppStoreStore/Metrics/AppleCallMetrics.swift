import AppStore
import Metrics
import SubLedgerUseCases

/// Counts and times SubLedger's calls to Apple, by endpoint and outcome.
///
/// Exported as `subledger_apple_calls_total{endpoint,outcome}` and the histogram
/// `subledger_apple_call_duration_seconds{endpoint,outcome}`.
public enum AppleCallMetrics {
    /// Which of Apple's services was called.
    public struct Endpoint: Hashable, Sendable {
        public let name: String
        public init(_ name: String) { self.name = name }

        /// `verifyReceipt` (production, with its sandbox retry, as one call).
        public static let verifyReceipt = Endpoint("verify_receipt")
        /// App Store Server API: Get Transaction History.
        public static let transactionHistory = Endpoint("transaction_history")
        /// App Store Server API: Get All Subscription Statuses.
        public static let subscriptionStatuses = Endpoint("subscription_statuses")
        /// App Store Server API: Get Transaction Info.
        public static let transactionInfo = Endpoint("transaction_info")
        /// App Store Server API: Get Notification History.
        public static let notificationHistory = Endpoint("notification_history")
        /// App Store Server API: Send Consumption Information (V2 or V1).
        public static let consumptionInformation = Endpoint("consumption_information")
        /// App Store Server API: Extend a Subscription Renewal Date.
        public static let extendRenewalDate = Endpoint("extend_renewal_date")
        /// App Store Server API: Extend Subscription Renewal Dates for All Active Subscribers.
        public static let massExtendRenewalDate = Endpoint("mass_extend_renewal_date")
        /// App Store Server API: Get Status of Subscription Renewal Date Extensions.
        public static let massExtensionStatus = Endpoint("mass_extension_status")
        /// App Store Server API: Request a Test Notification.
        public static let requestTestNotification = Endpoint("request_test_notification")
        /// App Store Server API: Get Test Notification Status.
        public static let testNotificationStatus = Endpoint("test_notification_status")
        /// App Store Server API: Set App Account Token.
        public static let setAppAccountToken = Endpoint("set_app_account_token")
        /// App Store Server API: Finish Transaction.
        public static let finishTransaction = Endpoint("finish_transaction")
        /// External Purchase Server API: Send External Purchase Report.
        public static let sendExternalPurchaseReport = Endpoint("send_external_purchase_report")
        /// External Purchase Server API: Retrieve External Purchase Report.
        public static let retrieveExternalPurchaseReport = Endpoint("retrieve_external_purchase_report")
    }

    /// How a call ended.
    public struct Outcome: Hashable, Sendable {
        public let name: String
        public init(_ name: String) { self.name = name }

        /// Apple answered and the answer was usable.
        public static let success = Outcome("success")
        /// Apple answered that the input is invalid (a bad receipt, an unknown transaction): not retried.
        public static let rejected = Outcome("rejected")
        /// Apple refused our credentials or configuration (shared secret, key, bundle id).
        public static let configurationError = Outcome("configuration_error")
        /// A failure worth retrying: timeout, connection error, 5xx, rate limit.
        public static let retryable = Outcome("retryable")
        /// Apple answered something unexpected (an unknown status, a body that does not decode).
        public static let upstreamFailure = Outcome("upstream_failure")

        /// The outcome of a verifyReceipt call.
        public init(_ outcome: VerifyReceiptOutcome) {
            switch outcome {
            case .valid: self = .success
            case .invalidReceipt: self = .rejected
            case .configurationError: self = .configurationError
            case .retryable: self = .retryable
            case .upstreamFailure: self = .upstreamFailure
            }
        }
    }

    /// Records one finished call.
    public static func record(_ endpoint: Endpoint, outcome: Outcome, duration: Duration) {
        let dimensions = [("endpoint", endpoint.name), ("outcome", outcome.name)]
        Counter(label: "subledger_apple_calls_total", dimensions: dimensions).increment()
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        Timer(label: "subledger_apple_call_duration_seconds", dimensions: dimensions).recordNanoseconds(nanoseconds)
    }

    /// Runs `call`, then records its duration and the outcome `classify` gives its result.
    ///
    ///     let outcome = await AppleCallMetrics.measure(.verifyReceipt, classify: AppleCallMetrics.Outcome.init) {
    ///         await client.verify(receiptData: receiptData)
    ///     }
    public static func measure<T>(
        _ endpoint: Endpoint,
        classify: (T) -> Outcome,
        _ call: () async -> T
    ) async -> T {
        let clock = ContinuousClock()
        let started = clock.now
        let result = await call()
        record(endpoint, outcome: classify(result), duration: clock.now - started)
        return result
    }

    /// Runs a throwing `call`: a return counts as `success`, a thrown error as what `classify` says.
    public static func measure<T>(
        _ endpoint: Endpoint,
        classifyError: (any Error) -> Outcome,
        _ call: () async throws -> T
    ) async throws -> T {
        let clock = ContinuousClock()
        let started = clock.now
        do {
            let result = try await call()
            record(endpoint, outcome: .success, duration: clock.now - started)
            return result
        } catch {
            record(endpoint, outcome: classifyError(error), duration: clock.now - started)
            throw error
        }
    }
}
