import AppStore
import AsyncHTTPClient
import BoundedHTTP
import Foundation
import Logging
import NIOHTTP1
import SubLedgerCore

/// Apple's legacy `verifyReceipt` endpoint: production first, the sandbox when Apple answers 21007.
///
/// Uses one injected `HTTPClient` (its connection pool is shared by every request) and never throws:
/// every answer and every transport failure becomes a `VerifyReceiptOutcome`.
public struct VerifyReceiptClient: Sendable {
    /// Endpoints, credentials and limits.
    public struct Configuration: Sendable {
        /// Apple's production endpoint. Default: `https://buy.itunes.apple.com/verifyReceipt`.
        public var productionURL: String
        /// Apple's sandbox endpoint. Default: `https://sandbox.itunes.apple.com/verifyReceipt`.
        public var sandboxURL: String
        /// The app's shared secret (`password`); never logged.
        public var sharedSecret: String
        /// Whether Apple should return only the latest renewal of each subscription. Default: `false`.
        public var excludeOldTransactions: Bool
        /// The endpoint asked first. Default: `.production`, as Apple recommends.
        public var firstEnvironment: StoreEnvironment
        /// Time allowed for the whole verification, both endpoints of a redirected receipt, time waiting for
        /// a pooled connection and connecting included: one deadline, not one per request. Default: 30 seconds.
        public var timeout: Duration
        /// The largest answer accepted. Default: 16 MiB.
        public var maximumResponseBytes: Int
        /// Bundle ids a verified receipt may belong to; `nil` accepts any. Default: `nil`.
        public var acceptedBundleIDs: Set<String>?

        /// Creates a configuration; only the shared secret has no default.
        public init(
            sharedSecret: String,
            productionURL: String = "https://buy.itunes.apple.com/verifyReceipt",
            sandboxURL: String = "https://sandbox.itunes.apple.com/verifyReceipt",
            excludeOldTransactions: Bool = false,
            firstEnvironment: StoreEnvironment = .production,
            timeout: Duration = .seconds(30),
            maximumResponseBytes: Int = 16 * 1024 * 1024,
            acceptedBundleIDs: Set<String>? = nil
        ) {
            self.sharedSecret = sharedSecret
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.excludeOldTransactions = excludeOldTransactions
            self.firstEnvironment = firstEnvironment
            self.timeout = timeout
            self.maximumResponseBytes = maximumResponseBytes
            self.acceptedBundleIDs = acceptedBundleIDs
        }
    }

    /// The configuration this client was made with.
    public let configuration: Configuration
    private let exchange: HTTPExchange
    private let now: @Sendable () -> Instant

    /// Creates a client on a shared `HTTPClient`; `now` stamps answers that carry no request date.
    public init(
        httpClient: HTTPClient,
        configuration: Configuration,
        logger: Logger = Logger(label: "subledger.appstore.verify-receipt"),
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.exchange = HTTPExchange(
            client: httpClient, logger: logger, maximumBytes: configuration.maximumResponseBytes)
        self.configuration = configuration
        self.now = now
    }

    /// Verifies a base64 receipt, following Apple's 21007 / 21008 redirections at most once, within one
    /// deadline (`configuration.timeout`) for everything.
    public func verify(receiptData: String) async -> VerifyReceiptOutcome {
        let requestedAt = now()
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.timeout
        var environment = configuration.firstEnvironment == .sandbox ? StoreEnvironment.sandbox : .production
        var redirected = false
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            body = try encoder.encode(
                RequestBody(
                    receiptData: receiptData,
                    password: configuration.sharedSecret,
                    excludeOldTransactions: configuration.excludeOldTransactions
                )
            )
        } catch {
            return .configurationError(VerifyReceiptFailure(code: .malformedRequest, environment: environment))
        }
        while true {
            // The same bytes go to both endpoints when Apple redirects.
            let remaining = deadline - clock.now
            guard remaining > .zero else {
                return .retryable(VerifyReceiptFailure(code: .timeout, environment: environment))
            }
            let answer = await post(body: body, to: environment, timeout: remaining)
            let response: VerifyReceiptResponse
            switch answer {
            case .failed(let outcome):
                return outcome
            case .answered(let decoded):
                response = decoded
            }
            let status = VerifyReceiptStatus(status: response.status, isRetryable: response.isRetryable)
            exchange.logger.debug(
                "verifyReceipt answered",
                metadata: ["status": "\(response.status)", "environment": "\(environment.rawValue)"]
            )
            let failure = VerifyReceiptFailure(
                code: .appleStatus, appleStatus: response.status, environment: environment)
            switch status {
            case .valid:
                return mapValid(response, answeredBy: environment, requestedAt: requestedAt)
            case .useSandbox, .useProduction:
                let target: StoreEnvironment = status == .useSandbox ? .sandbox : .production
                guard !redirected, target != environment else {
                    return .upstreamFailure(
                        VerifyReceiptFailure(
                            code: .environmentLoop, appleStatus: response.status, environment: environment)
                    )
                }
                redirected = true
                environment = target
            case .invalidReceipt:
                return .invalidReceipt(failure)
            case .configurationError:
                return .configurationError(failure)
            case .retryable:
                return .retryable(failure)
            case .upstreamFailure:
                return .upstreamFailure(failure)
            }
        }
    }

    private func mapValid(
        _ response: VerifyReceiptResponse,
        answeredBy environment: StoreEnvironment,
        requestedAt: Instant
    ) -> VerifyReceiptOutcome {
        let snapshot: ReceiptSnapshot
        do {
            snapshot = try response.receiptSnapshot(answeredBy: environment, requestedAt: requestedAt)
        } catch  where [.dateOutOfRange, .valueOutOfRange, .invalidIdentifier].contains(error.code) {
            // A value no real answer holds: asking again gives the same answer, so the receipt is refused
            // (and its stored row ends `invalid`) instead of being retried forever.
            return .invalidReceipt(
                VerifyReceiptFailure(code: .impossibleValue, appleStatus: response.status, environment: environment)
            )
        } catch {
            // Status 0 without a usable receipt body is Apple misbehaving, not a bad receipt.
            return .retryable(
                VerifyReceiptFailure(code: .unmappableReceipt, appleStatus: response.status, environment: environment)
            )
        }
        if let accepted = configuration.acceptedBundleIDs, !accepted.contains(snapshot.bundleID) {
            return .invalidReceipt(
                VerifyReceiptFailure(code: .bundleMismatch, appleStatus: response.status, environment: environment)
            )
        }
        return .valid(VerifiedReceipt(response: response, snapshot: snapshot, answeredBy: environment))
    }

    private enum Answer {
        case answered(VerifyReceiptResponse)
        case failed(VerifyReceiptOutcome)
    }

    private struct RequestBody: Encodable {
        var receiptData: String
        var password: String
        var excludeOldTransactions: Bool

        enum CodingKeys: String, CodingKey {
            case receiptData = "receipt-data"
            case password
            case excludeOldTransactions = "exclude-old-transactions"
        }
    }

    private func post(body: Data, to environment: StoreEnvironment, timeout: Duration) async -> Answer {
        let url = environment == .sandbox ? configuration.sandboxURL : configuration.productionURL
        let answer: HTTPExchange.Answer
        do {
            answer = try await exchange.perform(
                .POST,
                url: url,
                headers: [("Accept", "application/json")],
                body: body,
                timeout: timeout
            )
        } catch {
            let code: VerifyReceiptFailure.Code = error == .timeout ? .timeout : .connectionError
            exchange.logger.debug(
                "verifyReceipt request failed",
                metadata: ["code": "\(code)", "environment": "\(environment.rawValue)"]
            )
            return .failed(.retryable(VerifyReceiptFailure(code: code, environment: environment)))
        }
        let httpStatus = answer.status

        guard httpStatus == 200 else {
            let failure = VerifyReceiptFailure(code: .httpStatus, httpStatus: httpStatus, environment: environment)
            switch httpStatus {
            case 401, 403: return .failed(.configurationError(failure))
            default: return .failed(.retryable(failure))
            }
        }
        do {
            return .answered(
                try JSONDecoder().decode(VerifyReceiptResponse.self, from: answer.body))
        } catch {
            // A 200 carrying an HTML maintenance page or a cut-off body says nothing about the receipt.
            return .failed(
                .retryable(
                    VerifyReceiptFailure(code: .malformedResponse, httpStatus: httpStatus, environment: environment))
            )
        }
    }
}
